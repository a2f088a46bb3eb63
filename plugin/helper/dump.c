// SPDX-License-Identifier: MIT
/* dump.c - lock and checkpoint CUDA processes (see dump.h; the rollback: rollback.c) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "copy_opts.h"
#include "custom_view.h"
#include "devices.h"
#include "driver_state.h"
#include "dump.h"
#include "dump_chunks.h"
#include "dump_facts.h"
#include "dump_plan.h"
#include "dump_prehash.h"
#include "imgdir.h"
#include "imgset.h"
#include "log.h"
#include "pool.h"
#include "procfs.h"
#include "test_hooks.h"
#include "restore.h"
#include "summary.h"

/* ---- PAUSE_DEVICES ------------------------------------------------------------------------ */

static bool use_custom(const struct cs_ctx *ctx)
{
	return ctx->opt.mode != CS_OPT_MODE_DRIVER && ctx->cuda.has_custom_storage;
}

/*
 * The lock's timeout: what criu's --timeout alarm leaves (cap ms, hooks.c) less what this PAUSE
 * already spent since t_pause, or the lock_timeout_ms option when that is shorter; with no alarm
 * (cap 0), the option, or 10 s.
 */
static unsigned lock_timeout(const struct cs_ctx *ctx, unsigned cap, double t_pause)
{
	unsigned opt = ctx->opt.lock_timeout_ms;
	double spent_ms = (cs_now() - t_pause) * 1000;

	if (!cap)
		return opt ? opt : 10000;
	cap = spent_ms + 100 < cap ? cap - (unsigned)spent_ms : 100;
	return opt && opt < cap ? opt : cap;
}

static int lock_process(struct cs_ctx *ctx, struct cs_proc *p, unsigned alarm_cap_ms, double t_pause)
{
	CUcheckpointLockArgs args;
	CUprocessState st;
	CUresult res;
	double t0 = cs_now();

	memset(&args, 0, sizeof(args));
	args.timeoutMs = lock_timeout(ctx, alarm_cap_ms, t_pause);
	res = ctx->cuda.CheckpointProcessLock(p->pid, &args);
	if (res == CUDA_SUCCESS) {
		p->dump.phase = CS_PHASE_LOCKED;
		cs_info("pid %d: locked in %.3f s", p->pid, cs_now() - t0);
		cs_test_stall("after-lock");
		return 0;
	}
	p->dump.phase = CS_PHASE_FAILED;
	cs_err("pid %d: cuCheckpointProcessLock (timeout %u ms) failed: %s. If it was busy in a long "
	       "CUDA call, raise criu --timeout or CUDASTORE_LOCK_TIMEOUT_MS",
	       p->pid, args.timeoutMs, cs_cuda_errname(&ctx->cuda, res));
	/* a failed lock can still leave the target locked: never leave it so */
	if (ctx->cuda.CheckpointProcessGetState(p->pid, &st) == CUDA_SUCCESS &&
	    st == CU_PROCESS_STATE_LOCKED) {
		CUcheckpointUnlockArgs ua;

		memset(&ua, 0, sizeof(ua));
		ctx->cuda.CheckpointProcessUnlock(p->pid, &ua);
		if (ctx->cuda.CheckpointProcessGetState(p->pid, &st) != CUDA_SUCCESS ||
		    st != CU_PROCESS_STATE_RUNNING) {
			cs_err("pid %d: left locked by the failed lock and the unlock did not take", p->pid);
			return -EPROTO;
		}
	}
	cs_info("pid %d: the process is running and untouched", p->pid);
	return (res == CUDA_ERROR_NOT_READY || res == CUDA_ERROR_TIMEOUT) ? -ETIMEDOUT : -EPROTO;
}

