/* SPDX-License-Identifier: MIT */
/*
 * warmup.h - restore: the GPU phase's set-up, done ahead while CRIU still restores memory and
 * files, and the helper's pinned pool.
 *
 * At POST_FORKING (CRIU >= 4.2) the helper starts one background thread that calls cuInit, and,
 * when the restore's image set (imgset.h, loaded before the thread starts) lists CustomStorage
 * manifests and the driver has CustomStorage, retains the
 * primary context of each GPU any of them is restored onto and pins the copy engine's buffers
 * (the pool) for restoring the whole tree at once: per destination GPU, what its processes
 * hold, at most pinned_mb. All of it would otherwise open the GPU phase at RESUME_DEVICES_LATE. A warm-up
 * that fails or finds nothing to do changes nothing: the restore does each step itself, and
 * says what went wrong then. cs_warmup_wait() joins the thread before anything else uses ctx.
 *
 * The pool (engine.h, cs_pinned_pool): buffers of the copy's chunk size (the images' on restore,
 * the chunk_mb option on dump) for every GPU of the tree (restore) or of the first process
 * (dump), at most pinned_mb per GPU, made once per helper (ahead: at POST_FORKING on restore, in PAUSE before the
 * lock on dump; or by the first copy that wants it) and lent to every copy of every process.
 */
#ifndef CUDASTORE_WARMUP_H
#define CUDASTORE_WARMUP_H

#include "context.h"
#include "engine.h"

/*
 * Start the warm-up (ctx->restore.warmup) over the images in dirfd (taken: closed by the
 * warm-up), whose set ctx->restore.set is loaded. 0 or -errno.
 */
int cs_warmup_begin(struct cs_ctx *ctx, int dirfd);
/* Wait for a started warm-up to end; a no-op otherwise. */
void cs_warmup_wait(struct cs_warmup *w);
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
struct cs_pinned_pool *cs_pool_make_from_plan(struct cs_ctx *ctx, unsigned ndev, uint64_t bytes);
/*
 * Restore, after each RESTORE: free the pool once every process the images' index lists has been
 * restored (after each RESTORE without an index). Without -d, criu and so the helper live as long
 * as the restored tree; the pool must not stay pinned that long.
 */
void cs_pool_after_restore(struct cs_ctx *ctx);
/* Free the pool (no copy may be running). */
void cs_pool_release(struct cs_ctx *ctx);

#endif /* CUDASTORE_WARMUP_H */
