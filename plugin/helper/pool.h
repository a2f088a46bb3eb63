/* SPDX-License-Identifier: MIT */
/*
 * pool.h - the helper's pinned pool, lent to every copy.
 *
 * The pool (engine.h, cs_pinned_pool): buffers of the copy's chunk size (the images' on restore,
 * the chunk_mb option on dump) for every GPU of the tree (restore) or of the first process
 * (dump), at most pinned_mb per GPU, made once per helper (ahead: at POST_FORKING on restore by
 * the warm-up (warmup.h), in PAUSE before the lock on dump; or by the first copy that wants it)
 * and lent to every copy of every process. Its first caller makes it, under its mutex; when it
 * cannot be made (logged once) every copy pins its own buffers.
 */
#ifndef CUDASTORE_POOL_H
#define CUDASTORE_POOL_H

#include <pthread.h>
#include <stdbool.h>

#include "engine.h"

struct cs_ctx;

/* The helper's one pool (owned here: no other file writes it). */
struct cs_pool {
	pthread_mutex_t mu;	       /* its first callers, a batch's copies, ask at once */
	struct cs_pinned_pool *pinned; /* or NULL */
	bool failed;		       /* it could not be pinned once: each copy pins its own */
};

/* p empty (zeroed memory is not enough: its mutex) */
void cs_pool_setup(struct cs_pool *p);
/* the pool pinned now, or NULL */
struct cs_pinned_pool *cs_pool_pinned(struct cs_pool *p);

/* one GPU to be copied: its bytes and the chunk size of the copy */
struct cs_gpu_copy {
	uint64_t size;
	uint32_t chunk;
};

/*
 * The pool for copying n GPUs at once from or into the images directory dirfd (made now, with cu
 * current, when there is none yet): buffers of their largest chunk, as many as this stage's copy
 * of each GPU uses (bufs_for), at most pinned_mb per GPU; NULL if it cannot be made.
 */
struct cs_pinned_pool *cs_pool_get_for_gpus(struct cs_ctx *ctx, CUcontext cu, const struct cs_gpu_copy *g,
					    unsigned n, int dirfd);
/*
 * The pool for a copy of regs: made now (with regs[0].ctx current, enough chunk buffers for every
 * region, at most pinned_mb per region) when there is none yet; NULL if it cannot be made (logged
 * once: the copy then pins its own buffers).
 */
struct cs_pinned_pool *cs_pool_get_for_regions(struct cs_ctx *ctx, const struct cs_engine_region *regs,
					       unsigned n);
/*
 * Dump, PAUSE, before the lock (the process still runs): the pool for a process NVML says uses
 * bytes on ndev GPUs (at most pinned_mb per GPU), made with a retained context current. Nothing
 * when the plan is unknown (bytes 0) or no context is retained: the copy makes it then.
 */
struct cs_pinned_pool *cs_pool_make_from_plan(struct cs_ctx *ctx, unsigned ndev, uint64_t bytes, int dirfd);
/*
 * Restore, after each RESTORE: free the pool once every process the images' index lists has been
 * restored (after each RESTORE without an index). Without -d, criu and so the helper live as long
 * as the restored tree; the pool must not stay pinned that long.
 */
void cs_pool_after_restore(struct cs_ctx *ctx);
/* Free the pool (no copy may be running). */
void cs_pool_release(struct cs_ctx *ctx);

#endif /* CUDASTORE_POOL_H */
