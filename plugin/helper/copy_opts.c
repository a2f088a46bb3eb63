// SPDX-License-Identifier: MIT
/* copy_opts.c - the copy engine's options for a copy made by this helper (see copy_opts.h) */
#include <pthread.h>

#include "copy_opts.h"
#include "pool.h"
#include "prefetch.h"
#include "progress.h"
#include "test_hooks.h"
#include "log.h"

_Static_assert(CS_ENGINE_NOTE_WARN == CS_LOG_WARN && CS_ENGINE_NOTE_INFO == CS_LOG_INFO &&
		   CS_ENGINE_NOTE_DEBUG == CS_LOG_DEBUG,
	       "the engine's notes are logged at their own level");

static void progress(void *arg, unsigned region, uint64_t done, uint64_t total)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pid_t pid = (pid_t)(long)arg;

	pthread_mutex_lock(&lock);
	cs_info("pid %d: GPU region %u: %.0f%% (%.1f / %.1f MiB)", pid, region,
		total ? 100.0 * done / total : 100.0, done / 1048576.0, total / 1048576.0);
	pthread_mutex_unlock(&lock);
	cs_progress_note(pid);
	cs_test_stall("copy-out");
}

void cs_copy_engine_opts(struct cs_ctx *ctx, const struct cs_proc *p, struct cs_engine_opts *eo)
{
	cs_engine_opts_default(eo);
	eo->chunk_size = ctx->opt.chunk_size;
	eo->threads = ctx->opt.threads;
	eo->pinned_max = ctx->opt.pinned_max;
	eo->direct_io = ctx->opt.direct_io;
	eo->map_tmpfs = ctx->opt.tmpfs_map;
	eo->tmpfs_readback = ctx->opt.tmpfs_readback;
	eo->tmpfs_restore_map = ctx->opt.tmpfs_restore_map;
	eo->stripes = ctx->opt.stripes;
	eo->skip_zero = ctx->opt.skip_zero;
	/* space_check = no: the user says the images fit although the GPU memory does not; only the
	 * non-zero chunks will take space, so nothing is reserved at full size either */
	eo->no_reserve = !ctx->opt.space_check;
	eo->progress = progress;
	eo->note = cs_log_text;	    /* into this helper's log, as criu relays it */
	eo->sharers = p ? p->batch.sharers : 0; /* copies of other processes running at once (batch.h) */
	eo->part = p && p->batch.sharers > 1 ? p->batch.copy_part : 0; /* by size, when the batch set it */
}

void cs_copy_map(const struct cs_ctx *ctx, const struct cs_gpu_view *v, unsigned i,
		 struct cs_engine_region *r)
{
	r->ptr = v->r[i].ptr;
	r->size = v->r[i].size;
	r->ctx = ctx->gpus.retained[v->r[i].ordinal];
}

int cs_copy_run(struct cs_ctx *ctx, pid_t pid, enum cs_copy_dir dir, struct cs_engine_region *regs,
		unsigned n, char *err, size_t len)
{
	struct cs_engine_opts eo;

	cs_copy_engine_opts(ctx, cs_ctx_find(ctx, pid), &eo);
	eo.progress_arg = (void *)(long)pid;
	if (dir == CS_COPY_IN)
		eo.prefetch =
		    cs_prefetch_take(&ctx->restore.prefetch); /* read and verified at POST_FORKING, or NULL */
	eo.pool = cs_pool_get_for_regions(ctx, regs, n); /* pinned ahead (warmup.h) or now, and kept */
	return dir == CS_COPY_OUT ? cs_engine_dump(&ctx->cuda, regs, n, &eo, err, len)
				  : cs_engine_restore(&ctx->cuda, regs, n, &eo, err, len);
}
