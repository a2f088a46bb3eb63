// SPDX-License-Identifier: MIT
/*
 * test-emu-faults-per-pid: CUDASTORE_EMU_FAULTS entries qualified with a target pid
 * ("name@PID:N:code") while four caller threads drive four processes through a CustomStorage
 * checkpoint and restore at once: process 1's checkpoint call and process 2's second
 * cuMemcpyDtoHAsync (copying out of its mapping) fail, and no other process's call does;
 * the trace names the target of each failed call; a malformed pid aborts the caller.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"

#define NAPP	4
#define USED	(8UL << 20) /* --buffers 1 --size 6m, plus the scratch buffer */
#define CHUNK	(2UL << 20)
#define NCHUNK	(USED / CHUNK)
#define BAD_CKP 1 /* the process whose checkpoint call fails */
#define BAD_D2H 2 /* the process whose 2nd copy out fails */

struct job {
	int pid;
	CUresult lock, ckpt, out_complete, restore, in_complete, unlock;
	CUresult d2h[NCHUNK], retry[NCHUNK];
	int loaded;
	struct emu_saved img;
};

static struct cs_cuda_ops cu;

/* copies the one entry out chunk by chunk; a failed chunk is tried once more */
static void copy_out(struct job *j, const CUcheckpointCustomStorageInfo *info)
{
	const CUcheckpointCustomStoragePerDeviceData *e = &info->perDeviceData[0];

	j->img.n = 1;
	j->img.dev[0].size = e->size;
	j->img.dev[0].data = malloc(e->size);
	if (emu_entry_uuid(&cu, e->stream, &j->img.dev[0].uuid, NULL))
		return;
	for (size_t c = 0; c < NCHUNK && j->img.dev[0].data; c++) {
		unsigned char *dst = j->img.dev[0].data + c * CHUNK;

		j->d2h[c] = cu.MemcpyDtoHAsync(dst, e->devPtr + c * CHUNK, CHUNK, e->stream);
		if (!CU_OK(j->d2h[c]))
			j->retry[c] = cu.MemcpyDtoHAsync(dst, e->devPtr + c * CHUNK, CHUNK, e->stream);
	}
	cu.StreamSynchronize(e->stream);
}

static void checkpoint(struct job *j)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };

	j->ckpt = cu.CheckpointProcessCheckpoint(j->pid, &ca);
	if (!CU_OK(j->ckpt) || !info || info->deviceCount != 1 || info->perDeviceData[0].size != USED)
		return;
	copy_out(j, info);
	j->out_complete = cu.CheckpointOperationComplete(info->handle);
}

static void restore(struct job *j)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointRestoreArgs ra = { .customStorageInfo_out = &info };

	j->restore = cu.CheckpointProcessRestore(j->pid, &ra);
	if (!CU_OK(j->restore) || !info)
		return;
	j->loaded = emu_cs_load(&cu, info, &j->img, NULL, 0);
	j->in_complete = cu.CheckpointOperationComplete(info->handle);
}

static void *cycle(void *arg)
{
	struct job *j = arg;

	j->lock = cu.CheckpointProcessLock(j->pid, NULL);
	if (CU_OK(j->lock))
		checkpoint(j);
	if (CU_OK(j->out_complete))
		restore(j);
	j->unlock = cu.CheckpointProcessUnlock(j->pid, NULL);
	return NULL;
}

static void job_init(struct job *j, int pid)
{
	memset(j, 0, sizeof(*j));
	j->pid = pid;
	j->loaded = -1;
	j->ckpt = j->out_complete = j->restore = j->in_complete = CUDA_ERROR_UNKNOWN;
	for (size_t c = 0; c < NCHUNK; c++)
		j->d2h[c] = j->retry[c] = CUDA_ERROR_UNKNOWN;
}

static bool copies_were(const struct job *j, CUresult second)
{
	return CU_OK(j->d2h[0]) && j->d2h[1] == second && CU_OK(j->d2h[2]) && CU_OK(j->d2h[3]) &&
	       (CU_OK(second) || CU_OK(j->retry[1]));
}

