// SPDX-License-Identifier: MIT
/* dump_plan.c - NVML-based dump planning, the CUDA IPC check and the free-space check (see dump_plan.h) */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgdir.h"
#include "log.h"
#include "dump_plan.h"
#include "procfs.h"

#define MAX_NVML_PROCS 1024

static void plan_device(struct cs_nvml_ops *nv, nvmlDevice_t dev, struct cs_proc *p, nvmlProcessInfo_t *buf)
{
	unsigned int count = MAX_NVML_PROCS, i;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	uint64_t bytes = 0;
	bool used = false;

	if (nv->DeviceGetComputeRunningProcesses(dev, &count, buf) != NVML_SUCCESS)
		return;
	for (i = 0; i < count && i < MAX_NVML_PROCS; i++) {
		if ((pid_t)buf[i].pid != p->pid)
			continue;
		used = true;
		/* NVML_VALUE_NOT_AVAILABLE is ~0ull: unknown size, keep the GPU but add nothing */
		if (buf[i].usedGpuMemory != ~0ull)
			bytes += buf[i].usedGpuMemory;
	}
	p->dump.bytes_plan += bytes;
	if (!used || p->dump.ndev_plan >= CS_MAX_DEVICES)
		return;
	if (nv->DeviceGetUUID(dev, uuid, sizeof(uuid)) != NVML_SUCCESS ||
	    cs_uuid_parse(uuid, &p->dump.dev_plan[p->dump.ndev_plan]))
		return;
	p->dump.used_plan[p->dump.ndev_plan++] = bytes;
}

/*
 * NVML for one dump: loaded and initialised at the first PAUSE that needs it, released by
 * cs_dump_plan_release() in exit(DUMP). Every PAUSE runs under CRIU's seize alarm; loading and
 * initialising NVML each time cost most of a PAUSE on a real host.
 */

struct cs_nvml_ops *cs_dump_plan_nvml(struct cs_ctx *ctx, pid_t pid)
{
	struct cs_dump_nvml *nvml = &ctx->dump.nvml;
	char err[256];

	if (nvml->tried)
		return nvml->up ? &nvml->nv : NULL;
	nvml->tried = true;
	if (cs_nvml_load(&nvml->nv, ctx->opt.libnvml[0] ? ctx->opt.libnvml : NULL, err, sizeof(err))) {
		cs_warn("pid %d: no NVML (%s): cannot plan the dump; retaining every GPU, no space check",
			pid, err);
		return NULL;
	}
	if (nvml->nv.Init() != NVML_SUCCESS) {
		cs_warn("pid %d: nvmlInit failed: cannot plan the dump; retaining every GPU", pid);
		cs_nvml_unload(&nvml->nv);
		return NULL;
	}
	nvml->up = true;
	return &nvml->nv;
}

void cs_dump_plan_release(struct cs_dump_nvml *nvml)
{
	if (nvml->up) {
		nvml->nv.Shutdown();
		cs_nvml_unload(&nvml->nv);
	}
	memset(nvml, 0, sizeof(*nvml));
}

int cs_dump_plan_process(struct cs_ctx *ctx, struct cs_proc *p)
{
	struct cs_nvml_ops *nv = cs_dump_plan_nvml(ctx, p->pid);
	nvmlProcessInfo_t *buf;
	unsigned int n = 0, i;
	nvmlDevice_t dev;

	p->dump.ndev_plan = 0;
	p->dump.bytes_plan = 0;
	if (!nv)
		return 0; /* said once, at the first PAUSE */
	buf = calloc(MAX_NVML_PROCS, sizeof(*buf));
	if (buf && nv->DeviceGetCount(&n) == NVML_SUCCESS)
		for (i = 0; i < n; i++)
			if (nv->DeviceGetHandleByIndex(i, &dev) == NVML_SUCCESS)
				plan_device(nv, dev, p, buf);
	free(buf);
	if (!p->dump.ndev_plan)
		cs_warn("pid %d: NVML lists no GPU memory for it (other pid namespace?); %s", p->pid,
			p->mode == CS_MODE_CUSTOM ? "retaining every GPU"
						  : "its images will not record which GPUs it used");
	else
		cs_info("pid %d: plan: %u GPU(s), %.2f GiB of GPU memory (NVML)", p->pid, p->dump.ndev_plan,
			p->dump.bytes_plan / 1073741824.0);
	return 0;
}

