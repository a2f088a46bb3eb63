// SPDX-License-Identifier: MIT
/* recover.c - a fresh helper takes over a dump whose helper died (see recover.h) */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "imgdir.h"
#include "imgindex.h"
#include "imgset.h"
#include "log.h"
#include "procfs.h"
#include "progress.h"
#include "recover.h"
#include "restore.h"
#include "criu_door.h"
#include "test_hooks.h"

/* ended with its descendants, never left behind as orphans */
static void end_process(pid_t pid, const char *why)
{
	int n = cs_procfs_kill_tree(pid);

	cs_err("pid %d: %s; killing it%s so that it does not hang in its next CUDA call. Restore it "
	       "from an earlier checkpoint, or start it again",
	       pid, why, n > 1 ? " and its descendants" : "");
}

/*
 * The manifest the dead helper completed for pid, validated as a restore would (for a dump that
 * did not finish: imgset.h); 0 or -errno, -ENOENT (not logged) when none was written.
 */
static int dead_helpers_manifest(struct cs_ctx *ctx, pid_t pid, int dirfd, struct cs_manifest *m)
{
	char err[1024];
	int ret;

	ret = cs_imgset_recover_load(&ctx->dump.written, dirfd, cs_procfs_ns_pid(pid), m, err, sizeof(err));
	if (ret && ret != -ENOENT)
		cs_err("pid %d: the dump's images cannot give its GPU memory back: %s", pid, err);
	return ret;
}

/* CHECKPOINTED: back onto the GPUs it came from, leaving it LOCKED; 0 or -errno */
static int restore_checkpointed(struct cs_ctx *ctx, pid_t pid, int dirfd)
{
	CUcheckpointOperationHandle pending = NULL;
	struct cs_manifest *m = calloc(1, sizeof(*m));
	struct cs_phase_timer st = { 0 };
	int ret;

	if (!m)
		return -ENOMEM;
	ret = dead_helpers_manifest(ctx, pid, dirfd, m);
	if (!ret && m->mode == CS_MODE_DRIVER)
		ret = cs_restore_driver(ctx, pid, NULL);
	else if (!ret)
		ret = cs_restore_custom(ctx, pid, m, dirfd, NULL, false, &st, &pending);
	else if (ret == -ENOENT) { /* no manifest yet: a driver-managed checkpoint keeps its own copy */
		cs_info("pid %d: no manifest of it was written; restoring it from the driver's own copy",
			pid);
		ret = cs_restore_driver(ctx, pid, NULL);
	}
	if (pending) {
		end_process(pid, "its GPU memory could not be put back from the images");
		ctx->cuda.CheckpointOperationComplete(pending);
	}
	cs_manifest_free(m);
	free(m);
	return ret;
}

/* With its restore thread running: from the state the dead helper left to RUNNING. */
static int recover_state(struct cs_ctx *ctx, pid_t pid, int dirfd)
{
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	int ret = 0;

	if (ctx->cuda.CheckpointProcessGetState(pid, &st) != CUDA_SUCCESS) {
		end_process(pid, "its CUDA state cannot be read after cudastore-helper died");
		return -EPROTO;
	}
	if (st == CU_PROCESS_STATE_RUNNING)
		return 0;
	if (st == CU_PROCESS_STATE_CHECKPOINTED)
		ret = restore_checkpointed(ctx, pid, dirfd);
	else if (st != CU_PROCESS_STATE_LOCKED) {
		end_process(pid, "its GPU memory was held by the cudastore-helper that died in the middle "
				 "of a checkpoint or restore (CUDA state CHECKPOINTING or RESTORING), and "
				 "cannot be got back");
		return -EPROTO;
	}
	if (ret) {
		end_process(pid, "its GPU memory could not be put back after cudastore-helper died");
		return ret;
	}
	ret = cs_restore_unlock(ctx, pid);
	if (ret) /* as the rollback and the restore do: a locked process hangs in its next CUDA call */
		end_process(pid, "it stays locked: cuCheckpointProcessUnlock did not take after "
				 "cudastore-helper died");
	return ret;
}

