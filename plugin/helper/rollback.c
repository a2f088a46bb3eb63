// SPDX-License-Identifier: MIT
/* rollback.c - exit(DUMP): the processes a dump touched back to their state as found (rollback.h) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "criu_door.h"
#include "devices.h"
#include "driver_state.h"
#include "dump_chunks.h"
#include "dump_plan.h"
#include "imgdir.h"
#include "imgset.h"
#include "log.h"
#include "procfs.h"
#include "restore.h"
#include "rollback.h"

/* the host copy kept when the extents could not be written, described as a manifest */
static int rescue_manifest(struct cs_ctx *ctx, const struct cs_rescue *rs, struct cs_manifest *m)
{
	m->ndev = rs->n;
	for (unsigned i = 0; i < m->ndev; i++) {
		m->dev[i].uuid = rs->r[i].uuid;
		m->dev[i].size = rs->r[i].size;
		m->dev[i].ordinal = cs_dev_by_uuid(&ctx->gpus, &m->dev[i].uuid);
	}
	return 0;
}

/*
 * Back onto the GPU from what this dump wrote. The manifest is the one the dump built and kept
 * in memory (p->m), never re-read from the images directory: whoever can write that directory
 * meanwhile must not be able to put other bytes into a live process (every chunk read back is
 * checked against the hashes the dump itself computed).
 */
static int restore_checkpointed(struct cs_ctx *ctx, struct cs_proc *p, int dirfd)
{
	CUcheckpointOperationHandle pending = NULL;
	struct cs_manifest *rm = NULL;
	const struct cs_manifest *m = p->m;
	struct cs_phase_timer st = { 0 };
	int ret = 0;

	if (p->mode == CS_MODE_DRIVER)
		return cs_restore_driver(ctx, p->pid, NULL);
	if (p->dump.rescue) { /* the manifest was not written: describe the host copy instead */
		rm = calloc(1, sizeof(*rm));
		if (!rm)
			return -ENOMEM;
		ret = rescue_manifest(ctx, p->dump.rescue, rm);
		m = rm;
	} else if (!m) {
		cs_err("pid %d: rollback has no record of what the dump wrote; its GPU memory stays in the "
		       "driver",
		       p->pid);
		return -ENOENT;
	}
	if (!ret)
		ret = cs_restore_custom(ctx, p->pid, m, dirfd, p->dump.rescue, false, &st, &pending);
	if (pending) {
		/* its GPU memory is half written: it must never run like that (restore.h) */
		cs_err("pid %d: rollback could not put its GPU memory back; killing it so it cannot run "
		       "with wrong GPU memory%s",
		       p->pid, p->dump.rescue ? "" : " (its data stays in the extents)");
		kill(p->pid, SIGKILL);
		ctx->cuda.CheckpointOperationComplete(pending);
	}
	free(rm);
	return ret;
}

#define ROLLBACK_TRIES 3 /* a failed restore or unlock of the rollback is tried this often */

/* CHECKPOINTED: back onto its GPUs, LOCKED; a failure that leaves it CHECKPOINTED is tried again */
static int rollback_restore(struct cs_ctx *ctx, struct cs_proc *p, int dirfd)
{
	CUprocessState st;
	int ret = -EPROTO;

	for (unsigned t = 0; t < ROLLBACK_TRIES && ret; t++) {
		if (t && (ctx->cuda.CheckpointProcessGetState(p->pid, &st) != CUDA_SUCCESS ||
			  st != CU_PROCESS_STATE_CHECKPOINTED))
			break; /* not as before the attempt: the next one would not find what it expects */
		if (t)
			cs_warn("pid %d: putting its GPU memory back failed; trying again (%u of %u)", p->pid,
				t + 1, ROLLBACK_TRIES);
		ret = restore_checkpointed(ctx, p, dirfd);
	}
	return ret;
}

/* LOCKED by us: running again; an unlock that does not take is tried again */
static int rollback_unlock(struct cs_ctx *ctx, struct cs_proc *p)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	CUcheckpointUnlockArgs ua;
	CUprocessState st;

	for (unsigned t = 0; t < ROLLBACK_TRIES; t++) {
		memset(&ua, 0, sizeof(ua));
		ctx->cuda.CheckpointProcessUnlock(p->pid, &ua);
		if (ctx->cuda.CheckpointProcessGetState(p->pid, &st) == CUDA_SUCCESS &&
		    st == CU_PROCESS_STATE_RUNNING)
			return 0;
		nanosleep(&pause, NULL);
	}
	return cs_driver_expect_state(ctx, p->pid, CU_PROCESS_STATE_RUNNING, "unlock");
}

/*
 * On a batch worker, the restore thread running: one process back to its state as found. On
 * failure p->dump.why says what was lost for the caller's message (the process is then ended).
 */
