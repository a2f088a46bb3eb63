/* SPDX-License-Identifier: MIT */
/*
 * gpu_hash.c - chunk ids on the GPU (gpu_hash.h): the kernels of gpu_hash.cu, whose PTX the
 * build embeds (cs_gpu_hash_ptx, gpu_hash_ptx.c made from gpu_hash.ptx), loaded once per hasher
 * with cuModuleLoadData and run over the region in batches of whole chunks, so that the leaves'
 * digests of one batch (32 bytes per 4 KiB, 32 MiB for a 4 GiB batch) are all the device memory
 * a hasher borrows. Chunks of up to 64 MiB: per batch, the leaf kernel (one thread per leaf), the
 * root kernel (one thread per chunk), the ids copied to the host. Larger chunks: a root is a long
 * SHA-256 that one GPU thread runs about a hundred times slower than a CPU thread, so the leaves'
 * digests come to the host and the host hashes a batch's roots while the GPU hashes the next
 * batch's leaves.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "chunk_id.h"
#include "gpu_hash.h"

#define BATCH_BYTES  (4ull << 30)
/*
 * Chunks of more leaves than this (64 MiB) get their roots on the host, from batches of 2 GiB.
 * On the H200, 32 GiB hashed at 634 GB/s in 4 MiB chunks and 415 GB/s in 16 MiB ones with the
 * roots on the GPU (each root costs in proportion to its chunk, all of a batch at once), and at
 * 141-159 GB/s with the roots on one host thread whatever the chunk: the GPU's roots are ahead
 * up to 64 MiB by that proportion.
 */
#define HOST_ROOTS_LEAVES 16384u
#define HOST_BATCH_BYTES  (2ull << 30)
#define LEAF_THREADS 256u /* the kernels' __launch_bounds__ */
#define ROOT_THREADS 128u

extern const char cs_gpu_hash_ptx[];

struct eng_gpu_hasher {
	const struct cs_cuda_ops *ops;
	CUmodule mod;
	CUfunction leaves_fn, roots_fn;
	CUdeviceptr scratch; /* one batch's leaf digests, then its ids; or two batches' digests */
	uint64_t scratch_len;
	uint8_t *host; /* a batch's leaf digests on the host (roots on the host) */
	uint64_t host_len;
};

