/* SPDX-License-Identifier: MIT */
/*
 * recover.h - a fresh cudastore-helper takes over a dump whose helper died.
 *
 * When criu's link to its helper breaks during a dump (the helper was killed, or a request ran
 * past op_timeout_s and criu stopped it), the processes that helper touched may be LOCKED,
 * CHECKPOINTED or half way through a CustomStorage operation, and nobody would ever resume them.
 * criu starts a new helper and sends one RECOVER request per process it had paused, then one
 * with pid 0 (helper_link.c, hooks.c). Each process is brought back to RUNNING with its GPU
 * memory where that can be done:
 *   RUNNING                      nothing to do;
 *   LOCKED                       unlocked (one the unlock leaves locked is killed, with the
 *                                reason: it would hang in its next CUDA call);
 *   CHECKPOINTED, driver-managed restored from the driver's host copy, then unlocked;
 *   CHECKPOINTED, CustomStorage  restored from the extents the dead helper wrote, through a
 *                                manifest it completed (fully validated, every chunk checked),
 *                                then unlocked;
 *   anything else                (CHECKPOINTING, RESTORING: the dead helper held the driver's
 *                                operation and its mapping of the GPU memory) the GPU memory
 *                                cannot be got back: the process is killed, with the reason,
 *                                instead of being left to hang in its next CUDA call.
 * With CS_RECOVER_GATHER, criu names every process first and the pid-0 request recovers them
 * all at once, as a batch (batch.h: the driver restores different processes concurrently), each
 * with its own fate; criu falls back to one process per request when that request gets no answer.
 * A dump that had succeeded without --leave-running needs none of this (criu kills the tree);
 * with CS_RECOVER_KEEP (it had succeeded) the images stay, otherwise the pid-0 request removes
 * every cudastore file of the failed dump.
 */
#ifndef CUDASTORE_RECOVER_H
#define CUDASTORE_RECOVER_H

#include "context.h"
#include "wire.h" /* CS_RECOVER_KEEP */

/* One process (pid > 0) or the end of the recovery (pid 0). 0 or -errno (the process's fate is
 * logged: back to running, or killed and why). */
int cs_recover(struct cs_ctx *ctx, pid_t pid, unsigned flags, int dirfd);

#endif /* CUDASTORE_RECOVER_H */
