// SPDX-License-Identifier: MIT
/* restore.c - validated GPU restore (see restore.h) */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "batch.h"
#include "copy_opts.h"
#include "custom_view.h"
#include "devices.h"
#include "driver_state.h"
#include "imgdir.h"
#include "imgset.h"
#include "log.h"
#include "pool.h"
#include "procfs.h"
#include "test_hooks.h"
#include "prefetch.h"
#include "restore.h"
#include "restore_place.h"
#include "criu_door.h"
#include "strsafe.h"

void cs_rescue_free(struct cs_rescue *rs)
{
	unsigned i;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++)
		if (rs->r[i].mem)
			munmap(rs->r[i].mem, rs->r[i].size);
	free(rs);
}

/* dest[i]: where the restore's placement puts m's device i; 0, or -ENOENT (not placed) */
static int placed(const struct cs_ctx *ctx, const struct cs_manifest *m, CUuuid *dest)
{
	for (unsigned i = 0; i < m->ndev; i++)
		if (cs_place_dest(ctx, &m->dev[i].uuid, &dest[i]))
			return -ENOENT;
	return 0;
}

/* Retain the destination GPUs and build gpuPairs when any GPU changes. */
static int prepare_devices(struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m, bool use_map,
			   CUuuid *dest, CUcheckpointGpuPair *pairs, unsigned *npairs)
{
	CUuuid visible[CS_MAX_DEVICES];
	char err[512];
	bool moved = false;
	unsigned i;
	int ret;

	ret = cs_dev_init(&ctx->gpus);
	if (ret)
		return ret;
	for (i = 0; i < (unsigned)ctx->gpus.ndev; i++)
		if (cs_dev_uuid(&ctx->gpus, (int)i, &visible[i]))
			return -ENODEV;
	/* the restore's placement; a dump's rollback (!use_map): back onto the GPUs it came from */
	ret = use_map ? placed(ctx, m, dest) : -ENOENT;
	if (ret)
		ret = cs_dev_plan_restore(m, ctx->opt.device_map, use_map ? ctx->opt.ndevice_map : 0, visible,
					  ctx->gpus.ndev, dest, err, sizeof(err));
	if (ret) {
		cs_err("pid %d: %s", pid, err);
		return ret;
	}
	for (i = 0; i < m->ndev; i++) {
		char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];

		ret = cs_dev_retain(&ctx->gpus, cs_dev_by_uuid(&ctx->gpus, &dest[i]));
		if (ret)
			return ret;
		pairs[i].oldUuid = m->dev[i].uuid;
		pairs[i].newUuid = dest[i];
		if (memcmp(&dest[i], &m->dev[i].uuid, sizeof(CUuuid))) {
			moved = true;
			cs_uuid_format(&m->dev[i].uuid, a);
			cs_uuid_format(&dest[i], b);
			cs_info("pid %d: GPU %s is restored onto %s", pid, a, b);
		}
	}
	*npairs = moved ? m->ndev : 0;
	return 0;
}

/* Match the driver's entries (destination GPUs) to manifest devices; sizes must agree. */
static int match_view(pid_t pid, const struct cs_manifest *m, const CUuuid *dest, const struct cs_gpu_view *v,
		      int *dev_of)
{
	char u[CS_UUID_STRLEN];
	unsigned i, j;

	if (v->n != m->ndev) {
		cs_err("pid %d: the driver restores %u GPU region(s), the images hold %u", pid, v->n,
		       m->ndev);
		return -EPROTO;
	}
	for (i = 0; i < v->n; i++) {
		for (j = 0; j < m->ndev; j++)
			if (!memcmp(&dest[j], &v->r[i].uuid, sizeof(CUuuid)))
				break;
		cs_uuid_format(&v->r[i].uuid, u);
		if (j == m->ndev) {
			cs_err("pid %d: the driver restores onto GPU %s, which the images do not map there",
			       pid, u);
			return -EPROTO;
		}
		if (v->r[i].size != m->dev[j].size) {
			cs_err("pid %d: the driver maps %llu bytes on GPU %s, the image %s holds %llu", pid,
			       (unsigned long long)v->r[i].size, u, m->dev[j].extent,
			       (unsigned long long)m->dev[j].size);
			return -EPROTO;
		}
		dev_of[i] = (int)j;
	}
	return 0;
}