#define CS_IPC_BRANCH_MIN 610 /* the first driver branch that checkpoints CUDA IPC users */

/* the driver's branch (580 of "580.159.04") from NVML, or -1 */
static int driver_branch(struct cs_ctx *ctx, pid_t pid, char *version, size_t len)
{
	struct cs_nvml_ops *nv = cs_dump_plan_nvml(ctx, pid);

	snprintf(version, len, "unknown");
	if (!nv || nv->SystemGetDriverVersion(version, (unsigned int)len) != NVML_SUCCESS)
		return -1;
	return atoi(version) > 0 ? atoi(version) : -1;
}

int cs_dump_plan_check_ipc(struct cs_ctx *ctx, struct cs_proc *p)
{
	char shm[256], version[96];
	int branch;

	if (!cs_procfs_cuda_ipc(p->pid, shm, sizeof(shm)))
		return 0;
	branch = driver_branch(ctx, p->pid, version, sizeof(version));
	if (branch >= CS_IPC_BRANCH_MIN) {
		cs_info("pid %d shares GPU memory through CUDA IPC (%s); driver %s checkpoints it", p->pid,
			shm, version);
		return 0;
	}
	cs_err("pid %d shares GPU memory with another process through CUDA IPC (it maps %s); driver %s "
	       "%s, so the dump could never be restored. The dump is refused and the processes run on: "
	       "use driver %d or newer, or end the sharing before the dump",
	       p->pid, shm, version,
	       branch < 0 ? "cannot tell whether it checkpoints CUDA IPC (no NVML)"
			  : "cannot checkpoint CUDA IPC users",
	       CS_IPC_BRANCH_MIN);
	return -EPERM;
}

/* driver too old to checkpoint CUDA IPC users: by NVML's branch, else by the CUDA version */
static bool ipc_unsafe_driver(struct cs_ctx *ctx, pid_t pid, char *version, size_t len)
{
	int branch = driver_branch(ctx, pid, version, len);

	if (branch < 0)
		snprintf(version, len, "CUDA %d", ctx->cuda.driver_version);
	return branch >= 0 ? branch < CS_IPC_BRANCH_MIN : ctx->cuda.driver_version < CUDASTORE_CUDA_13_4;
}

#define TREE_MAX 4096 /* processes of a tree looked at; past it the tree counts as unknown */

/* the CUDA processes of tree[0..n): their driver mapped, and the driver knows them */
static unsigned cuda_in_tree(struct cs_ctx *ctx, const pid_t *tree, unsigned n, char *pids, size_t len)
{
	unsigned found = 0, i;
	size_t used = 0;
	int tid;

	pids[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!cs_procfs_cuda_driver(tree[i], NULL, 0) ||
		    ctx->cuda.CheckpointProcessGetRestoreThreadId(tree[i], &tid) != CUDA_SUCCESS)
			continue;
		if (used + 16 < len)
			used += (size_t)snprintf(pids + used, len - used, "%s%d", found ? ", " : "", tree[i]);
		found++;
	}
	return found;
}