static int retain_planned(struct cs_ctx *ctx, struct cs_proc *p)
{
	unsigned i;
	int ret, ord;

	ret = cs_dev_init(&ctx->gpus);
	if (ret)
		return ret;
	if (!p->dump.ndev_plan)
		return cs_dev_retain_all(&ctx->gpus);
	for (i = 0; i < p->dump.ndev_plan; i++) {
		ord = cs_dev_by_uuid(&ctx->gpus, &p->dump.dev_plan[i]);
		if (ord < 0) {
			cs_warn("pid %d: NVML lists a GPU criu cannot see; retaining every GPU", p->pid);
			return cs_dev_retain_all(&ctx->gpus);
		}
		ret = cs_dev_retain(&ctx->gpus, ord);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * CustomStorage, before the lock: what the copy needs (cuInit, the planned GPUs' contexts, the
 * pinned pool) is set up while the process still runs, not in the frozen window. A failure
 * here leaves the process untouched.
 */
static int prepare_copy(struct cs_ctx *ctx, struct cs_proc *p, int dirfd)
{
	double t0 = cs_now();
	int ret = retain_planned(ctx, p);

	if (ret) {
		cs_err("pid %d: the GPUs it uses cannot be prepared for the copy; the process was not "
		       "touched",
		       p->pid);
		return ret;
	}
	cs_pool_make_from_plan(ctx, p->dump.ndev_plan, p->dump.bytes_plan, dirfd);
	cs_debug("pid %d: GPU contexts and pinned buffers ready in %.3f s, before the lock", p->pid,
		 cs_now() - t0);
	return 0;
}

int cs_dump_pause(struct cs_ctx *ctx, pid_t pid, int dirfd, unsigned alarm_cap_ms, bool *inventory)
{
	struct cs_proc *p = cs_ctx_find(ctx, pid);
	double t_pause = cs_now();
	CUprocessState st;
	CUresult res;
	int tid, ret;

	if (p) /* PAUSE can run twice for one pid (criu retries seizing) */
		return p->dump.phase == CS_PHASE_FAILED ? -EAGAIN : 0;
	/* PAUSE runs for every task, first of all hooks: the dump owns the directory from here */
	if (ctx->stage == CS_STAGE_DUMP) {
		ret = cs_dump_own_imgdir(ctx, dirfd);
		if (ret)
			return ret;
	}
	/* the first PAUSE is the dumped tree's root's, before anything of the tree is locked */
	if (ctx->stage == CS_STAGE_DUMP && !ctx->dump.tree_checked) {
		ctx->dump.tree_checked = true;
		ret = cs_dump_plan_check_tree(ctx, pid);
		if (ret)
			return ret;
	}
	res = ctx->cuda.CheckpointProcessGetRestoreThreadId(pid, &tid);
	if (res != CUDA_SUCCESS)
		return -ENOTSUP; /* not a CUDA process */
	if (ctx->stage == CS_STAGE_PRE_DUMP) {
		cs_warn("pid %d is a CUDA process: pre-dump leaves its GPU state alone; the final dump "
			"checkpoints it",
			pid);
		return -ENOTSUP;
	}
	if (ctx->opt.mode == CS_OPT_MODE_CUSTOM && !ctx->cuda.has_custom_storage) {
		cs_err("pid %d: mode=custom but driver CUDA %d lacks CustomStorage (needs 13.4, R615+); the "
		       "process was not touched. Use CUDASTORE_MODE=auto or driver",
		       pid, ctx->cuda.driver_version);
		return -EPROTONOSUPPORT;
	}
	p = cs_ctx_add(ctx, pid);
	if (!p) {
		cs_err("pid %d: more than %d CUDA processes in one dump", pid, CS_MAX_PROCS);
		return -E2BIG;
	}
	p->restore_tid = tid;
	p->ns_pid = cs_procfs_ns_pid(pid);
	p->mode = use_custom(ctx) ? CS_MODE_CUSTOM : CS_MODE_DRIVER;
	res = ctx->cuda.CheckpointProcessGetState(pid, &st);
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: cannot read its CUDA state: %s", pid, cs_cuda_errname(&ctx->cuda, res));
		p->dump.phase = CS_PHASE_FAILED;
		return -EPROTO;
	}
	p->dump.initial_state = st;
	cs_info("pid %d (ns pid %d): CUDA process, restore thread %d, state %d; mode %s (driver CUDA %d%s)",
		pid, p->ns_pid, tid, st, p->mode == CS_MODE_CUSTOM ? "CustomStorage" : "driver-managed",
		ctx->cuda.driver_version,
		ctx->cuda.has_custom_storage ? ", CustomStorage available" : ", no CustomStorage");
	ret = cs_dump_plan_check_ipc(ctx, p);
	if (ret) {
		p->dump.phase = CS_PHASE_FAILED; /* not touched: the rollback finds it running */
		return ret;
	}
	if (!ctx->dump.inventory_added) /* criu records us (hooks.c): restore then needs the plugin */
		ctx->dump.inventory_added = *inventory = true;
	if (st == CU_PROCESS_STATE_CHECKPOINTED) {
		p->dump.phase = CS_PHASE_CHECKPOINTED;
		p->mode = CS_MODE_DRIVER;
		cs_info("pid %d: already checkpointed by the driver; dumping it as it is", pid);
		return 0;
	}
	cs_dump_plan_process(ctx, p); /* its GPUs: for the manifest's facts, and the copy's plan */
	cs_dump_facts_probe(ctx, p);
	if (p->mode == CS_MODE_CUSTOM) {
		ret = cs_dump_chunks_check_proc(ctx, p);
		if (!ret)
			ret = cs_dump_plan_check_space(ctx, p, dirfd);
		if (ret) {
			p->dump.phase = CS_PHASE_FAILED;
			return ret;
		}
	}
	if (st == CU_PROCESS_STATE_LOCKED) {
		cs_info("pid %d: already locked; leaving the lock as found", pid);
		p->dump.phase = CS_PHASE_FOUND;
		return 0;
	}
	if (st != CU_PROCESS_STATE_RUNNING) {
		cs_err("pid %d: unexpected CUDA state %d; not touching it", pid, st);
		p->dump.phase = CS_PHASE_FAILED;
		return -EPROTO;
	}
	if (p->mode == CS_MODE_CUSTOM) {
		ret = prepare_copy(ctx, p, dirfd);
		if (ret) {
			p->dump.phase = CS_PHASE_FAILED;
			return ret;
		}
	}
	return lock_process(ctx, p, alarm_cap_ms, t_pause);
}

/* ---- CHECKPOINT_DEVICES ------------------------------------------------------------------- */

static int call_checkpoint(struct cs_ctx *ctx, struct cs_proc *p, CUcheckpointCustomStorageInfo **info)
{
	CUcheckpointCheckpointArgs args;
	CUresult res;

	memset(&args, 0, sizeof(args));
	args.customStorageInfo_out = info;
	res = ctx->cuda.CheckpointProcessCheckpoint(p->pid, &args);
	if (res == CUDA_ERROR_INVALID_CONTEXT && p->dump.ndev_plan) {
		/* NVML missed a GPU the process uses: hold every GPU's context and try once more */
		cs_warn("pid %d: uses a GPU NVML did not report; retaining every GPU", p->pid);
		if (!cs_dev_retain_all(&ctx->gpus))
			res = ctx->cuda.CheckpointProcessCheckpoint(p->pid, &args);
	}
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: cuCheckpointProcessCheckpoint (CustomStorage) failed: %s", p->pid,
		       cs_cuda_errname(&ctx->cuda, res));
		return -EPROTO;
	}
	p->dump.checkpoint_called = true;
	return 0;
}