static int copy_from_rescue(struct cs_ctx *ctx, pid_t pid, const struct cs_gpu_view *v, const int *dev_of,
			    const struct cs_manifest *m, const struct cs_rescue *rs)
{
	unsigned i, k;

	for (i = 0; i < v->n; i++) {
		for (k = 0; k < rs->n; k++)
			if (!memcmp(&rs->r[k].uuid, &m->dev[dev_of[i]].uuid, sizeof(CUuuid)))
				break;
		if (k == rs->n || rs->r[k].size != v->r[i].size) {
			cs_err("pid %d: no host copy for GPU region %u", pid, i);
			return -EPROTO;
		}
		ctx->cuda.CtxSetCurrent(ctx->gpus.retained[v->r[i].ordinal]);
		if (ctx->cuda.MemcpyHtoD(v->r[i].ptr, rs->r[k].mem, rs->r[k].size) != CUDA_SUCCESS) {
			cs_err("pid %d: copying the host copy back to GPU %d failed", pid, v->r[i].ordinal);
			return -EIO;
		}
	}
	return 0;
}

static int copy_from_extents(struct cs_ctx *ctx, pid_t pid, const struct cs_gpu_view *v, const int *dev_of,
			     const struct cs_manifest *m, int dirfd, uint64_t *bytes)
{
	struct cs_engine_region regs[CS_MAX_DEVICES];
	char err[512];
	unsigned i;
	int ret;

	memset(regs, 0, sizeof(regs));
	*bytes = 0;
	for (i = 0; i < v->n; i++) {
		const struct cs_manifest_dev *d = &m->dev[dev_of[i]];

		cs_engine_region_from_manifest(&regs[i], d, dirfd);
		cs_copy_map(ctx, v, i, &regs[i]); /* its size == d->size (match_view) */
		*bytes += d->size;
	}
	ret = cs_copy_run(ctx, pid, CS_COPY_IN, regs, v->n, err, sizeof(err));
	if (ret)
		cs_err("pid %d: copying the images into the GPU failed: %s", pid, err);
	return ret;
}

int cs_restore_custom(struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m, int dirfd,
		      const struct cs_rescue *rs, bool use_map, struct cs_phase_timer *st,
		      CUcheckpointOperationHandle *pending)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointGpuPair pairs[CS_MAX_DEVICES];
	CUcheckpointRestoreArgs args;
	CUuuid dest[CS_MAX_DEVICES];
	struct cs_gpu_view view;
	int dev_of[CS_MAX_DEVICES];
	uint64_t bytes = 0;
	unsigned npairs = 0;
	CUresult res;
	int ret;

	*pending = NULL;
	if (!ctx->cuda.has_custom_storage) {
		cs_err("pid %d: the images were made with CUDA CustomStorage, which this driver (CUDA %d) "
		       "lacks; restore needs a CUDA 13.4 (R615+) driver",
		       pid, ctx->cuda.driver_version);
		return -EPROTONOSUPPORT; /* not -ENOTSUP: CRIU reads that as 'not mine' */
	}
	ret = prepare_devices(ctx, pid, m, use_map, dest, pairs, &npairs);
	if (ret)
		return ret;
	memset(&args, 0, sizeof(args));
	args.gpuPairs = npairs ? pairs : NULL;
	args.gpuPairsCount = npairs;
	args.customStorageInfo_out = &info;
	cs_phase_timer_begin(st);
	res = ctx->cuda.CheckpointProcessRestore(pid, &args);
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: cuCheckpointProcessRestore failed: %s", pid,
		       cs_cuda_errname(&ctx->cuda, res));
		return -EPROTO;
	}
	if (info)
		*pending = info->handle;
	ret = cs_custom_view_collect(ctx, pid, info, &view);
	if (!ret)
		ret = match_view(pid, m, dest, &view, dev_of);
	cs_phase_timer_end(st, pid, "map", 0);
	cs_test_stall("restore");
	if (!ret)
		ret = rs ? copy_from_rescue(ctx, pid, &view, dev_of, m, rs)
			 : copy_from_extents(ctx, pid, &view, dev_of, m, dirfd, &bytes);
	if (ret)
		return ret; /* no Complete on bad data: the caller kills the target first (*pending) */
	cs_phase_timer_end(st, pid, "copy-in", bytes);
	*pending = NULL;
	ret = cs_custom_view_complete(ctx, pid, &view);
	if (!ret)
		ret = cs_driver_expect_state(ctx, pid, CU_PROCESS_STATE_LOCKED, "restore");
	cs_phase_timer_end(st, pid, "complete", 0);
	return ret;
}

