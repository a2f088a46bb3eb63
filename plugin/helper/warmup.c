// SPDX-License-Identifier: MIT
/* warmup.c - restore set-up ahead of the GPU phase (see warmup.h) */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices.h"
#include "imgdir.h"
#include "imgindex.h"
#include "imgset.h"
#include "log.h"
#include "manifest.h"
#include "phase_timer.h"
#include "pool.h"
#include "restore_place.h"
#include "warmup.h"

/* retain the GPUs manifest m is restored onto, into dest[]; 0 or -ENODEV */
static int retain_destinations(struct cs_ctx *ctx, const struct cs_manifest *m, CUuuid *dest)
{
	int i, ord;

	for (i = 0; i < (int)m->ndev; i++) {
		if (cs_place_dest(ctx, &m->dev[i].uuid, &dest[i]))
			return -ENODEV; /* not placed: the restore says why */
		ord = cs_dev_by_uuid(&ctx->gpus, &dest[i]);
		if (ord < 0 || cs_dev_retain(&ctx->gpus, ord))
			return -ENODEV;
	}
	return 0;
}

/* what the tree's copies will move onto each destination GPU (by ordinal) */
struct tree_plan {
	struct cs_gpu_copy gpu[CS_MAX_DEVICES];
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
		ord = cs_dev_by_uuid(&ctx->gpus, &dest[i]);
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
	if (cs_place_restore(ctx, dirfd, NULL, 0))
		goto out; /* said; the first RESTORE fails the tree before any process is touched */
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
			cu = ctx->gpus.retained[i];
		t.gpu[n++] = t.gpu[i];
	}
	if (cu)
		cs_pool_get_for_gpus(ctx, cu, t.gpu, n, dirfd);
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
	if (cs_dev_init(&ctx->gpus))
		goto out;
	if (ctx->cuda.has_custom_storage)
		warm_tree(ctx, w->dirfd);
	for (int i = 0; i < ctx->gpus.ndev; i++)
		contexts += ctx->gpus.retained[i] != NULL;
	cs_info("warm-up while CRIU restores: cuInit%s%s in %.3f s", contexts ? ", GPU contexts" : "",
		cs_pool_pinned(&ctx->pool) ? ", pinned pool" : "", cs_now() - t0);
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
	if (w->running || ctx->gpus.inited) {
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