static int rollback_one(struct cs_ctx *ctx, struct cs_proc *p, void *arg)
{
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	int dirfd = *(const int *)arg, ret = 0;

	if (ctx->cuda.CheckpointProcessGetState(p->pid, &st) != CUDA_SUCCESS) {
		p->dump.why = "its CUDA state cannot be read";
		return -EPROTO;
	}
	if (st == CU_PROCESS_STATE_CHECKPOINTING) {
		/* Complete failed or was never called; its handle is not used again (design.md) */
		p->dump.why =
		    p->dump.extents_complete || p->dump.rescue
			? "it is stuck in CHECKPOINTING: cuCheckpointOperationComplete failed, and the "
			  "driver has no other way out"
			: "it is stuck in CHECKPOINTING: its GPU memory could be neither saved nor kept";
		return -EPROTO;
	}
	if (st == CU_PROCESS_STATE_CHECKPOINTED) {
		ret = rollback_restore(ctx, p, dirfd);
		if (ret) {
			p->dump.why = "its GPU memory could not be put back";
			return ret;
		}
		st = CU_PROCESS_STATE_LOCKED;
	}
	if (st == CU_PROCESS_STATE_LOCKED && p->dump.initial_state == CU_PROCESS_STATE_RUNNING) {
		ret = rollback_unlock(ctx, p);
		if (ret) {
			p->dump.why = "it stays locked: cuCheckpointProcessUnlock did not take";
			return ret;
		}
		st = CU_PROCESS_STATE_RUNNING;
	}
	if (st != CU_PROCESS_STATE_RUNNING &&
	    !(st == CU_PROCESS_STATE_LOCKED && p->dump.initial_state == CU_PROCESS_STATE_LOCKED)) {
		cs_err("pid %d: CUDA state %d after the rollback; it cannot be resumed as it was", p->pid,
		       st);
		p->dump.why = "its CUDA state is not one it can run in";
		return -EPROTO;
	}
	return 0;
}

/*
 * A process the rollback could not resume would hang in its next CUDA call: it is ended, with
 * its descendants (never left behind as orphans), and the reason. kept: its images of this dump
 * are complete (a --leave-running dump) and restore it.
 */
static void end_unresumable(struct cs_proc *p, bool kept)
{
	char more[96] = "";
	int n = cs_procfs_kill_tree(p->pid);

	if (n > 1)
		snprintf(more, sizeof(more), " and its %d descendant(s)", n - 1);
	cs_err("pid %d: cannot be resumed after the dump (%s); ending it%s so that it does not hang in "
	       "its next CUDA call. %s",
	       p->pid, p->dump.why ? p->dump.why : "see above", more,
	       kept ? "The images of this dump are complete: criu restore brings it back"
		    : "Restore it from an earlier checkpoint, or start it again");
	p->dump.left = true;
}

/* Which processes the rollback touches (docs/design.md, "exit(DUMP, ret): rollback") */
bool cs_dump_needs_resume(const struct cs_proc *p)
{
	if (p->dump.phase == CS_PHASE_RESUMED || p->dump.left)
		return false;
	if (p->dump.checkpoint_called)
		return true;
	/* we locked it, or a lock of a running process failed and may have half taken */
	return p->dump.phase == CS_PHASE_LOCKED ||
	       (p->dump.phase == CS_PHASE_FAILED && p->dump.initial_state == CU_PROCESS_STATE_RUNNING);
}

void cs_dump_finish(struct cs_ctx *ctx, int ret, bool leave_running, int dirfd)
{
	struct cs_proc *procs[CS_MAX_PROCS];
	struct cs_batch b = { .what = "rollback", .procs = procs, .fn = rollback_one, .arg = &dirfd };
	bool resume = ret != 0 || leave_running;
	unsigned i;

	for (i = 0; resume && i < ctx->nproc; i++)
		if (cs_dump_needs_resume(&ctx->proc[i])) {
			ctx->proc[i].batch.copy_bytes =
			    0; /* what each copies back is not known: an even split */
			procs[b.n++] = &ctx->proc[i];
		}
	cs_batch_run(ctx, &b); /* every process at once, as the checkpoint ran */
	for (i = 0; i < b.n; i++) {
		struct cs_proc *p = procs[i];

		if (p->batch.result)
			end_unresumable(p, !ret);
		else
			cs_info("pid %d: resumed with its GPU memory in %.3f s (%s)", p->pid,
				p->batch.t_end - p->batch.t_begin,
				ret		  ? (cs_criu_gone() ? "criu is gone" : "dump failed")
				: p->dump.watched ? "criu let it run"
				: cs_criu_gone()  ? "criu is gone"
						  : "--leave-running");
		if (!p->batch.result)
			p->dump.phase = CS_PHASE_RESUMED;
		/* a failed dump's images are useless once every process runs again or was ended */
		if (ret && dirfd >= 0)
			cs_imgset_dump_remove(dirfd, p->ns_pid, CS_MAX_DEVICES);
	}
	for (i = 0; i < ctx->nproc; i++) {
		cs_rescue_free(ctx->proc[i].dump.rescue);
		ctx->proc[i].dump.rescue = NULL;
	}
	/* and so is its index: no half image set */
	if (ret && dirfd >= 0 && ctx->nproc) {
		cs_imgdir_remove(dirfd, CS_NAME_INDEX);
		cs_dump_chunks_discard(ctx, dirfd);
	}
	cs_dump_chunks_close(ctx);
	cs_dump_plan_release(&ctx->dump.nvml);
}