/*
 * Writing the extents failed after the driver mapped the memory, and the API has no abort.
 * Keep a host copy so exit(DUMP) can put the memory back; only then is Complete safe.
 */
static int rescue(struct cs_ctx *ctx, struct cs_proc *p, const struct cs_gpu_view *v)
{
	uint64_t need = 0, avail = cs_procfs_mem_available();
	struct cs_rescue *rs;
	unsigned i;

	for (i = 0; i < v->n; i++)
		need += v->r[i].size;
	if (ctx->opt.rescue == CS_NO || (ctx->opt.rescue == CS_AUTO && need > avail)) {
		cs_err("pid %d: cannot keep a host copy of %.1f MiB of GPU memory (%.1f MiB available, "
		       "rescue=%s); the process stays locked with its memory mapped",
		       p->pid, need / 1048576.0, avail / 1048576.0, ctx->opt.rescue == CS_NO ? "no" : "auto");
		return -ENOMEM;
	}
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		rs->r[i].uuid = v->r[i].uuid;
		rs->r[i].size = v->r[i].size;
		rs->r[i].mem = mmap(NULL, v->r[i].size, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (rs->r[i].mem == MAP_FAILED) {
			rs->r[i].mem = NULL;
			goto err;
		}
		rs->n++; /* rs owns the region before the copy: a failed copy frees it with rs */
		ctx->cuda.CtxSetCurrent(ctx->gpus.retained[v->r[i].ordinal]);
		if (ctx->cuda.MemcpyDtoH(rs->r[i].mem, v->r[i].ptr, v->r[i].size) != CUDA_SUCCESS)
			goto err;
	}
	p->dump.rescue = rs;
	cs_warn("pid %d: kept a %.1f MiB host copy of its GPU memory for the rollback", p->pid,
		need / 1048576.0);
	return 0;
err:
	cs_err("pid %d: making a host copy of GPU region %u failed", p->pid, i);
	cs_rescue_free(rs);
	return -ENOMEM;
}

