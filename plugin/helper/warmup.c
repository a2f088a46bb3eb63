// SPDX-License-Identifier: MIT
/* warmup.c - restore set-up ahead of the GPU phase, and the pinned pool (see warmup.h) */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices.h"
#include "engine.h"
#include "imgdir.h"
#include "imgindex.h"
#include "imgset.h"
#include "log.h"
#include "manifest.h"
#include "phase_timer.h"
#include "warmup.h"

/*
 * Buffers of chunk bytes for one GPU of bytes: enough for all of it, at most pinned_mb (the
 * engine's bound per GPU; the GPUs of a process are copied at the same time, each within its
 * bound).
 */
static unsigned bufs_for(const struct cs_ctx *ctx, uint64_t bytes, uint32_t chunk)
{
	uint64_t want = bytes < ctx->opt.pinned_max ? bytes : ctx->opt.pinned_max;

	return (unsigned)((want + chunk - 1) / chunk);
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

	if (ctx->pool || ctx->pool_failed || !n || !size || ctx->opt.pinned_max < size)
		return ctx->pool;
	ret = cs_pinned_pool_create(&ctx->pool, &ctx->cuda, cu, size, n, err, sizeof(err));
	if (ret) {
		ctx->pool_failed = true; /* the copies pin their own buffers, as without a pool */
		cs_warn("%s; each copy pins its own buffers", err);
		return NULL;
	}
	cs_debug("pinned pool: %u buffers of %u bytes pinned in %.3f s", n, size,
		 cs_pinned_pool_seconds(ctx->pool));
	return ctx->pool;
}

/* the helper's one pool, made by its first caller: the copies of a batch (batch.h) ask at once */
static struct cs_pinned_pool *pool_get_or_make(struct cs_ctx *ctx, CUcontext cu, unsigned n, uint32_t size)
{
	struct cs_pinned_pool *pool;

	pthread_mutex_lock(&ctx->mu);
	pool = pool_make(ctx, cu, n, size);
	pthread_mutex_unlock(&ctx->mu);
	return pool;
}

/* one GPU to be copied: its bytes and the chunk size of the copy */
struct gpu_copy {
	uint64_t size;
	uint32_t chunk;
};

/* the pool for copying n GPUs at once: buffers of their largest chunk, enough for each GPU */
static struct cs_pinned_pool *pool_get_for_gpus(struct cs_ctx *ctx, CUcontext cu, const struct gpu_copy *g,
						unsigned n)
{
	uint32_t chunk = 0;
	unsigned nbufs = 0, i;

	for (i = 0; i < n; i++)
		if (g[i].chunk > chunk)
			chunk = g[i].chunk;
	for (i = 0; chunk && i < n; i++)
		nbufs += bufs_for(ctx, g[i].size, chunk);
	return pool_get_or_make(ctx, cu, nbufs, chunk);
}

struct cs_pinned_pool *cs_pool_get_for_regions(struct cs_ctx *ctx, const struct cs_engine_region *regs,
					       unsigned n)
{
	struct gpu_copy g[CS_MAX_DEVICES];
	unsigned i;

	if (!n || n > CS_MAX_DEVICES)
		return NULL;
	/* the images' chunk size on restore, this host's option on dump (not chosen yet: 0) */
	for (i = 0; i < n; i++)
		g[i] = (struct gpu_copy){ regs[i].size,
					  regs[i].chunk_size ? regs[i].chunk_size : ctx->opt.chunk_size };
	return pool_get_for_gpus(ctx, regs[0].ctx, g, n);
}

struct cs_pinned_pool *cs_pool_make_from_plan(struct cs_ctx *ctx, unsigned ndev, uint64_t bytes)
{
	uint64_t cap = (uint64_t)ndev * ctx->opt.pinned_max, want = bytes < cap ? bytes : cap;
	CUcontext cu = NULL;

	for (int i = 0; i < ctx->ndev && !cu; i++)
		cu = ctx->retained[i];
	if (!cu || !want || !ctx->opt.chunk_size)
		return ctx->pool;
	return pool_get_or_make(ctx, cu, (unsigned)((want + ctx->opt.chunk_size - 1) / ctx->opt.chunk_size),
				ctx->opt.chunk_size);
}

void cs_pool_release(struct cs_ctx *ctx)
{
	cs_pinned_pool_destroy(ctx->pool);
	ctx->pool = NULL;
}

void cs_pool_after_restore(struct cs_ctx *ctx)
{
	if (!ctx->pool)
		return;
	if (cs_imgset_left(&ctx->restore.set, ctx->restore.restored))
		return; /* the index lists processes still to come: keep it for them */
	cs_pool_release(ctx);
	cs_debug("pinned pool released: no process of these images is left to restore");
}