/* recover_state, and said when it worked */
static int back_to_running(struct cs_ctx *ctx, pid_t pid, int dirfd)
{
	int ret = recover_state(ctx, pid, dirfd);

	if (!ret)
		cs_info("pid %d: running again with its GPU memory after cudastore-helper died", pid);
	return ret;
}

static int recover_process(struct cs_ctx *ctx, pid_t pid, int dirfd)
{
	struct cs_criu_rt rt = { 0 };
	int tid, ret;

	if (ctx->cuda.CheckpointProcessGetRestoreThreadId(pid, &tid) != CUDA_SUCCESS)
		return 0; /* gone, or no CUDA process: nothing of ours to undo */
	ret = cs_criu_rt_run(&rt, tid);
	if (ret) {
		end_process(pid, "its CUDA restore thread cannot be let run");
		return ret;
	}
	cs_progress_watch(pid, tid);
	cs_test_stall("recover");
	ret = back_to_running(ctx, pid, dirfd);
	cs_progress_unwatch(pid);
	cs_criu_rt_stop(&rt);
	return ret;
}

/*
 * The batch's fn (recover_gathered): the batch lets its restore thread run. criu hears where
 * each process stands, so that if this helper is stopped too it knows which processes are settled
 * and which were still under way (hooks.c).
 */
static int recover_one(struct cs_ctx *ctx, struct cs_proc *p, void *arg)
{
	int dirfd = *(int *)arg, ret;

	cs_criu_recovered(p->pid, -EINPROGRESS);
	ret = back_to_running(ctx, p->pid, dirfd);
	cs_criu_recovered(p->pid, ret ? ret : 0);
	return ret;
}

/* CS_RECOVER_GATHER, pid > 0: note the process for the batch; 0 or -errno */
static int gather(struct cs_ctx *ctx, pid_t pid)
{
	struct cs_proc *p;
	int tid;

	if (cs_ctx_find(ctx, pid))
		return 0;
	if (ctx->cuda.CheckpointProcessGetRestoreThreadId(pid, &tid) != CUDA_SUCCESS)
		return 0; /* gone, or no CUDA process: nothing of ours to undo */
	p = cs_ctx_add(ctx, pid);
	if (!p)
		return -E2BIG;
	p->restore_tid = tid;
	return 0;
}

/* every noted process at once; each one's fate is logged (back to running, or killed and why) */
static void recover_gathered(struct cs_ctx *ctx, int dirfd)
{
	struct cs_proc *procs[CS_MAX_PROCS];
	struct cs_batch b = { .what = "recovery", .procs = procs, .fn = recover_one, .arg = &dirfd };
	unsigned i;

	for (i = 0; i < ctx->nproc; i++)
		procs[b.n++] = &ctx->proc[i];
	cs_imgset_load(&ctx->dump.written, dirfd); /* here, before the workers read it */
	cs_batch_run(ctx, &b);
	for (i = 0; i < b.n; i++) {
		if (procs[i]->batch.result &&
		    !procs[i]->batch.t_begin) /* never ran: its restore thread is held */
			end_process(procs[i]->pid, "its CUDA restore thread cannot be let run");
		procs[i]->dump.left = true; /* its fate is decided: no later step of this helper touches it */
	}
}

int cs_recover(struct cs_ctx *ctx, pid_t pid, unsigned flags, int dirfd)
{
	unsigned removed = 0;

	if (pid > 0 && (flags & CS_RECOVER_GATHER))
		return gather(ctx, pid);
	if (pid > 0)
		return recover_process(ctx, pid, dirfd);
	if (flags & CS_RECOVER_GATHER)
		recover_gathered(ctx, dirfd);
	if ((flags & CS_RECOVER_KEEP) || dirfd < 0)
		return 0;
	/* the failed dump's files: every one of ours, the index included */
	cs_imgdir_remove_ours(dirfd, &removed);
	cs_imgdir_remove(dirfd, CS_NAME_INDEX);
	if (removed)
		cs_info("removed %u cudastore file(s) of the failed dump", removed);
	return 0;
}