/* Which path gave the chunk ids, and what the GPU path kept off PCIe */
static void note_prehash(const struct cs_proc *p, const struct cs_engine_region *regs, unsigned n,
			 const struct cs_prehash *ph)
{
	uint64_t total = 0, skipped = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		total += regs[i].size;
		skipped += regs[i].skipped_bytes;
	}
	if (ph->gpu)
		cs_info("pid %d: chunk ids hashed on the GPU before the copy: %llu of %llu bytes known "
			"(parent or all-zero), not copied",
			p->pid, (unsigned long long)skipped, (unsigned long long)total);
	else
		cs_info("pid %d: chunk ids computed on the CPU after the copy (%s)", p->pid, ph->why);
}

static int copy_out(struct cs_ctx *ctx, struct cs_proc *p, const struct cs_gpu_view *v, int dirfd,
		    struct cs_manifest *m)
{
	struct cs_engine_region regs[CS_MAX_DEVICES];
	struct cs_prehash ph;
	char err[512] = "";
	unsigned i;
	int ret;

	memset(regs, 0, sizeof(regs));
	if (!ctx->dump.imgdir_owned) /* else the dump's start removed every file of ours already */
		cs_imgset_dump_remove(dirfd, p->ns_pid, CS_MAX_DEVICES);
	for (i = 0; i < v->n; i++) {
		struct cs_manifest_dev *d = &m->dev[i];

		d->uuid = v->r[i].uuid;
		d->ordinal = v->r[i].ordinal;
		d->size = v->r[i].size;
		cs_name_extent(d->extent, p->ns_pid, i);
		regs[i] = (struct cs_engine_region){ .dirfd = dirfd,
						     .name = d->extent,
						     .sink = ctx->dump.chunked ? &ctx->dump.sink : NULL };
		cs_copy_map(ctx, v, i, &regs[i]);
		m->total_bytes += d->size;
	}
	m->ndev = v->n;
	ret = cs_prehash_regions(ctx, p, regs, v->n, &ph);
	if (ret)
		snprintf(err, sizeof(err), "no memory for the chunk ids hashed on the GPU: %s",
			 strerror(-ret));
	else if (ph.gpu && ctx->dump.parent.dir >= 0 &&
		 (ret = cs_dump_plan_check_new_bytes(ctx, p, dirfd, ph.new_bytes, m->total_bytes)))
		snprintf(err, sizeof(err), "its new chunks do not fit in the images directory");
	else
		ret = cs_copy_run(ctx, p->pid, CS_COPY_OUT, regs, v->n, err, sizeof(err));
	if (!ret && ctx->dump.chunked)
		note_prehash(p, regs, v->n, &ph);
	cs_prehash_free(&ph);
	if (ret) {
		cs_err("pid %d: writing GPU memory to the images failed: %s", p->pid, err);
		for (i = 0; i < v->n; i++)
			cs_engine_region_free_meta(&regs[i]);
		return ret;
	}
	for (i = 0; i < v->n; i++) { /* the manifest takes over the chunk tables */
		m->dev[i].chunk_size = regs[i].chunk_size;
		m->dev[i].nchunks = regs[i].nchunks;
		m->dev[i].hash = regs[i].hash;
		m->dev[i].zero = regs[i].zero;
		m->dev[i].stored_bytes = regs[i].stored_bytes;
		m->dev[i].nstripes = regs[i].nstripes;
		m->dev[i].ids = regs[i].ids; /* chunked: the manifest takes them over too */
		m->dev[i].new_bytes = regs[i].new_bytes;
		p->dump.copy[i] = (struct cs_copy_account){ .seconds = regs[i].seconds,
							    .threads = regs[i].threads,
							    .io_seconds = regs[i].io_seconds,
							    .gpu_wait_seconds = regs[i].gpu_wait_seconds };
		memcpy(m->dev[i].stripe, regs[i].stripe_name, sizeof(m->dev[i].stripe));
		m->stored_bytes += regs[i].stored_bytes;
	}
	return 0;
}

