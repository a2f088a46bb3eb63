// SPDX-License-Identifier: MIT
/* dump_prehash.c - chunk ids hashed on the GPU before a chunked dump's copy (dump_prehash.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunkstore.h"
#include "dump_prehash.h"
#include "gpu_hash.h"
#include "imgdir.h"
#include "log.h"
#include "manifest.h"

struct known_id {
	uint8_t id[CS_CHUNK_ID_LEN];
	uint64_t hash;
};

static int cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, CS_CHUNK_ID_LEN);
}

static size_t count_ids(const struct cs_manifest *m)
{
	size_t n = 0;
	unsigned d;
	uint64_t i;

	for (d = 0; d < m->ndev; d++)
		for (i = 0; m->dev[d].ids && i < m->dev[d].nchunks; i++)
			n += !m->dev[d].zero[i];
	return n;
}

/* The ids of the parent's chunks of this process with their XXH3, sorted; *n 0: none to use */
static int parent_ids(struct cs_ctx *ctx, const struct cs_proc *p, struct known_id **out, size_t *n,
		      struct cs_prehash *ph)
{
	struct cs_manifest m;
	char name[CS_NAME_MAX], err[512];
	size_t k = 0;
	unsigned d;
	uint64_t i;
	int ret;

	*out = NULL;
	*n = 0;
	cs_name_manifest(name, p->ns_pid);
	ret = cs_manifest_read(ctx->dump.parent.dir, name, &m, err, sizeof(err));
	if (ret) {
		snprintf(ph->why, sizeof(ph->why), "the parent's manifest cannot be read: %.100s", err);
		return 0;
	}
	k = count_ids(&m);
	*out = malloc((k ? k : 1) * sizeof(**out));
	k = 0;
	if (!*out) {
		cs_manifest_free(&m);
		return -ENOMEM;
	}
	for (d = 0; d < m.ndev; d++)
		for (i = 0; m.dev[d].ids && i < m.dev[d].nchunks; i++) {
			if (m.dev[d].zero[i])
				continue;
			memcpy((*out)[k].id, m.dev[d].ids + i * CS_CHUNK_ID_LEN, CS_CHUNK_ID_LEN);
			(*out)[k++].hash = m.dev[d].hash[i];
		}
	cs_manifest_free(&m);
	qsort(*out, k, sizeof(**out), cmp_id);
	*n = k;
	return 0;
}

/* The ids of an all-zero chunk of CS_DEDUP_CHUNK bytes and of tail bytes (tail 0: none) */
static int zero_ids(uint64_t tail, uint8_t full_id[CS_CHUNK_ID_LEN], uint8_t tail_id[CS_CHUNK_ID_LEN])
{
	void *z = calloc(1, CS_DEDUP_CHUNK);
	int ret;

	if (!z)
		return -ENOMEM;
	ret = cs_chunk_id(z, CS_DEDUP_CHUNK, full_id);
	if (!ret && tail)
		ret = cs_chunk_id(z, (size_t)tail, tail_id);
	free(z);
	return ret;
}

struct lookup {
	const struct cs_chunk_sink *sink; /* chunks written with their XXH3 (CS_CHUNK_XATTR) */
	const struct known_id *ids;
	size_t n;
	bool zero;
	uint8_t zero_full[CS_CHUNK_ID_LEN], zero_tail[CS_CHUNK_ID_LEN];
};

/* known[] of one region from its ids hashed on the GPU */
static void mark(const struct lookup *lk, struct cs_engine_region *r, uint64_t nchunks, unsigned i,
		 struct cs_prehash *ph)
{
	uint64_t c;

	for (c = 0; c < nchunks; c++) {
		const uint8_t *id = ph->ids[i] + c * CS_CHUNK_ID_LEN;
		bool tail = c == nchunks - 1 && r->size % CS_DEDUP_CHUNK;
		size_t len = tail ? r->size % CS_DEDUP_CHUNK : CS_DEDUP_CHUNK;
		const struct known_id *k;

		if (lk->zero && !memcmp(id, tail ? lk->zero_tail : lk->zero_full, CS_CHUNK_ID_LEN)) {
			ph->known[i][c] = 1;
			continue;
		}
		k = lk->n ? bsearch(id, lk->ids, lk->n, sizeof(*k), cmp_id) : NULL;
		if (k) {
			ph->known[i][c] = 2;
			ph->hash[i][c] = k->hash;
		} else if (!cs_chunk_known_hash(lk->sink, id, len, &ph->hash[i][c])) {
			ph->known[i][c] = 2; /* in the store (or this dump, or the parent's chunks) */
		} else {
			ph->new_bytes += len;
		}
	}
}