/* the GPU pairs of the configured map, for images that record no GPUs: 0, or -EINVAL (said) */
static int map_pairs(struct cs_ctx *ctx, pid_t pid, CUcheckpointGpuPair *pairs, unsigned *n)
{
	unsigned i;

	*n = 0;
	if (!ctx->opt.ndevice_map)
		return 0;
	if (ctx->opt.device_map[0].by_ordinal) {
		cs_err("pid %d: device_map gives ordinals, but these driver-managed images (format before "
		       "1.4) do not record which GPU had which ordinal: give OLD=NEW GPU UUID pairs "
		       "(nvidia-smi -L) instead",
		       pid);
		return -EINVAL;
	}
	for (i = 0; i < ctx->opt.ndevice_map; i++) {
		pairs[i].oldUuid = ctx->opt.device_map[i].from;
		pairs[i].newUuid = ctx->opt.device_map[i].to;
	}
	*n = ctx->opt.ndevice_map;
	return 0;
}

int cs_restore_driver(struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m)
{
	CUcheckpointGpuPair pairs[CS_MAX_DEVICES];
	CUcheckpointRestoreArgs args;
	unsigned n = 0;
	CUresult res;

	/* the driver restores only with persistence mode on or cuInit done in the calling process */
	if (cs_dev_init(&ctx->gpus)) /* it logged why */
		cs_warn("pid %d: trying the driver-managed restore without cuInit", pid);
	memset(&args, 0, sizeof(args));
	if (m && m->ngpu)
		n = cs_place_pairs(ctx, pid, m, pairs);
	else if (m && map_pairs(ctx, pid, pairs, &n))
		return -EINVAL;
	for (unsigned i = 0; m && m->ngpu && i < n; i++) {
		char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];

		cs_uuid_format(&pairs[i].oldUuid, a);
		cs_uuid_format(&pairs[i].newUuid, b);
		cs_info("pid %d: GPU %s is restored onto %s", pid, a, b);
	}
	args.gpuPairs = n ? pairs : NULL;
	args.gpuPairsCount = n;
	res = ctx->cuda.CheckpointProcessRestore(pid, &args);
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: driver-managed cuCheckpointProcessRestore failed: %s", pid,
		       cs_cuda_errname(&ctx->cuda, res));
		return -EPROTO;
	}
	return cs_driver_expect_state(ctx, pid, CU_PROCESS_STATE_LOCKED, "restore");
}

/* After a failed restore: the process must not run with wrong GPU memory. */
static void kill_target(struct cs_ctx *ctx, pid_t pid, CUcheckpointOperationHandle pending, const char *why)
{
	cs_err("pid %d: GPU restore failed (%s); killing the process so it cannot run with wrong GPU "
	       "memory. The images were not modified: fix the cause and restore again",
	       pid, why);
	kill(pid, SIGKILL);
	/* release the driver's mappings in this process; the dead target may reject it */
	if (pending && ctx->cuda.CheckpointOperationComplete)
		ctx->cuda.CheckpointOperationComplete(pending);
}

int cs_restore_unlock(struct cs_ctx *ctx, pid_t pid)
{
	CUcheckpointUnlockArgs ua;
	CUresult res;

	memset(&ua, 0, sizeof(ua));
	res = ctx->cuda.CheckpointProcessUnlock(pid, &ua);
	if (res != CUDA_SUCCESS)
		cs_warn("pid %d: cuCheckpointProcessUnlock returned %s; checking its state", pid,
			cs_cuda_errname(&ctx->cuda, res));
	return cs_driver_expect_state(ctx, pid, CU_PROCESS_STATE_RUNNING, "unlock");
}