static void fill_header(struct cs_ctx *ctx, struct cs_proc *p, struct cs_manifest *m, enum cs_mode mode)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	m->format_major = CS_FORMAT_MAJOR;
	m->format_minor = CS_FORMAT_MINOR;
	m->mode = mode;
	m->pid = p->pid;
	m->ns_pid = p->ns_pid;
	m->driver_version = ctx->cuda.driver_version;
	m->created_unix_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	snprintf(m->plugin_version, sizeof(m->plugin_version), "%s", PACKAGE_VERSION);
	m->has_dump_id = ctx->dump.imgdir_owned;
	memcpy(m->dump_id, ctx->dump.index.dump_id, sizeof(m->dump_id));
}

/*
 * The manifest, then its entry in the dump's index (imgset.h): listed here, the index file is
 * written once the whole batch is done (checkpoint_all).
 */
static int write_manifest(struct cs_ctx *ctx, struct cs_proc *p, int dirfd, struct cs_manifest *m)
{
	char name[CS_NAME_MAX], err[512];
	int ret;

	cs_dump_facts_fill(ctx, p, m);
	cs_name_manifest(name, p->ns_pid);
	ret = cs_manifest_write(dirfd, name, m, err, sizeof(err));
	if (ret) {
		cs_err("pid %d: writing manifest %s failed: %s", p->pid, name, err);
		return ret;
	}
	pthread_mutex_lock(&ctx->mu);
	ret = cs_imgset_dump_note(&ctx->dump, p->ns_pid);
	pthread_mutex_unlock(&ctx->mu);
	return ret;
}

static int checkpoint_custom(struct cs_ctx *ctx, struct cs_proc *p, int dirfd, struct cs_manifest *m,
			     struct cs_phase_timer *st)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	struct cs_gpu_view view;
	int ret;

	ret = retain_planned(ctx, p);
	if (ret)
		return ret;
	cs_phase_timer_end(st, p->pid, "prepare", 0);
	ret = call_checkpoint(ctx, p, &info);
	if (ret)
		return ret;
	ret = cs_custom_view_collect(ctx, p->pid, info, &view);
	cs_phase_timer_end(st, p->pid, "map", 0);
	if (ret)
		return ret; /* nothing safe to do with a view we cannot read: leave it for rollback */
	fill_header(ctx, p, m, CS_MODE_CUSTOM);
	ret = copy_out(ctx, p, &view, dirfd, m);
	if (!ret) {
		cs_phase_timer_end(st, p->pid, "copy-out", m->total_bytes);
		ret = write_manifest(ctx, p, dirfd, m);
	}
	if (ret) {
		if (rescue(ctx, p, &view))
			return ret; /* no copy anywhere: never Complete, the memory stays in the driver */
		cs_imgset_dump_remove(dirfd, p->ns_pid, view.n);
	} else {
		p->dump.extents_complete = true;
	}
	/* the handle is gone after this call, whatever it returns: never completed twice */
	if (cs_custom_view_complete(ctx, p->pid, &view) ||
	    cs_driver_expect_state(ctx, p->pid, CU_PROCESS_STATE_CHECKPOINTED, "complete"))
		return -EPROTO;
	p->dump.phase = CS_PHASE_CHECKPOINTED;
	cs_phase_timer_end(st, p->pid, "complete", 0);
	cs_test_stall("after-complete");
	return ret;
}

static int checkpoint_driver(struct cs_ctx *ctx, struct cs_proc *p, int dirfd, struct cs_manifest *m,
			     struct cs_phase_timer *st)
{
	CUcheckpointCheckpointArgs args;
	CUresult res;

