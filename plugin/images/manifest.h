/* SPDX-License-Identifier: MIT */
/*
 * manifest.h - the per-process manifest: what was checkpointed, where, and how to check it.
 *
 * On disk (docs/image-format.md): 16-byte frame header (imgframe.h)
 *     magic "CSMF" | u32 LE payload length | u64 LE XXH3-64 of the payload
 * followed by a protobuf-c CsManifest (proto/cudastore.proto). cs_manifest_decode() refuses
 * anything it cannot fully trust before a byte of it is used: wrong magic, length or hash,
 * an unknown major version, a mode it does not know, more than CS_MAX_DEVICES devices, sizes
 * above CS_MAX_DEVICE_BYTES, a chunk size outside the engine's range, a chunk table whose
 * length does not match the size, duplicate UUIDs, and extent (and stripe) names that are not
 * safe (imgdir.h) or not unique, more stripes than CS_MAX_STRIPES or than chunks. Each error names the field, the value and the limit.
 */
#ifndef CUDASTORE_MANIFEST_H
#define CUDASTORE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_api.h"
#include "facts.h"
#include "imgdir.h"
#include "imglimits.h"

#define CS_FORMAT_MAJOR	      1
/* 1.1: dump_id, cudastore-index.img (imgindex.h); 1.2: striped extents; 1.3: the index names the
 * run of its CRIU dump; 1.4: the GPUs and the host a restore must match (facts.h) */
#define CS_FORMAT_MINOR	      4
/* 1.5: chunked devices (chunkstore.h); written only by a chunked dump, an extent dump says 1.4 */
#define CS_FORMAT_MINOR_CHUNKS 5
#define CS_CHUNK_ID_BYTES      32 /* == CS_CHUNK_ID_LEN (chunk_id.h) */
#define CS_DUMP_ID_BYTES      16
#define CS_MAX_MANIFEST_BYTES (64u << 20)

/* Bytes of stripe k of n of a region of size bytes in chunks of chunk bytes: chunk i lives in
 * stripe i % n at offset (i / n) * chunk. */
static inline uint64_t cs_stripe_size(uint64_t size, uint32_t chunk, unsigned n, unsigned k)
{
	uint64_t nchunks = (size + chunk - 1) / chunk, cnt, last;

	if (n <= 1)
		return size;
	if (k >= nchunks)
		return 0;
	cnt = (nchunks - k + n - 1) / n; /* chunks k, k + n, ... below nchunks */
	last = nchunks - 1;
	if (last % n == k) /* this stripe holds the last, maybe short, chunk */
		return (cnt - 1) * chunk + (size - last * chunk);
	return cnt * chunk;
}

enum cs_mode {
	CS_MODE_CUSTOM = 1, /* CustomStorage: data in our extent files */
	CS_MODE_DRIVER = 2, /* driver-managed: data in CRIU's pages images */
};

struct cs_manifest_dev {
	CUuuid uuid;
	int32_t ordinal; /* CUDA device ordinal in the dumping criu at dump time */
	uint64_t size;	 /* bytes of the driver's mapping == extent file size */
	char extent[CS_NAME_MAX]; /* == stripe[0] */
	unsigned nstripes;	  /* extent files, >= 1 (format 1.0 images: 1) */
	char stripe[CS_MAX_STRIPES][CS_NAME_MAX]; /* stripe[0] == extent; chunk i in stripe i % n */
	uint32_t chunk_size;
	uint64_t nchunks;      /* ceil(size / chunk_size) */
	uint64_t *hash;	       /* nchunks XXH3-64 values (malloc'ed) */
	uint8_t *zero;	       /* nchunks flags (malloc'ed) */
	uint64_t stored_bytes; /* non-zero bytes in the file */
	/* format 1.5: a chunked device: nchunks ids of CS_CHUNK_ID_BYTES (malloc'ed; zero chunks
	 * all-zero ids), no extent file; NULL: an extent */
	uint8_t *ids;
	uint64_t new_bytes; /* chunked: bytes of the chunks this dump wrote, not linked */
};

struct cs_manifest {
	uint32_t format_major, format_minor;
	enum cs_mode mode;
	int32_t pid;		/* pid as criu saw it at dump */
	int32_t ns_pid;		/* pid in its own namespace (names the files) */
	int32_t driver_version; /* cuDriverGetVersion at dump */
	uint64_t created_unix_ns;
	char plugin_version[32];
	unsigned ndev;
	struct cs_manifest_dev dev[CS_MAX_DEVICES];
	uint64_t total_bytes;  /* sum of dev[].size */
	uint64_t stored_bytes; /* sum of dev[].stored_bytes */
	bool has_dump_id;      /* format 1.1: the dump that wrote it (absent in 1.0 images) */
	uint8_t dump_id[CS_DUMP_ID_BYTES];
	/* format 1.4 (facts.h): every GPU the process used (ngpu 0: not recorded) and its host */
	unsigned ngpu;
	struct cs_gpu_facts gpu[CS_MAX_DEVICES];
	struct cs_host_facts host;
};

/* Serialize (frame + protobuf) into a malloc'ed buffer. 0 or -errno. */
int cs_manifest_encode(const struct cs_manifest *m, void **buf, size_t *len);
/* Parse and validate; on error returns -errno and explains in err. m is zeroed first. */
int cs_manifest_decode(const void *buf, size_t len, struct cs_manifest *m, char *err, size_t errlen);
/* encode, check it decodes, cs_imgdir_write_atomic (0600); on error -errno and why in err */
int cs_manifest_write(int dirfd, const char *name, const struct cs_manifest *m, char *err, size_t errlen);
/* cs_imgdir_read_all (bounded) + decode */
int cs_manifest_read(int dirfd, const char *name, struct cs_manifest *m, char *err, size_t errlen);
/* Every extent file (each stripe) exists as a regular file of exactly its size (no links followed);
 * for a chunked device, every non-zero chunk's file in cudastore-chunks/ at exactly its length. */
int cs_manifest_check_extents(int dirfd, const struct cs_manifest *m, char *err, size_t errlen);
/* Frees the chunk tables; m may be NULL or partly filled. */
void cs_manifest_free(struct cs_manifest *m);

#endif /* CUDASTORE_MANIFEST_H */
