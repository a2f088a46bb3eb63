/* SPDX-License-Identifier: MIT */
/*
 * dump.h - the dump side of the per-process state machine (docs/design.md, "Dump").
 *
 *   PAUSE_DEVICES       cs_dump_pause():      detect, plan, refuse early, lock
 *   CHECKPOINT_DEVICES  cs_dump_checkpoint(): checkpoint, copy out, manifest, complete
 *   exit(DUMP, ret)     cs_dump_finish():     on failure or --leave-running, put every
 *                                             process back to RUNNING with its GPU memory
 *                                             (rollback.h)
 * The first two return -ENOTSUP for a pid that is not a CUDA process (CRIU: "not mine").
 */
#ifndef CUDASTORE_DUMP_H
#define CUDASTORE_DUMP_H

#include "context.h"

/*
 * alarm_cap_ms: what criu's --timeout alarm leaves this PAUSE (0: no alarm), the lock's bound.
 * *inventory is set when criu must record the plugin in its inventory (the first CUDA process of
 * the dump); it is left alone otherwise.
 */
int cs_dump_pause(struct cs_ctx *ctx, pid_t pid, int dirfd, unsigned alarm_cap_ms, bool *inventory);
int cs_dump_checkpoint(struct cs_ctx *ctx, pid_t pid, int dirfd);

/* The manifests the dump kept for a rollback (a watched leave-running one may come after
 * FINISH, at BYE): freed when the helper ends. */
void cs_dump_release(struct cs_ctx *ctx);

#endif /* CUDASTORE_DUMP_H */
