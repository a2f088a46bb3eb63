// SPDX-License-Identifier: MIT
/* uuid.c - GPU UUIDs as text ("GPU-xxxxxxxx-..."), the form nvidia-smi prints. No driver code:
 * criu's side (options) and the helper both use it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cuda_ops.h"

void cs_uuid_format(const CUuuid *uuid, char out[CS_UUID_STRLEN])
{
	const unsigned char *b = (const unsigned char *)uuid->bytes;

	snprintf(out, CS_UUID_STRLEN,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int cs_uuid_parse(const char *text, CUuuid *uuid)
{
	unsigned char *b = (unsigned char *)uuid->bytes;
	int n = 0, hi = -1;

	if (!strncmp(text, "GPU-", 4))
		text += 4;
	for (; *text && n < 16; text++) {
		int v;

		if (*text == '-')
			continue;
		if (*text >= '0' && *text <= '9')
			v = *text - '0';
		else if (*text >= 'a' && *text <= 'f')
			v = *text - 'a' + 10;
		else if (*text >= 'A' && *text <= 'F')
			v = *text - 'A' + 10;
		else
			return -EINVAL;
		if (hi < 0) {
			hi = v;
		} else {
			b[n++] = (unsigned char)(hi << 4 | v);
			hi = -1;
		}
	}
	return (n == 16 && hi < 0 && !*text) ? 0 : -EINVAL;
}