int cs_dump_plan_check_tree(struct cs_ctx *ctx, pid_t root)
{
	char version[96], pids[256];
	unsigned ncuda;
	pid_t *tree;
	int n;

	if (ctx->opt.old_driver_trees || !ipc_unsafe_driver(ctx, root, version, sizeof(version)))
		return 0;
	tree = calloc(TREE_MAX, sizeof(*tree));
	if (!tree)
		return -ENOMEM;
	n = cs_procfs_tree(root, tree, TREE_MAX);
	ncuda =
	    n > 0 ? cuda_in_tree(ctx, tree, n < TREE_MAX ? (unsigned)n : TREE_MAX, pids, sizeof(pids)) : 0;
	free(tree);
	if (ncuda < 2)
		return 0;
	cs_err("the tree of pid %d has %u CUDA processes (%s), and driver %s (older than branch %d) "
	       "checkpoints a process that imports another's GPU memory through CUDA IPC (NCCL's "
	       "peer-to-peer transport does) without complaint and can then never restore it, not even "
	       "in place; nothing tells such a process apart before its checkpoint. The dump is refused "
	       "before anything is locked and the tree runs on. If none of them imports another's GPU "
	       "memory, set old_driver_trees = allow (CUDASTORE_OLD_DRIVER_TREES=allow); or use driver "
	       "branch %d or newer",
	       root, ncuda, pids, version, CS_IPC_BRANCH_MIN, CS_IPC_BRANCH_MIN);
	return -EPERM;
}

/* the images directory's free bytes into *avail; false, with a warning, when unreadable */
static bool free_space(const struct cs_proc *p, int dirfd, uint64_t *avail)
{
	int ret = cs_imgdir_free_bytes(dirfd, avail);

	if (ret)
		cs_warn("pid %d: cannot read free space of the images directory: %s", p->pid, strerror(-ret));
	return !ret;
}

int cs_dump_plan_check_space(struct cs_ctx *ctx, struct cs_proc *p, int dirfd)
{
	uint64_t avail = 0, need = ctx->dump.planned_bytes + p->dump.bytes_plan;

	if (!ctx->opt.space_check || !p->dump.bytes_plan)
		return 0;
	if (ctx->dump.chunked && ctx->dump.parent.dir >= 0) {
		cs_info("pid %d: a dump with a parent writes only what changed: its new bytes are checked "
			"against the free space once its chunk ids are hashed, before the copy",
			p->pid);
		return 0;
	}
	if (!free_space(p, dirfd, &avail))
		return 0;
	/* images of processes admitted earlier are not written yet: count them against avail */
	if (avail >= need) {
		ctx->dump.planned_bytes = need;
		return 0;
	}
	cs_err("pid %d uses %.2f GiB of GPU memory (%.2f GiB with the processes before it) but the "
	       "images directory has only %.2f GiB free; the process was not touched. Free space, use a "
	       "bigger images directory, or set CUDASTORE_SPACE_CHECK=no if most of its memory is zeros",
	       p->pid, p->dump.bytes_plan / 1073741824.0, need / 1073741824.0, avail / 1073741824.0);
	return -ENOSPC;
}

int cs_dump_plan_check_new_bytes(struct cs_ctx *ctx, const struct cs_proc *p, int dirfd, uint64_t new_bytes,
				 uint64_t total)
{
	uint64_t avail = 0, need;
	char more[64] = "";

	if (!ctx->opt.space_check || !new_bytes)
		return 0;
	if (!free_space(p, dirfd, &avail))
		return 0;
	/* processes of the tree checked before this one may not have written theirs yet */
	pthread_mutex_lock(&ctx->mu);
	need = ctx->dump.claimed_new + new_bytes;
	if (avail >= need)
		ctx->dump.claimed_new = need;
	pthread_mutex_unlock(&ctx->mu);
	if (avail >= need)
		return 0;
	if (need > new_bytes)
		snprintf(more, sizeof(more), " (%.2f GiB with the processes before it)", need / 1073741824.0);
	cs_err("pid %d: %.2f GiB of its %.2f GiB of GPU memory are new since the parent dump%s but the "
	       "images directory has only %.2f GiB free; nothing was written and the process runs on with "
	       "its GPU memory. Free space or use a bigger images directory",
	       p->pid, new_bytes / 1073741824.0, total / 1073741824.0, more, avail / 1073741824.0);
	return -ENOSPC;
}