static void check_job(const struct job *j, int i)
{
	if (i == BAD_CKP) {
		tap_ok(j->ckpt == 999 && CU_OK(j->unlock),
		       "process %d: its checkpoint call got the injected 999 (%d), Unlock still works", i,
		       j->ckpt);
		return;
	}
	tap_ok(CU_OK(j->lock) && CU_OK(j->ckpt), "process %d: lock and checkpoint succeeded (%d %d)", i,
	       j->lock, j->ckpt);
	tap_ok(copies_were(j, i == BAD_D2H ? 700 : CUDA_SUCCESS),
	       "process %d: copies out %d %d %d %d (retry of the 2nd: %d): %s", i, j->d2h[0], j->d2h[1],
	       j->d2h[2], j->d2h[3], j->retry[1],
	       i == BAD_D2H ? "only the 2nd failed, with 700" : "none failed");
	tap_ok(CU_OK(j->out_complete) && CU_OK(j->restore) && !j->loaded && CU_OK(j->in_complete) &&
		   CU_OK(j->unlock),
	       "process %d: Complete, restore, copy in, Complete, Unlock (%d %d %d %d %d)", i,
	       j->out_complete, j->restore, j->loaded, j->in_complete, j->unlock);
}

/* the trace's line of the one call of name that returned code, and its target column */
static void check_trace(const char *trace, const char *name, int code, int want_target)
{
	char line[512], fname[64];
	int n = 0, target = -1, res;
	FILE *f = fopen(trace, "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long b, e;
		int t;

		if (sscanf(line, "%*d %*d %63s %d %llu %llu %d", fname, &res, &b, &e, &t) == 5 &&
		    !strcmp(fname, name) && res == code) {
			n++;
			target = t;
		}
	}
	if (f)
		fclose(f);
	tap_ok(n == 1 && target == want_target,
	       "trace: one %s returned %d, with target %d (%d lines, target %d)", name, code, want_target, n,
	       target);
}

/* a pid qualifier that is not a number aborts the process that reads it */
static void bad_pid_aborts(void)
{
	const char *env[] = { "CUDASTORE_EMU_FAULTS=cuInit@12x:1:2", NULL };
	struct cs_cuda_ops c2;
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		emu_test_setup(env, &c2);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	       "cuInit@12x:1:2 aborts the caller (status %#x)", status);
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_MEM_MB=64", NULL };
	const char *args[] = { "--buffers", "1", "--size", "6m", NULL };
	struct emu_app apps[NAPP];
	struct job jobs[NAPP];
	char trace[64], faults[256], out[512];
	CUcontext ctx;

	bad_pid_aborts();
	snprintf(trace, sizeof(trace), "/tmp/cs-emu-faults-pid.%d", getpid());
	unlink(trace);
	emu_test_setup(env, NULL);
	for (int i = 0; i < NAPP; i++) {
		if (emu_app_start(&apps[i], NULL, args))
			tap_bail("cannot start workload %d", i);
		job_init(&jobs[i], apps[i].pid);
	}
	/* set after the apps started: they must not inherit the caller's faults or trace */
	snprintf(faults, sizeof(faults), "cuCheckpointProcessCheckpoint@%d:1:999,cuMemcpyDtoHAsync@%d:2:700",
		 apps[BAD_CKP].pid, apps[BAD_D2H].pid);
	setenv("CUDASTORE_EMU_FAULTS", faults, 1);
	setenv("CUDASTORE_EMU_TRACE", trace, 1);
	emu_test_setup(NULL, &cu);
	if (!CU_OK(cu.Init(0)) || !CU_OK(cu.DevicePrimaryCtxRetain(&ctx, 0)))
		tap_bail("cuInit or the primary context failed");
	tap_diag("CUDASTORE_EMU_FAULTS=%s", faults);
	if (emu_test_parallel(cycle, jobs, sizeof(jobs[0]), NAPP) < 0)
		tap_bail("cannot start the caller threads");
	for (int i = 0; i < NAPP; i++)
		check_job(&jobs[i], i);
	check_trace(trace, "cuCheckpointProcessCheckpoint", 999, apps[BAD_CKP].pid);
	check_trace(trace, "cuMemcpyDtoHAsync", 700, apps[BAD_D2H].pid);
	for (int i = 0; i < NAPP; i++) {
		tap_ok(emu_app_stop(&apps[i], out, sizeof(out)) == 0 && !strcmp(out, "PASS"),
		       "process %d verified every byte: %s", i, out);
		emu_saved_free(&jobs[i].img);
	}
	unlink(trace);
	tap_plan(tap_n);
	return tap_done();
}
