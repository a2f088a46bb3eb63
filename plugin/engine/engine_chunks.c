// SPDX-License-Identifier: MIT
/*
 * engine_chunks.c - chunked images (format 1.5, chunkstore.h) on the copy threads: a dump hands
 * each non-zero chunk, once its D2H copy is in the pinned buffer, to the dump's chunk sink by id;
 * a restore reads chunk i from its own file. Everything else (claims, buffers, zero chunks, the
 * XXH3 check before a chunk reaches the device) is the extent path's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chunkstore.h"
#include "engine_priv.h"

/*
 * A chunk copied under the id the GPU hashed before the copy: the first of the region and one in
 * ENG_ID_SAMPLE after it are hashed on the CPU as well, so that a GPU hasher that goes wrong
 * (a driver or GPU that computes other ids than the CPU for the same bytes) fails the dump
 * instead of filing chunks under false names, which later dumps would link by those names.
 */
#define ENG_ID_SAMPLE 64

/* chunk idx's id from the GPU's into id: 0, -errno (the CPU's sample hash failed), or 1 when
 * the CPU's sample differs */
static int gpu_id(struct eng_region *reg, const void *buf, size_t len, uint64_t idx, uint8_t *id)
{
	const uint8_t *pre = reg->r->pre_ids + idx * CS_CHUNK_ID_LEN;
	uint8_t cpu[CS_CHUNK_ID_LEN];
	int ret;

	memcpy(id, pre, CS_CHUNK_ID_LEN);
	if (atomic_fetch_add(&reg->gpu_ids, 1) % ENG_ID_SAMPLE)
		return 0;
	ret = cs_chunk_id(buf, len, cpu);
	return ret ? ret : memcmp(cpu, pre, CS_CHUNK_ID_LEN) != 0;
}

int eng_chunk_put(struct eng_thread *t, const void *buf, size_t len, uint64_t idx)
{
	struct eng_region *reg = t->reg;
	struct cs_engine_region *r = reg->r;
	uint8_t *id = r->ids + idx * CS_CHUNK_ID_LEN;
	enum cs_chunk_from from;
	char why[384] = "";
	int ret;

	r->hash[idx] = eng_hash(buf, len);
	/* pre_ids: hashed on the GPU before the copy, over the same locked bytes */
	ret = r->pre_ids ? gpu_id(reg, buf, len, idx, id) : cs_chunk_id(buf, len, id);
	if (ret > 0) {
		eng_fail(
		    reg->job, -EIO,
		    "dump: region %u, chunk %llu: the id the GPU hashed before the copy differs from "
		    "the CPU's for the same bytes, so the GPU hasher cannot be trusted on this driver and "
		    "GPU; dump without chunks (chunks = no) and report the driver version and GPU",
		    reg->index, (unsigned long long)idx);
		return -EIO;
	}
	if (ret) {
		eng_fail(reg->job, ret, "dump: region %u: cannot compute the id of chunk %llu: %s",
			 reg->index, (unsigned long long)idx, strerror(-ret));
		return ret;
	}
	ret = cs_chunk_put(r->sink, id, buf, len, &r->hash[idx], &from, why, sizeof(why));
	if (ret) {
		eng_fail(reg->job, ret, "dump: region %u, chunk %llu: %s", reg->index,
			 (unsigned long long)idx, why);
		return ret;
	}
	atomic_fetch_add(&reg->stored, len);
	if (from == CS_CHUNK_WRITTEN)
		atomic_fetch_add(&reg->fresh, len);
	return 0;
}

int eng_chunk_known(struct eng_thread *t, uint64_t idx)
{
	struct eng_region *reg = t->reg;
	struct cs_engine_region *r = reg->r;
	uint8_t *id = r->ids + idx * CS_CHUNK_ID_LEN;
	size_t len = eng_chunk_len(reg, idx);
	enum cs_chunk_from from;
	char why[384] = "";
	int ret;

	if (r->known[idx] == 1) {
		r->zero[idx] = 1;
		r->hash[idx] = eng_zero_hash_for(reg, len);
	} else {
		memcpy(id, r->pre_ids + idx * CS_CHUNK_ID_LEN, CS_CHUNK_ID_LEN);
		ret = cs_chunk_put(r->sink, id, NULL, len, NULL, &from, why, sizeof(why));
		if (ret == -ENOENT)
			return ret;
		if (ret) {
			eng_fail(reg->job, ret, "dump: region %u, chunk %llu: %s", reg->index,
				 (unsigned long long)idx, why);
			return ret;
		}
		r->hash[idx] = r->pre_hash[idx];
		atomic_fetch_add(&reg->stored, len);
	}
	atomic_fetch_add(&reg->skipped, len);
	eng_progress(reg, len);
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	uint64_t off = 0;

	while (off < len) {
		ssize_t n = pread(fd, p + off, len - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EBADMSG; /* shorter than it was a moment ago */
		off += (uint64_t)n;
	}
	return 0;
}

int eng_chunk_read(struct eng_thread *t, void *buf, size_t len, uint64_t idx, uint64_t *hash)
{
	struct eng_region *reg = t->reg;
	const uint8_t *id = reg->r->ids + idx * CS_CHUNK_ID_LEN;
	char rel[CS_CHUNK_REL];
	int fd, ret;

	cs_chunk_rel(id, rel);
	fd = cs_chunk_open_ro(reg->chunks_fd, id, len);
	ret = fd < 0 || !reg->chunk_map ? 1 : eng_mapread_chunk(t, fd, rel, buf, len, hash);
	if (ret != 1) { /* copied through a mapping, or its fault reported */
		close(fd);
		return ret;
	}
	ret = fd < 0 ? fd : read_all(fd, buf, len);
	if (fd >= 0)
		close(fd);
	if (!ret) {
		*hash = eng_hash(buf, len);
		return 0;
	}
	eng_fail(reg->job, ret == -EINVAL ? -EBADMSG : ret,
		 "restore: region %u, chunk %llu: %s/%s (%zu bytes) %s", reg->index, (unsigned long long)idx,
		 CS_CHUNKS_DIR, rel, len,
		 ret == -ENOENT	   ? "is missing: images incomplete"
		 : ret == -EBADMSG ? "is not of its length: images truncated or corrupt"
		 : ret == -EINVAL  ? "is not a regular file: images corrupt or tampered with"
				   : strerror(-ret));
	return ret == -EINVAL ? -EBADMSG : ret;
}
