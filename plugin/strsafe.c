// SPDX-License-Identifier: MIT
/* strsafe.c - escaping text from images for logs and terminals (contract in strsafe.h) */
#include <stdio.h>
#include <string.h>

#include "strsafe.h"

static bool printable(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

const char *cs_mem_escape(const void *s, size_t n, char *out, size_t outlen)
{
	const unsigned char *p = s;
	size_t o = 0;

	if (!outlen)
		return out;
	for (size_t i = 0; i < n; i++) {
		if (printable(p[i])) {
			if (o + 1 >= outlen)
				break;
			out[o++] = (char)p[i];
			continue;
		}
		if (o + 4 >= outlen)
			break;
		snprintf(out + o, 5, "\\x%02x", p[i]);
		o += 4;
	}
	out[o] = '\0';
	return out;
}

const char *cs_str_escape(const char *s, char *out, size_t outlen)
{
	return cs_mem_escape(s, s ? strlen(s) : 0, out, outlen);
}

bool cs_str_is_printable(const char *s)
{
	for (; *s; s++)
		if (!printable((unsigned char)*s))
			return false;
	return true;
}