/* Hash region i on its GPU; 1: no hasher or a hash that failed (why says), 0, -ENOMEM */
static int hash_region(struct cs_ctx *ctx, struct cs_engine_region *r, unsigned i, struct cs_prehash *ph)
{
	uint64_t nchunks = (r->size + CS_DEDUP_CHUNK - 1) / CS_DEDUP_CHUNK;
	struct eng_gpu_hasher *h = NULL;
	int ret;

	ph->known[i] = calloc(nchunks ? nchunks : 1, 1);
	ph->ids[i] = malloc((nchunks ? nchunks : 1) * CS_CHUNK_ID_LEN);
	ph->hash[i] = calloc(nchunks ? nchunks : 1, sizeof(uint64_t));
	if (!ph->known[i] || !ph->ids[i] || !ph->hash[i])
		return -ENOMEM;
	if (!nchunks)
		return 0;
	if (ctx->cuda.CtxSetCurrent(r->ctx) != CUDA_SUCCESS) {
		snprintf(ph->why, sizeof(ph->why), "region %u: its context cannot be made current", i);
		return 1;
	}
	ret = eng_gpu_hasher_open(&ctx->cuda, &h);
	if (!ret)
		ret = eng_gpu_hash(h, r->ptr, r->size, CS_DEDUP_CHUNK, ph->ids[i]);
	eng_gpu_hasher_close(h);
	if (ret == -ENOTSUP)
		snprintf(ph->why, sizeof(ph->why), "the driver cannot run the GPU hasher");
	else if (ret)
		snprintf(ph->why, sizeof(ph->why), "hashing region %u on the GPU failed: %s", i,
			 strerror(-ret));
	return ret ? 1 : 0;
}

static void unset(struct cs_engine_region *regs, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		regs[i].known = NULL;
}

int cs_prehash_regions(struct cs_ctx *ctx, const struct cs_proc *p, struct cs_engine_region *regs, unsigned n,
		       struct cs_prehash *ph)
{
	struct known_id *ids = NULL;
	struct lookup lk = { .zero = ctx->opt.skip_zero, .sink = &ctx->dump.sink };
	unsigned i;
	int ret;

	memset(ph, 0, sizeof(*ph));
	if (!ctx->dump.chunked) {
		snprintf(ph->why, sizeof(ph->why), "not a chunked dump");
		return 0;
	}
	if (ctx->dump.parent.dir >= 0) {
		ret = parent_ids(ctx, p, &ids, &lk.n, ph);
		if (ret || ph->why[0])
			return ret;
	}
	lk.ids = ids;
	for (i = 0; i < n; i++) {
		uint64_t nchunks = (regs[i].size + CS_DEDUP_CHUNK - 1) / CS_DEDUP_CHUNK;

		ret = hash_region(ctx, &regs[i], i, ph);
		if (ret)
			break;
		if (lk.zero && zero_ids(regs[i].size % CS_DEDUP_CHUNK, lk.zero_full, lk.zero_tail)) {
			ret = -ENOMEM;
			break;
		}
		mark(&lk, &regs[i], nchunks, i, ph);
		regs[i].known = ph->known[i];
		regs[i].pre_ids = ph->ids[i];
		regs[i].pre_hash = ph->hash[i];
	}
	free(ids);
	if (ret) {
		unset(regs, n);
		return ret < 0 ? ret : 0;
	}
	ph->gpu = true;
	return 0;
}

void cs_prehash_free(struct cs_prehash *ph)
{
	unsigned i;

	for (i = 0; i < CS_MAX_DEVICES; i++) {
		free(ph->known[i]);
		free(ph->ids[i]);
		free(ph->hash[i]);
		ph->known[i] = ph->ids[i] = NULL;
		ph->hash[i] = NULL;
	}
}