/*
 * No manifest for a restored process: CRIU's alone if it is not a CUDA process or the driver
 * says RUNNING; otherwise its GPU state was dumped and its manifest is gone: it must not run.
 */
static int no_manifest(struct cs_ctx *ctx, pid_t pid, const char *name)
{
	struct cs_criu_rt rt = { 0 };
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	CUresult res;
	int tid, ret;

	if (ctx->cuda.CheckpointProcessGetRestoreThreadId(pid, &tid) != CUDA_SUCCESS)
		return -ENOTSUP; /* not a CUDA process: CRIU's alone */
	/* the driver answers through the restore thread: let it run */
	ret = cs_criu_rt_run(&rt, tid);
	if (ret)
		return ret;
	res = ctx->cuda.CheckpointProcessGetState(pid, &st);
	ret = cs_criu_rt_stop(&rt);
	if (res == CUDA_SUCCESS && st == CU_PROCESS_STATE_RUNNING && !ret)
		return -ENOTSUP;
	if (res != CUDA_SUCCESS)
		cs_err(
		    "pid %d: a CUDA process without a manifest (%s missing from the images directory), and "
		    "its CUDA state cannot be read (%s): it cannot be resumed safely",
		    pid, name, cs_cuda_errname(&ctx->cuda, res));
	else
		cs_err("pid %d: the driver reports it %s and CRIU's inventory says the dump used cudastore, "
		       "but its manifest %s is missing from the images directory (deleted, or images "
		       "incomplete): its GPU state cannot be restored. Restore from a complete copy of the "
		       "images",
		       pid, cs_cuda_state_name(st), name);
	return -ENOENT;
}

static int load_images(struct cs_restore_session *rs, pid_t pid, int dirfd, struct cs_manifest *m)
{
	char name[CS_NAME_MAX], err[1024], safe[1024];
	pid_t ns_pid = cs_procfs_ns_pid(pid);
	int ret;

	/* only the manifests of the dump that wrote these images, as cudastore verify checks */
	ret = cs_imgset_restore_load(&rs->set, dirfd, ns_pid, m, err, sizeof(err));
	if (ret == -ENOTSUP)
		cs_info("%s", cs_str_escape(err, safe, sizeof(safe)));
	if (ret == -ENOTSUP || ret == -ENOENT)
		return -ENOTSUP;
	cs_name_manifest(name, ns_pid);
	if (ret)
		cs_err("pid %d: images %s are unusable: %s", pid, name,
		       cs_str_escape(err, safe, sizeof(safe)));
	return ret;
}

/* A process whose GPU state these images hold: validated manifest in p->m, its restore thread. */
static int restore_prepare(struct cs_ctx *ctx, struct cs_proc *p, int dirfd)
{
	char name[CS_NAME_MAX];
	int tid, ret;
	CUresult res;

	p->m = calloc(1, sizeof(*p->m));
	if (!p->m)
		return -ENOMEM;
	ret = load_images(&ctx->restore, p->pid, dirfd, p->m);
	if (ret != -ENOTSUP)
		ctx->restore.restored++; /* one of the processes the images hold (cs_pool_after_restore) */
	if (ret == -ENOTSUP) {
		/* no manifest: a CUDA process the driver reports checkpointed must not run (imgset.h) */
		cs_name_manifest(name, p->ns_pid);
		ret = no_manifest(ctx, p->pid, name);
		if (ret != -ENOTSUP)
			kill_target(ctx, p->pid, NULL, "its manifest is missing");
		return ret;
	}
	if (ret) {
		kill_target(ctx, p->pid, NULL, "invalid images");
		return ret;
	}
	cs_info("pid %d: restoring %s-mode GPU state (%u GPU(s), %.1f MiB)", p->pid,
		p->m->mode == CS_MODE_CUSTOM ? "CustomStorage" : "driver-managed", p->m->ndev,
		p->m->total_bytes / 1048576.0);
	res = ctx->cuda.CheckpointProcessGetRestoreThreadId(p->pid, &tid);
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: has cudastore images but no CUDA restore thread: %s", p->pid,
		       cs_cuda_errname(&ctx->cuda, res));
		kill_target(ctx, p->pid, NULL, "no CUDA restore thread");
		return -ESRCH;
	}
	p->restore_tid = tid;
	return 0;
}

