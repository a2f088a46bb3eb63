/* SPDX-License-Identifier: MIT */
/*
 * warmup.h - restore: the GPU phase's set-up, done ahead while CRIU still restores memory and
 * files.
 *
 * At POST_FORKING (CRIU >= 4.2) the helper starts one background thread that calls cuInit, and,
 * when the restore's image set (imgset.h, loaded before the thread starts) lists CustomStorage
 * manifests and the driver has CustomStorage, retains the
 * primary context of each GPU any of them is restored onto and makes the helper's pinned pool
 * (pool.h) for restoring the whole tree at once: per destination GPU, what its processes
 * hold, at most pinned_mb. All of it would otherwise open the GPU phase at RESUME_DEVICES_LATE. A warm-up
 * that fails or finds nothing to do changes nothing: the restore does each step itself, and
 * says what went wrong then. cs_warmup_wait() joins the thread before anything else uses ctx.
 */
#ifndef CUDASTORE_WARMUP_H
#define CUDASTORE_WARMUP_H

#include "context.h"

/*
 * Start the warm-up (ctx->restore.warmup) over the images in dirfd (taken: closed by the
 * warm-up), whose set ctx->restore.set is loaded. 0 or -errno.
 */
int cs_warmup_begin(struct cs_ctx *ctx, int dirfd);
/* Wait for a started warm-up to end; a no-op otherwise. */
void cs_warmup_wait(struct cs_warmup *w);

#endif /* CUDASTORE_WARMUP_H */
