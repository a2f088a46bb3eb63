// SPDX-License-Identifier: MIT
/* imgframe.c - the frame of the manifest and the index files (contract in imgframe.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "imgframe.h"
#include "le.h"

int cs_imgframe_encode(const ProtobufCMessage *msg, const char *magic, uint32_t max, void **buf, size_t *len)
{
	size_t plen = protobuf_c_message_get_packed_size(msg);
	uint8_t *out;

	*buf = NULL;
	*len = 0;
	if (plen > max)
		return -EFBIG;
	out = malloc(CS_FRAME_HDR + plen);
	if (!out)
		return -ENOMEM;
	if (protobuf_c_message_pack(msg, out + CS_FRAME_HDR) != plen) {
		free(out);
		return -EIO;
	}
	memcpy(out, magic, 4);
	cs_put_le(out + 4, plen, 4);
	cs_put_le(out + 8, XXH3_64bits(out + CS_FRAME_HDR, plen), 8);
	*buf = out;
	*len = CS_FRAME_HDR + plen;
	return 0;
}

enum cs_frame_fault cs_imgframe_decode(const void *buf, size_t len, const char *magic, uint32_t max,
				       const ProtobufCMessageDescriptor *d, struct cs_frame *f)
{
	const uint8_t *p = buf;

	memset(f, 0, sizeof(*f));
	if (len < CS_FRAME_HDR)
		return CS_FRAME_SHORT;
	if (memcmp(p, magic, 4))
		return CS_FRAME_MAGIC;
	f->plen = (uint32_t)cs_get_le(p + 4, 4);
	f->have = len - CS_FRAME_HDR;
	if (f->plen > max)
		return CS_FRAME_BIG;
	if (f->have != f->plen)
		return CS_FRAME_LENGTH;
	f->want = cs_get_le(p + 8, 8);
	f->got = XXH3_64bits(p + CS_FRAME_HDR, f->plen);
	if (f->want != f->got)
		return CS_FRAME_HASH;
	f->msg = protobuf_c_message_unpack(d, NULL, f->plen, p + CS_FRAME_HDR);
	return f->msg ? CS_FRAME_OK : CS_FRAME_PAYLOAD;
}