/* On a batch worker, the restore thread running: one process's GPU memory back, unlocked. */
static int restore_one(struct cs_ctx *ctx, struct cs_proc *p, void *arg)
{
	CUcheckpointOperationHandle pending = NULL;
	int dirfd = *(const int *)arg, ret;

	cs_phase_timer_begin(&p->st);
	if (p->m->mode == CS_MODE_CUSTOM)
		ret = cs_restore_custom(ctx, p->pid, p->m, dirfd, NULL, true, &p->st, &pending);
	else
		ret = cs_restore_driver(ctx, p->pid, p->m);
	if (!ret)
		ret = cs_restore_unlock(ctx, p->pid);
	if (ret) {
		kill_target(ctx, p->pid, pending, "see the errors above");
		return ret;
	}
	cs_phase_timer_end(&p->st, p->pid, "unlock", 0);
	p->batch.bytes = p->m->total_bytes;
	cs_info("pid %d: GPU restore done in %.3f s (%.1f MiB, %.2f GB/s)", p->pid,
		cs_phase_timer_total(&p->st), p->batch.bytes / 1048576.0,
		p->batch.bytes / cs_phase_timer_total(&p->st) / 1e9);
	return 0;
}

/*
 * Any process that failed: no process of the tree may run (its GPU memory, or a sibling's it
 * works with, is wrong). CRIU ignores this hook's answer, so the tree is killed here; CRIU's
 * detach then fails and it exits non-zero.
 */
static void kill_tree(struct cs_ctx *ctx, const pid_t *tree, unsigned n)
{
	unsigned i;

	cs_err("the GPU state of the tree could not be restored completely; killing all %u processes "
	       "of the tree so that none runs. The images were not modified: fix the cause and restore "
	       "again",
	       n);
	for (i = 0; i < n; i++) {
		struct cs_proc *p = cs_ctx_find(ctx, tree[i]);

		kill(tree[i], SIGKILL);
		if (p && !p->batch.result)
			p->batch.result = -ECANCELED;
	}
}