/* what one batch of n whole chunks (the last may be short) hands the kernels */
struct batch {
	CUdeviceptr data, leaves, ids;
	uint64_t len, chunk, nleaves, nchunks;
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static bool has_kernel_ops(const struct cs_cuda_ops *ops)
{
	return ops->ModuleLoadData && ops->ModuleUnload && ops->ModuleGetFunction && ops->LaunchKernel &&
	       ops->MemAlloc && ops->MemFree && ops->MemcpyDtoH;
}

int eng_gpu_hasher_open(const struct cs_cuda_ops *ops, struct eng_gpu_hasher **out)
{
	struct eng_gpu_hasher *h;

	*out = NULL;
	if (!has_kernel_ops(ops))
		return -ENOTSUP;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->ops = ops;
	if (ops->ModuleLoadData(&h->mod, cs_gpu_hash_ptx) != CUDA_SUCCESS)
		goto err_free;
	if (ops->ModuleGetFunction(&h->leaves_fn, h->mod, "cs_sha256_leaves") != CUDA_SUCCESS ||
	    ops->ModuleGetFunction(&h->roots_fn, h->mod, "cs_sha256_roots") != CUDA_SUCCESS)
		goto err_unload;
	*out = h;
	return 0;
err_unload:
	ops->ModuleUnload(h->mod);
err_free:
	free(h);
	return -ENOTSUP;
}

/* device memory for the digests of a batch, kept from one call to the next. 0 or -ENOMEM. */
static int scratch_reserve(struct eng_gpu_hasher *h, uint64_t len)
{
	if (h->scratch_len >= len)
		return 0;
	if (h->scratch)
		h->ops->MemFree(h->scratch);
	h->scratch = 0;
	h->scratch_len = 0;
	if (h->ops->MemAlloc(&h->scratch, len) != CUDA_SUCCESS) {
		h->scratch = 0;
		return -ENOMEM;
	}
	h->scratch_len = len;
	return 0;
}

static int launch(const struct eng_gpu_hasher *h, CUfunction fn, uint64_t threads, unsigned block,
		  void **params)
{
	uint64_t grid = div_up(threads, block);

	if (grid > 0x7fffffffu)
		return -EINVAL;
	return h->ops->LaunchKernel(fn, (unsigned)grid, 1, 1, block, 1, 1, 0, NULL, params, NULL) ==
		       CUDA_SUCCESS
		   ? 0
		   : -EIO;
}

static int launch_leaves(const struct eng_gpu_hasher *h, struct batch *b)
{
	void *args[] = { &b->data, &b->len, &b->chunk, &b->leaves, &b->nleaves };

	return launch(h, h->leaves_fn, b->nleaves, LEAF_THREADS, args);
}

/* the region cut into batches of whole chunks */
struct plan {
	CUdeviceptr dptr;
	uint64_t len, chunk, lpc, nchunks, per; /* lpc: leaves per chunk; per: chunks per batch */
};

static void plan_init(struct plan *p, CUdeviceptr dptr, uint64_t len, uint64_t chunk, uint64_t batch_bytes)
{
	p->dptr = dptr;
	p->len = len;
	p->chunk = chunk;
	p->lpc = div_up(chunk, CS_CHUNK_LEAF);
	p->nchunks = div_up(len, chunk);
	p->per = chunk < batch_bytes ? batch_bytes / chunk : 1;
	if (p->per > p->nchunks)
		p->per = p->nchunks;
}

/* the batch that starts at chunk first (its data, length, chunks and leaves) */
static void batch_at(const struct plan *p, uint64_t first, struct batch *b)
{
	uint64_t off = first * p->chunk;

	b->chunk = p->chunk;
	b->nchunks = p->nchunks - first < p->per ? p->nchunks - first : p->per;
	b->data = p->dptr + off;
	b->len = p->len - off < b->nchunks * p->chunk ? p->len - off : b->nchunks * p->chunk;
	b->nleaves = (b->nchunks - 1) * p->lpc + div_up(b->len - (b->nchunks - 1) * p->chunk, CS_CHUNK_LEAF);
}

/* both kernels over one batch, then its ids to the host (which waits for them). 0 or -errno. */
static int gpu_roots_batch(struct eng_gpu_hasher *h, struct batch *b, uint8_t *ids)
{
	void *root_args[] = { &b->leaves, &b->len, &b->chunk, &b->ids, &b->nchunks };
	int ret;

	ret = launch_leaves(h, b);
	if (!ret)
		ret = launch(h, h->roots_fn, b->nchunks, ROOT_THREADS, root_args);
	if (!ret && h->ops->MemcpyDtoH(ids, b->ids, CS_CHUNK_ID_LEN * b->nchunks) != CUDA_SUCCESS)
		ret = -EIO;
	return ret;
}

/* chunks of at most HOST_ROOTS_LEAVES leaves: every root on the GPU, one thread per chunk */
static int hash_gpu_roots(struct eng_gpu_hasher *h, const struct plan *p, uint8_t *ids)
{
	uint64_t dbytes = p->per * p->lpc * CS_CHUNK_ID_LEN;
	struct batch b;
	int ret = scratch_reserve(h, dbytes + p->per * CS_CHUNK_ID_LEN);

	b.leaves = h->scratch;
	b.ids = h->scratch + dbytes;
	for (uint64_t first = 0; !ret && first < p->nchunks; first += b.nchunks) {
		batch_at(p, first, &b);
		ret = gpu_roots_batch(h, &b, ids + CS_CHUNK_ID_LEN * first);
	}
	return ret;
}

/* the roots of a batch from its leaves' digests on the host. 0 or -errno. */
static int host_roots(const struct plan *p, const struct batch *b, const uint8_t *leaves, uint8_t *ids)
{
	for (uint64_t c = 0; c < b->nchunks; c++) {
		uint64_t clen = b->len - c * p->chunk < p->chunk ? b->len - c * p->chunk : p->chunk;
		int ret =
		    cs_chunk_id_from_leaves(leaves + CS_CHUNK_ID_LEN * c * p->lpc,
					    div_up(clen, CS_CHUNK_LEAF), clen, ids + CS_CHUNK_ID_LEN * c);

		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Larger chunks: a root is one SHA-256 over all its leaves' digests, which one GPU thread runs
 * far slower than a CPU does, so the digests come to the host (1/128 of the data) and the host
 * hashes the roots of batch k while the GPU hashes the leaves of batch k + 1 (two buffers).
 */
static int hash_host_roots(struct eng_gpu_hasher *h, const struct plan *p, uint8_t *ids)
{
	uint64_t dbytes = p->per * p->lpc * CS_CHUNK_ID_LEN, first, next;
	struct batch b[2];
	int k = 0, ret;

	ret = scratch_reserve(h, 2 * dbytes);
	if (!ret && h->host_len < dbytes) {
		free(h->host);
		h->host_len = 0;
		h->host = malloc(dbytes);
		ret = h->host ? 0 : -ENOMEM;
		if (!ret)
			h->host_len = dbytes;
	}
	if (ret)
		return ret;
	b[0].leaves = h->scratch;
	b[1].leaves = h->scratch + dbytes;
	batch_at(p, 0, &b[0]);
	ret = launch_leaves(h, &b[0]);
	for (first = 0; !ret && first < p->nchunks; first = next, k ^= 1) {
		next = first + b[k].nchunks;
		/* waits for batch k's leaves; batch k + 1's then run while the host hashes k's roots */
		if (h->ops->MemcpyDtoH(h->host, b[k].leaves, CS_CHUNK_ID_LEN * b[k].nleaves) !=
		    CUDA_SUCCESS) {
			ret = -EIO;
			break;
		}
		if (next < p->nchunks) {
			batch_at(p, next, &b[k ^ 1]);
			ret = launch_leaves(h, &b[k ^ 1]);
		}
		if (!ret)
			ret = host_roots(p, &b[k], h->host, ids + CS_CHUNK_ID_LEN * first);
	}
	return ret;
}

int eng_gpu_hash(struct eng_gpu_hasher *h, CUdeviceptr dptr, uint64_t len, uint64_t chunk, uint8_t *ids)
{
	struct plan p;

	if (!chunk)
		return -EINVAL;
	if (!len)
		return 0;
	if (div_up(chunk, CS_CHUNK_LEAF) <= HOST_ROOTS_LEAVES) {
		plan_init(&p, dptr, len, chunk, BATCH_BYTES);
		return hash_gpu_roots(h, &p, ids);
	}
	plan_init(&p, dptr, len, chunk, HOST_BATCH_BYTES);
	return hash_host_roots(h, &p, ids);
}

void eng_gpu_hasher_close(struct eng_gpu_hasher *h)
{
	if (!h)
		return;
	if (h->scratch)
		h->ops->MemFree(h->scratch);
	h->ops->ModuleUnload(h->mod);
	free(h->host);
	free(h);
}
