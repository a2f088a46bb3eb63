/* SPDX-License-Identifier: MIT */
/*
 * imgframe.h - the 16-byte frame around the protobuf-c payload of the manifest ("CSMF") and of
 * cudastore-index.img ("CSIX"); docs/image-format.md, sections 2 and 8. All integers LE:
 *     magic (4 ASCII bytes) | u32 payload length | u64 XXH3-64 (seed 0) of the payload
 * followed by exactly that many payload bytes, a packed protobuf-c message. cs_imgframe_decode()
 * says what is wrong with a file, and each file's decoder words the message for its readers
 * (manifest.c, imgindex.c).
 */
#ifndef CUDASTORE_IMGFRAME_H
#define CUDASTORE_IMGFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

#define CS_FRAME_HDR 16u
/* ends every message about a framed file that cannot be trusted, its frame or its fields */
#define CS_IMAGES_CORRUPT " (images corrupt or not written by cudastore: use another checkpoint)"

/* What cs_imgframe_decode() finds first, in the order it checks. */
enum cs_frame_fault {
	CS_FRAME_OK,
	CS_FRAME_SHORT,	  /* fewer bytes than the header */
	CS_FRAME_MAGIC,	  /* another magic */
	CS_FRAME_BIG,	  /* the header's payload length is above the limit */
	CS_FRAME_LENGTH,  /* the file is not CS_FRAME_HDR + payload length bytes */
	CS_FRAME_HASH,	  /* the payload's XXH3-64 is not the header's */
	CS_FRAME_PAYLOAD, /* the payload is not a message of the type asked for */
};

/* The file as far as cs_imgframe_decode() read it. */
struct cs_frame {
	uint32_t plen;	       /* payload length, from the header */
	size_t have;	       /* payload bytes in the file (length - CS_FRAME_HDR) */
	uint64_t want, got;    /* XXH3-64: the header's, the payload's */
	ProtobufCMessage *msg; /* the payload unpacked, when CS_FRAME_OK: the caller frees it */
};

/*
 * Packs msg behind a frame with magic (4 characters) into a malloc'ed buffer. 0, or -EFBIG
 * (payload above max bytes), -ENOMEM or -EIO; *buf NULL and *len 0 on error.
 */
int cs_imgframe_encode(const ProtobufCMessage *msg, const char *magic, uint32_t max, void **buf, size_t *len);
/*
 * Checks len bytes at buf: header present, magic, payload length <= max, file size, hash; only
 * then unpacks the payload as a message of type d into f->msg (free it with the type's
 * __free_unpacked() or protobuf_c_message_free_unpacked()).
 */
enum cs_frame_fault cs_imgframe_decode(const void *buf, size_t len, const char *magic, uint32_t max,
				       const ProtobufCMessageDescriptor *d, struct cs_frame *f);

#endif /* CUDASTORE_IMGFRAME_H */
