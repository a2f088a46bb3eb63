// SPDX-License-Identifier: MIT
/* pool.c - the helper's one pinned pool, lent to every copy (see pool.h) */
#include <pthread.h>
#include <string.h>

#include "context.h"
#include "copy_opts.h"
#include "engine.h"
#include "imgset.h"
#include "log.h"
#include "pool.h"

void cs_pool_setup(struct cs_pool *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
}

struct cs_pinned_pool *cs_pool_pinned(struct cs_pool *p)
{
	struct cs_pinned_pool *pinned;

	pthread_mutex_lock(&p->mu);
	pinned = p->pinned;
	pthread_mutex_unlock(&p->mu);
	return pinned;
}

/*
 * Buffers of chunk bytes for one GPU of bytes: as many as the engine's plan for this stage's copy
 * uses (a restore: two per copy thread; a dump: two, or one into a memory filesystem in dirfd),
 * enough for all of it, at most pinned_mb (the engine's bound per GPU; the GPUs of a process are
 * copied at the same time, each within its bound). Concurrent copies of a tree split the same
 * budget, so they need no more. A dump's rollback that restores from the extents pins what it
 * lacks itself.
 */
static unsigned bufs_for(struct cs_ctx *ctx, uint64_t bytes, uint32_t chunk, int dirfd)
{
	struct cs_engine_opts eo;

	cs_copy_engine_opts(ctx, NULL, &eo);
	return cs_engine_plan_buffers(&eo, bytes, chunk, ctx->stage != CS_STAGE_RESTORE, dirfd);
}

/*
 * The pool of n buffers of size bytes (the chunk size of what is copied: the images' on restore),
 * made with cu current. None when one buffer exceeds pinned_mb: such images are restored with
 * one buffer of their own (engine.c, region_plan).
 */
static struct cs_pinned_pool *pool_make(struct cs_ctx *ctx, CUcontext cu, unsigned n, uint32_t size)
{
	char err[256];
	int ret;

	struct cs_pool *p = &ctx->pool;

	if (p->pinned || p->failed || !n || !size || ctx->opt.pinned_max < size)
		return p->pinned;
	ret = cs_pinned_pool_create(&p->pinned, &ctx->cuda, cu, size, n, err, sizeof(err));
	if (ret) {
		p->failed = true; /* the copies pin their own buffers, as without a pool */
		cs_warn("%s; each copy pins its own buffers", err);
		return NULL;
	}
	cs_debug("pinned pool: %u buffers of %u bytes pinned in %.3f s", n, size,
		 cs_pinned_pool_seconds(p->pinned));
	return p->pinned;
}

/* the helper's one pool, made by its first caller: the copies of a batch (batch.h) ask at once */
static struct cs_pinned_pool *pool_get_or_make(struct cs_ctx *ctx, CUcontext cu, unsigned n, uint32_t size)
{
	struct cs_pinned_pool *pool;

	pthread_mutex_lock(&ctx->pool.mu);
	pool = pool_make(ctx, cu, n, size);
	pthread_mutex_unlock(&ctx->pool.mu);
	return pool;
}

struct cs_pinned_pool *cs_pool_get_for_gpus(struct cs_ctx *ctx, CUcontext cu, const struct cs_gpu_copy *g,
					    unsigned n, int dirfd)
{
	uint32_t chunk = 0;
	unsigned nbufs = 0, i;

	for (i = 0; i < n; i++)
		if (g[i].chunk > chunk)
			chunk = g[i].chunk;
	for (i = 0; chunk && i < n; i++)
		nbufs += bufs_for(ctx, g[i].size, chunk, dirfd);
	return pool_get_or_make(ctx, cu, nbufs, chunk);
}

struct cs_pinned_pool *cs_pool_get_for_regions(struct cs_ctx *ctx, const struct cs_engine_region *regs,
					       unsigned n)
{
	struct cs_gpu_copy g[CS_MAX_DEVICES];
	unsigned i;

	if (!n || n > CS_MAX_DEVICES)
		return NULL;
	/* the images' chunk size on restore, this host's option on dump (not chosen yet: 0) */
	for (i = 0; i < n; i++)
		g[i] = (struct cs_gpu_copy){ regs[i].size,
					     regs[i].chunk_size ? regs[i].chunk_size : ctx->opt.chunk_size };
	return cs_pool_get_for_gpus(ctx, regs[0].ctx, g, n, regs[0].dirfd);
}

struct cs_pinned_pool *cs_pool_make_from_plan(struct cs_ctx *ctx, unsigned ndev, uint64_t bytes, int dirfd)
{
	CUcontext cu = NULL;

	for (int i = 0; i < ctx->gpus.ndev && !cu; i++)
		cu = ctx->gpus.retained[i];
	if (!cu || !bytes || !ndev || !ctx->opt.chunk_size)
		return cs_pool_pinned(&ctx->pool);
	/* the bytes spread over the GPUs: each GPU's share as its plan has it */
	return pool_get_or_make(ctx, cu,
				ndev * bufs_for(ctx, (bytes + ndev - 1) / ndev, ctx->opt.chunk_size, dirfd),
				ctx->opt.chunk_size);
}

void cs_pool_release(struct cs_ctx *ctx)
{
	cs_pinned_pool_destroy(ctx->pool.pinned);
	ctx->pool.pinned = NULL;
}

void cs_pool_after_restore(struct cs_ctx *ctx)
{
	if (!ctx->pool.pinned)
		return;
	if (cs_imgset_left(&ctx->restore.set, ctx->restore.restored))
		return; /* the index lists processes still to come: keep it for them */
	cs_pool_release(ctx);
	cs_debug("pinned pool released: no process of these images is left to restore");
}