	memset(&args, 0, sizeof(args));
	p->dump.checkpoint_called = true;
	res = ctx->cuda.CheckpointProcessCheckpoint(p->pid, &args);
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: driver-managed cuCheckpointProcessCheckpoint failed: %s", p->pid,
		       cs_cuda_errname(&ctx->cuda, res));
		return -EPROTO;
	}
	if (cs_driver_expect_state(ctx, p->pid, CU_PROCESS_STATE_CHECKPOINTED, "checkpoint"))
		return -EPROTO;
	p->dump.phase = CS_PHASE_CHECKPOINTED;
	cs_phase_timer_end(st, p->pid, "checkpoint", 0);
	cs_test_stall("after-checkpoint");
	fill_header(ctx, p, m, CS_MODE_DRIVER);
	return write_manifest(ctx, p, dirfd, m);
}

/* On a batch worker, the restore thread running: one process's GPU checkpoint (batch.h). */
static int checkpoint_one(struct cs_ctx *ctx, struct cs_proc *p, void *arg)
{
	int dirfd = *(const int *)arg, ret;
	struct cs_manifest *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	memset(&p->st, 0, sizeof(p->st));
	cs_phase_timer_begin(&p->st);
	ret = p->mode == CS_MODE_CUSTOM ? checkpoint_custom(ctx, p, dirfd, m, &p->st)
					: checkpoint_driver(ctx, p, dirfd, m, &p->st);
	if (ret) {
		if (p->dump.phase != CS_PHASE_CHECKPOINTED)
			p->dump.phase = CS_PHASE_FAILED;
		cs_manifest_free(m);
		free(m);
		return ret;
	}
	p->batch.bytes = m->total_bytes;
	p->m = m; /* for its summary, once the batch is done */
	cs_info("pid %d: GPU checkpoint done in %.3f s: %u GPU(s), %.1f MiB, %.1f MiB stored", p->pid,
		cs_phase_timer_total(&p->st), m->ndev, m->total_bytes / 1048576.0,
		m->stored_bytes / 1048576.0);
	return 0;
}

/* found checkpointed by someone else: its memory is in its own pages */
static int checkpoint_found(struct cs_ctx *ctx, struct cs_proc *p, int dirfd)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return -ENOMEM;
	fill_header(ctx, p, m, CS_MODE_DRIVER);
	ret = write_manifest(ctx, p, dirfd, m);
	free(m);
	return ret;
}

/* cs_now() (monotonic seconds) as CLOCK_REALTIME nanoseconds, for the summary */
static uint64_t wall_ns(double t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - (uint64_t)((cs_now() - t) * 1e9);
}

/* After the batch: the index lists every manifest written; then each process's summary. */
static void checkpoint_settle(struct cs_ctx *ctx, struct cs_proc **procs, unsigned n, int dirfd,
			      const struct cs_batch *b)
{
	struct cs_summary_timing t = { .batch_procs = b->n, .batch_wall_s = b->wall, .batch_sum_s = b->sum };
	unsigned i;
	int ret = ctx->dump.index.n ? cs_imgset_dump_flush(&ctx->dump, dirfd) : 0;

	for (i = 0; i < n; i++) {
		struct cs_proc *p = procs[i];

		if (!p->batch.result && ret)
			p->batch.result = ret; /* an image set without its index cannot be restored */
		t.gpu_start_ns = p->batch.t_begin > 0 ? wall_ns(p->batch.t_begin) : 0;
		t.gpu_end_ns = p->batch.t_end > 0 ? wall_ns(p->batch.t_end) : 0;
		if (!p->batch.result && p->m)
			cs_summary_write_timed(dirfd, p, p->m, &p->st, &t);
		/* p->m stays until the dump's end: a rollback restores from it (restore_checkpointed) */
	}
}

/*
 * A CustomStorage process is CHECKPOINTING, its GPU memory mapped into this helper, from its
 * checkpoint call to its Complete: if the helper is lost then (the OOM killer), that memory is
 * lost with it. custom_in_flight bounds how many are in that window at once (default 1): the
 * copy is bound by PCIe and the storage, which one copy with the whole engine fills about as well
 * as several sharing it. The processes then go leaves first, the tree's root last, so that a copy
 * lost takes the smallest part of the tree with it (a process is ended with its descendants).
 */
