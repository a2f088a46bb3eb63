/* SPDX-License-Identifier: MIT */
/*
 * rollback.h - exit(DUMP): every process the dump touched back to its state as found.
 *
 * criu's exit hook of a dump that failed, or that succeeded with --leave-running (and the
 * guardian, and the watch of a leave-running dump at BYE: watch.h), calls cs_dump_finish().
 * The processes it touches are those cs_dump_needs_resume() names: locked by us, checkpointed,
 * or whose lock of a running process failed and may have half taken. They run at once, as a
 * batch (batch.h), each from the state the driver reports:
 *   CHECKPOINTED   its GPU memory put back (driver-managed: from the driver's copy; CustomStorage:
 *                  from the extents through the manifest the dump kept in memory, or from the
 *                  host copy kept when the extents could not be written), leaving it LOCKED;
 *                  a restore that fails and leaves it CHECKPOINTED is tried again (3 times);
 *   LOCKED         unlocked if PAUSE found it RUNNING (tried 3 times), else left LOCKED;
 *   RUNNING        nothing to do;
 *   anything else  (CHECKPOINTING, a state that cannot be read) it cannot be resumed.
 * A process that cannot be resumed would hang in its next CUDA call: it is ended with its
 * descendants and the reason (dump.why). A failed dump's files, and its index, are removed.
 */
#ifndef CUDASTORE_ROLLBACK_H
#define CUDASTORE_ROLLBACK_H

#include <stdbool.h>

#include "context.h"

/* ret: the dump's result; leave_running: criu's decision (hooks.c); the guardian passes true */
void cs_dump_finish(struct cs_ctx *ctx, int ret, bool leave_running, int dirfd);
/* p holds GPU state of ours that a rollback or leave-running would resume */
bool cs_dump_needs_resume(const struct cs_proc *p);

#endif /* CUDASTORE_ROLLBACK_H */