/* The processes criu restores: its tracees now (RESUME_DEVICES_LATE stops them all), pid first. */
static unsigned restored_tree(struct cs_ctx *ctx, pid_t pid, pid_t *tree, unsigned max)
{
	int n = ctx->criu_pid > 0 ? cs_procfs_traced_by(ctx->criu_pid, tree + 1, max - 1) : -ENOENT;
	unsigned k = 1;

	tree[0] = pid;
	if (n < 0 || (unsigned)n > max - 1) {
		cs_warn("the processes criu restores cannot be listed (%s); restoring their GPU state one "
			"at a time",
			n < 0 ? strerror(-n) : "too many");
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (tree[i + 1] != pid)
			tree[k++] = tree[i + 1];
	return k;
}

/* pid has no GPU state of ours (decided once: later RESTOREs of it answer at once) */
static bool not_ours(const struct cs_restore_session *rs, pid_t pid)
{
	for (unsigned i = 0; i < rs->nnot_ours; i++)
		if (rs->not_ours[i] == pid)
			return true;
	return false;
}

static void note_not_ours(struct cs_restore_session *rs, pid_t pid)
{
	pid_t *more;

	if (rs->nnot_ours % 64 == 0) {
		more = realloc(rs->not_ours, (rs->nnot_ours + 64) * sizeof(*more));
		if (!more)
			return; /* asked again later: the same answer, one more driver call */
		rs->not_ours = more;
	}
	rs->not_ours[rs->nnot_ours++] = pid;
}

/*
 * pid validated (images, restore thread) and, when it has GPU state of ours, tracked: its entry,
 * or NULL (not ours, or no room: *result says which).
 */
static struct cs_proc *prepare_one(struct cs_ctx *ctx, pid_t pid, int dirfd, int *result)
{
	struct cs_proc tmp, *p;

	memset(&tmp, 0, sizeof(tmp));
	tmp.pid = pid;
	tmp.ns_pid = cs_procfs_ns_pid(pid);
	*result = restore_prepare(ctx, &tmp, dirfd);
	if (*result == -ENOTSUP) {
		note_not_ours(&ctx->restore, pid);
		cs_manifest_free(tmp.m);
		free(tmp.m);
		return NULL;
	}
	p = cs_ctx_add(ctx, pid);
	if (!p) {
		cs_err("pid %d: more than %d CUDA processes in one restore", pid, CS_MAX_PROCS);
		kill(pid, SIGKILL);
		cs_manifest_free(tmp.m);
		free(tmp.m);
		*result = -E2BIG;
		return NULL;
	}
	*p = tmp;
	p->batch.done = true;
	p->batch.result = *result;
	return p;
}

/*
 * What a restore's copy costs the shared engine, in bytes (cs_proc.copy_bytes): its stored bytes,
 * each read, checked and copied to the GPU, and its all-zero bytes at 1/32, which the GPU clears
 * with no read, check or copy over PCIe (docs/performance.md, "Zero chunks"; the rates of both
 * kinds are in its section 4). A process whose memory is mostly zero (a reserved, unused cache) so
 * takes a small part, not one in proportion to its size. 0: nothing to copy.
 */
static uint64_t restore_work(const struct cs_manifest *m)
{
	uint64_t zero = m->total_bytes > m->stored_bytes ? m->total_bytes - m->stored_bytes : 0;
	uint64_t work = m->stored_bytes + zero / 32;

	return work || !m->total_bytes ? work : 1;
}

/*
 * Every process of tree[0..n) at once (those not seen before). Each is validated first; any that
 * fails validation or its restore gets the whole tree killed before any resumes.
 */
static void restore_all(struct cs_ctx *ctx, const pid_t *tree, unsigned n, int dirfd)
{
	struct cs_proc *procs[CS_MAX_PROCS], *p;
	struct cs_batch b = { .what = "restore", .procs = procs, .fn = restore_one, .arg = &dirfd };
	bool failed = false;
	unsigned i;
	int ret;

	cs_prefetch_take(&ctx->restore.prefetch); /* settles a prefetch once, before the workers share it */
	for (i = 0; i < n; i++) {
		if (cs_ctx_find(ctx, tree[i]) || not_ours(&ctx->restore, tree[i]))
			continue;
		p = prepare_one(ctx, tree[i], dirfd, &ret);
		if (p && !ret) {
			/* the copies share the engine by what each moves (batch.h) */
			p->batch.copy_bytes = p->m->mode == CS_MODE_CUSTOM ? restore_work(p->m) : 0;
			procs[b.n++] = p;
		} else if (ret != -ENOTSUP) {
			failed = true;
		}
	}
	/* one placement for the whole tree, before any process is touched (restore_place.h) */
	if (!failed && b.n && cs_place_restore(ctx, dirfd, procs, b.n))
		failed = true;
	if (!failed)
		failed = cs_batch_run(ctx, &b) != 0;
	if (failed)
		kill_tree(ctx, tree, n);
	for (i = 0; i < b.n; i++) {
		cs_manifest_free(procs[i]->m);
		free(procs[i]->m);
		procs[i]->m = NULL;
	}
}

#define CS_MAX_TREE 8192 /* processes one restore lists at once (beyond: one at a time) */

int cs_restore_process(struct cs_ctx *ctx, pid_t pid, int dirfd)
{
	pid_t one = pid, *tree = &one;
	struct cs_proc *p;
	unsigned n = 1;

	if (!ctx->restore.batch_ran) { /* the first RESTORE: every process criu restores */
		ctx->restore.batch_ran = true;
		tree = calloc(CS_MAX_TREE, sizeof(*tree));
		n = tree ? restored_tree(ctx, pid, tree, CS_MAX_TREE) : 1;
		if (!tree)
			tree = &one;
	} /* else a process the first call did not see: on its own */
	restore_all(ctx, tree, n, dirfd);
	if (tree != &one)
		free(tree);
	if (not_ours(&ctx->restore, pid))
		return -ENOTSUP;
	p = cs_ctx_find(ctx, pid);
	return p && p->batch.done ? p->batch.result : -EPROTO;
}