static void bound_in_flight(struct cs_ctx *ctx, struct cs_batch *b)
{
	unsigned i, ncustom = 0, limit = ctx->opt.custom_in_flight;

	for (i = 0; i < b->n; i++)
		ncustom += b->procs[i]->mode == CS_MODE_CUSTOM;
	if (!ncustom || !limit || limit >= cs_batch_width(ctx, b->n))
		return;
	b->limit = limit;
	for (i = 0; i < b->n / 2; i++) { /* PAUSE's order is the tree's, root first */
		struct cs_proc *t = b->procs[i];

		b->procs[i] = b->procs[b->n - 1 - i];
		b->procs[b->n - 1 - i] = t;
	}
	cs_info("checkpoint: at most %u of the %u processes CHECKPOINTING at once, leaves first "
		"(custom_in_flight): a helper lost in the middle of a copy takes no more with it",
		limit, b->n);
}

/*
 * The first CHECKPOINT: every process of the dump at once (criu calls CHECKPOINT_DEVICES for
 * every task back to back, after all of them were paused and locked), CustomStorage ones at most
 * custom_in_flight at once (bound_in_flight).
 */
static void checkpoint_all(struct cs_ctx *ctx, int dirfd)
{
	struct cs_proc *procs[CS_MAX_PROCS];
	struct cs_batch b = { .what = "checkpoint", .fn = checkpoint_one, .arg = &dirfd };
	unsigned i, nfound = 0;
	uint64_t rss;

	/* found checkpointed by someone else: no driver work, answered here, listed in the index */
	for (i = 0; i < ctx->nproc; i++) {
		struct cs_proc *p = &ctx->proc[i];

		if (p->dump.phase == CS_PHASE_CHECKPOINTED && !p->dump.checkpoint_called) {
			procs[nfound++] = p;
			p->batch.done = true;
			p->batch.result = checkpoint_found(ctx, p, dirfd);
		}
	}
	/* the batch: every process we locked, or found locked, after them in procs */
	b.procs = procs + nfound;
	for (i = 0; i < ctx->nproc; i++) {
		struct cs_proc *p = &ctx->proc[i];

		if (p->dump.phase != CS_PHASE_LOCKED && p->dump.phase != CS_PHASE_FOUND)
			continue;
		/* the copies share the engine by size (batch.h); NVML's figure, when it gave one */
		p->batch.copy_bytes = 0;
		if (p->mode == CS_MODE_CUSTOM)
			p->batch.copy_bytes = p->dump.bytes_plan ? p->dump.bytes_plan : CS_COPY_UNKNOWN;
		b.procs[b.n++] = p;
	}
	bound_in_flight(ctx, &b);
	rss = cs_procfs_status_bytes(getpid(), "VmRSS");
	cs_batch_run(ctx, &b);
	/* what the helper itself held: its buffers are pinned before the lock, so the copies add
	 * little; a helper that grew would be the OOM killer's candidate mid-copy */
	cs_info("cudastore-helper's memory: %.1f MiB resident before the GPU phase, %.1f MiB at its end, "
		"peak %.1f MiB",
		rss / 1048576.0, cs_procfs_status_bytes(getpid(), "VmRSS") / 1048576.0,
		cs_procfs_status_bytes(getpid(), "VmHWM") / 1048576.0);
	checkpoint_settle(ctx, procs, nfound + b.n, dirfd, &b);
}

int cs_dump_checkpoint(struct cs_ctx *ctx, pid_t pid, int dirfd)
{
	struct cs_proc *p = cs_ctx_find(ctx, pid);
	int tid;

	if (!p) {
		if (ctx->cuda.CheckpointProcessGetRestoreThreadId(pid, &tid) != CUDA_SUCCESS)
			return -ENOTSUP;
		cs_err("pid %d started using CUDA after criu paused it (cuInit race); retry the dump", pid);
		return -EAGAIN;
	}
	if (!ctx->dump.batch_ran) {
		ctx->dump.batch_ran = true;
		checkpoint_all(ctx, dirfd);
	}
	return p->batch.done ? p->batch.result : -EPROTO;
}

void cs_dump_release(struct cs_ctx *ctx)
{
	for (unsigned i = 0; i < ctx->nproc; i++) {
		cs_manifest_free(ctx->proc[i].m);
		free(ctx->proc[i].m);
		ctx->proc[i].m = NULL;
	}
}