/* retain the GPUs manifest m is restored onto, into dest[]; 0 or -ENODEV */
static int retain_destinations(struct cs_ctx *ctx, const struct cs_manifest *m, CUuuid *dest)
{
	CUuuid visible[CS_MAX_DEVICES];
	char err[512];
	int i, ord;

	for (i = 0; i < ctx->ndev; i++)
		if (cs_dev_uuid(ctx, i, &visible[i]))
			return -ENODEV;
	if (cs_dev_plan_restore(m, ctx->opt.device_map, ctx->opt.ndevice_map, visible, ctx->ndev, dest, err,
				sizeof(err)))
		return -ENODEV; /* the restore says why */
	for (i = 0; i < (int)m->ndev; i++) {
		ord = cs_dev_by_uuid(ctx, &dest[i]);
		if (ord < 0 || cs_dev_retain(ctx, ord))
			return -ENODEV;
	}
	return 0;
}

/* what the tree's copies will move onto each destination GPU (by ordinal) */
struct tree_plan {
	struct gpu_copy gpu[CS_MAX_DEVICES];
	unsigned processes;
};

static void plan_manifest(struct cs_ctx *ctx, const struct cs_manifest *m, struct tree_plan *t)
{
	CUuuid dest[CS_MAX_DEVICES];
	unsigned i;
	int ord;

	if (m->mode != CS_MODE_CUSTOM || retain_destinations(ctx, m, dest))
		return;
	t->processes++;
	for (i = 0; i < m->ndev; i++) {
		ord = cs_dev_by_uuid(ctx, &dest[i]);
		t->gpu[ord].size += m->dev[i].size;
		if (m->dev[i].chunk_size > t->gpu[ord].chunk)
			t->gpu[ord].chunk = m->dev[i].chunk_size;
	}
}

/*
 * Every CustomStorage manifest the restore's index lists (none for format 1.0 images): their
 * destination GPUs retained, and the pool for restoring them at once (the processes on one GPU
 * share its pinned bound, batch.h).
 */
static void warm_tree(struct cs_ctx *ctx, int dirfd)
{
	const struct cs_imgset *set = &ctx->restore.set;
	struct cs_manifest *m = calloc(1, sizeof(*m));
	struct tree_plan t = { 0 };
	CUcontext cu = NULL;
	unsigned i, n = 0;
	char err[512];

	if (!m || !cs_imgset_indexed(set) || !set->ix.x.n)
		goto out;
	for (i = 0; i < set->ix.x.n; i++) {
		if (cs_imgset_read(set, dirfd, set->ix.x.ns_pid[i], m, err, sizeof(err)))
			continue; /* the restore says why */
		plan_manifest(ctx, m, &t);
		cs_manifest_free(m);
	}
	for (i = 0; i < CS_MAX_DEVICES; i++) {
		if (!t.gpu[i].size)
			continue;
		if (!cu)
			cu = ctx->retained[i];
		t.gpu[n++] = t.gpu[i];
	}
	if (cu)
		pool_get_for_gpus(ctx, cu, t.gpu, n);
	cs_debug("warm-up: %u CustomStorage process(es) on %u GPU(s)", t.processes, n);
out:
	free(m);
}

static void *warmup_main(void *arg)
{
	struct cs_ctx *ctx = arg;
	struct cs_warmup *w = &ctx->restore.warmup;
	double t0 = cs_now();
	unsigned contexts = 0;
	CUresult res;

	/* probe first: a failure here is the restore's to report (cs_dev_init logs it as an error) */
	res = ctx->cuda.Init(0);
	if (res != CUDA_SUCCESS) {
		cs_debug("warm-up: cuInit failed (%s); the restore will try again",
			 cs_cuda_errname(&ctx->cuda, res));
		goto out;
	}
	if (cs_dev_init(ctx))
		goto out;
	if (ctx->cuda.has_custom_storage)
		warm_tree(ctx, w->dirfd);
	for (int i = 0; i < ctx->ndev; i++)
		contexts += ctx->retained[i] != NULL;
	cs_info("warm-up while CRIU restores: cuInit%s%s in %.3f s", contexts ? ", GPU contexts" : "",
		ctx->pool ? ", pinned pool" : "", cs_now() - t0);
out:
	close(w->dirfd);
	w->dirfd = -1;
	w->done = cs_now();
	return NULL;
}

int cs_warmup_begin(struct cs_ctx *ctx, int dirfd)
{
	struct cs_warmup *w = &ctx->restore.warmup;
	sigset_t all, old;
	int ret;

	if (dirfd < 0)
		return -EBADF;
	if (w->running || ctx->cuda_inited) {
		close(dirfd);
		return -EALREADY;
	}
	w->dirfd = dirfd;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* no signal handler runs on its thread */
	ret = pthread_create(&w->tid, NULL, warmup_main, ctx);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		cs_debug("warm-up: cannot start a thread: %s", strerror(ret));
		close(dirfd);
		w->dirfd = -1;
		return -ret;
	}
	w->running = true;
	return 0;
}

void cs_warmup_wait(struct cs_warmup *w)
{
	double t0 = cs_now();

	if (!w->running)
		return;
	pthread_join(w->tid, NULL);
	w->running = false;
	if (w->done > t0)
		cs_info("warm-up: the GPU phase waited %.3f s for it", w->done - t0);
	else
		cs_info("warm-up: done %.3f s before the GPU phase began", t0 - w->done);
}
