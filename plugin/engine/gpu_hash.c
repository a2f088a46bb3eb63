/* SPDX-License-Identifier: MIT */
/*
 * gpu_hash.c - chunk ids on the GPU (gpu_hash.h): the kernels of gpu_hash.cu, whose PTX the
 * build embeds (cs_gpu_hash_ptx, gpu_hash_ptx.c made from gpu_hash.ptx), loaded once per hasher
 * with cuModuleLoadData and run over the region in batches of whole chunks, so that the leaves'
 * digests of one batch (32 bytes per 4 KiB, 32 MiB for a 4 GiB batch) are all the device memory
 * a hasher borrows. Each batch: the leaf kernel (one thread per leaf), the root kernel (one
 * thread per chunk), the ids copied to the host.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "chunk_id.h"
#include "gpu_hash.h"

#define BATCH_BYTES  (4ull << 30)
#define LEAF_THREADS 256u /* the kernels' __launch_bounds__ */
#define ROOT_THREADS 128u

extern const char cs_gpu_hash_ptx[];

struct eng_gpu_hasher {
	const struct cs_cuda_ops *ops;
	CUmodule mod;
	CUfunction leaves_fn, roots_fn;
	CUdeviceptr scratch; /* one batch's leaf digests, then its ids */
	uint64_t scratch_len;
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

/* both kernels over one batch, then its ids to the host (which waits for them). 0 or -errno. */
static int hash_batch(struct eng_gpu_hasher *h, struct batch *b, uint8_t *ids)
{
	void *leaf_args[] = { &b->data, &b->len, &b->chunk, &b->leaves, &b->nleaves };
	void *root_args[] = { &b->leaves, &b->len, &b->chunk, &b->ids, &b->nchunks };
	int ret;

	ret = launch(h, h->leaves_fn, b->nleaves, LEAF_THREADS, leaf_args);
	if (!ret)
		ret = launch(h, h->roots_fn, b->nchunks, ROOT_THREADS, root_args);
	if (!ret && h->ops->MemcpyDtoH(ids, b->ids, CS_CHUNK_ID_LEN * b->nchunks) != CUDA_SUCCESS)
		ret = -EIO;
	return ret;
}

int eng_gpu_hash(struct eng_gpu_hasher *h, CUdeviceptr dptr, uint64_t len, uint64_t chunk, uint8_t *ids)
{
	uint64_t lpc, nchunks, per, first;
	struct batch b;
	int ret;

	if (!chunk)
		return -EINVAL;
	if (!len)
		return 0;
	lpc = div_up(chunk, CS_CHUNK_LEAF);
	nchunks = div_up(len, chunk);
	per = chunk < BATCH_BYTES ? BATCH_BYTES / chunk : 1;
	if (per > nchunks)
		per = nchunks;
	ret = scratch_reserve(h, per * lpc * CS_CHUNK_ID_LEN + per * CS_CHUNK_ID_LEN);
	if (ret)
		return ret;
	b.leaves = h->scratch;
	b.ids = h->scratch + per * lpc * CS_CHUNK_ID_LEN;
	b.chunk = chunk;
	for (first = 0; first < nchunks; first += b.nchunks) {
		uint64_t off = first * chunk;

		b.nchunks = nchunks - first < per ? nchunks - first : per;
		b.data = dptr + off;
		b.len = len - off < b.nchunks * chunk ? len - off : b.nchunks * chunk;
		b.nleaves = (b.nchunks - 1) * lpc + div_up(b.len - (b.nchunks - 1) * chunk, CS_CHUNK_LEAF);
		ret = hash_batch(h, &b, ids + CS_CHUNK_ID_LEN * first);
		if (ret)
			return ret;
	}
	return 0;
}

void eng_gpu_hasher_close(struct eng_gpu_hasher *h)
{
	if (!h)
		return;
	if (h->scratch)
		h->ops->MemFree(h->scratch);
	h->ops->ModuleUnload(h->mod);
	free(h);
}
