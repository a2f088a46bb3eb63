/* SPDX-License-Identifier: MIT */
/*
 * watch.h - leave-running decided by watching what criu does to the dumped processes.
 *
 * When criu's options do not say whether criu leaves the tree running (a CRIU whose option layout
 * is unknown, or criu_options=no), the plugin's FINISH says CS_FINISH_WATCH (wire.h): after a
 * successful dump the processes stay CHECKPOINTED (their CUDA calls block in the driver) and, at
 * BYE, the helper closes its end so criu goes on, then watches each process:
 *
 *   gone (criu killed the tree, the default)       nothing to do
 *   stopped and no longer traced (criu -s)         nothing: it stays checkpointed, as criu leaves it
 *   running and no longer traced (leave-running)   its GPU state is resumed, as after -R
 *   still traced after CS_WATCH_MAX_MS             left checkpointed, with an error saying so
 *
 * A criu that dies meanwhile has its tracees detached by the kernel: they run, and are resumed.
 * Log lines go to stderr, and, when a process is resumed, to cudastore-guardian.log in the
 * images directory (criu's log is closed by then).
 */
#ifndef CUDASTORE_WATCH_H
#define CUDASTORE_WATCH_H

#include "context.h"

#define CS_WATCH_MAX_MS 60000

/* At BYE after FINISH(CS_FINISH_WATCH) of a successful dump: closes sock, watches, resumes. */
void cs_watch_leave_running(struct cs_ctx *ctx, int sock, int dirfd, const char *log_name);

#endif /* CUDASTORE_WATCH_H */
