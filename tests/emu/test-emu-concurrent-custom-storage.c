// SPDX-License-Identifier: MIT
/*
 * test-emu-concurrent-custom-storage: four emulated processes through a CustomStorage
 * checkpoint (copied out through the mappings, Complete) and restore (copied in, Complete,
 * Unlock), first one after another, then from four caller threads at once, with the driver's
 * per-process rate (CUDASTORE_EMU_RATE_MBPS) set: the checkpoint and restore calls take at
 * least bytes / rate, the four at once take well under the sum of the single-process times,
 * the trace shows the four checkpoints (and restores) in flight together, every image is the
 * process's pattern, and every process verifies every byte afterwards. The buffers are small and
 * the rate low, so that the emulated calls (0.35 s each) and not the copies dominate the times:
 * with 14 MiB at 50 MB/s the copies were a third of each cycle, and on a loaded 2-CPU machine
 * the four at once once took 0.76 of the time one after another had.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"
#include "../workload/workload.h"

#define NAPP  4
#define RATE  12	   /* 10^6 bytes/s */
#define SIZE  (2UL << 20) /* one buffer */
#define USED  (4UL << 20) /* + the 2 MiB-rounded scratch buffer */
#define MIN_S (USED / (RATE * 1e6))
#define SEED0 60

struct job {
	int pid, seed;
	CUresult lock, ckpt, out_complete, restore, in_complete, unlock;
	int saved, loaded; /* emu_cs_save / emu_cs_load */
	unsigned int nent;
	double ckpt_s, restore_s, total_s;
	struct emu_saved img;
};

static struct cs_cuda_ops cu;
/* at once: the caller threads start their checkpoints, then their restores, together, as the
 * helper starts every process's (each thread's copy-out takes its own time before its restore;
 * on a loaded 2-CPU machine the last restore began after the first had ended) */
static pthread_barrier_t *together;

static void checkpoint(struct job *j)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };
	double t = emu_test_now();

	j->ckpt = cu.CheckpointProcessCheckpoint(j->pid, &ca);
	j->ckpt_s = emu_test_now() - t;
	if (!CU_OK(j->ckpt) || !info)
		return;
	j->nent = info->deviceCount;
	j->saved = emu_cs_save(&cu, info, &j->img);
	j->out_complete = cu.CheckpointOperationComplete(info->handle);
}

static void restore(struct job *j)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointRestoreArgs ra = { .customStorageInfo_out = &info };
	double t = emu_test_now();

	j->restore = cu.CheckpointProcessRestore(j->pid, &ra);
	j->restore_s = emu_test_now() - t;
	if (!CU_OK(j->restore) || !info)
		return;
	j->loaded = emu_cs_load(&cu, info, &j->img, NULL, 0);
	j->in_complete = cu.CheckpointOperationComplete(info->handle);
}

static void *cycle(void *arg)
{
	struct job *j = arg;
	double t0 = emu_test_now();

	emu_saved_free(&j->img);
	j->saved = j->loaded = -1;
	j->out_complete = j->restore = j->in_complete = j->unlock = CUDA_ERROR_UNKNOWN;
	j->lock = cu.CheckpointProcessLock(j->pid, NULL);
	if (together)
		pthread_barrier_wait(together);
	if (CU_OK(j->lock))
		checkpoint(j);
	if (together)
		pthread_barrier_wait(together);
	if (CU_OK(j->out_complete))
		restore(j);
	if (CU_OK(j->in_complete))
		j->unlock = cu.CheckpointProcessUnlock(j->pid, NULL);
	j->total_s = emu_test_now() - t0;
	return NULL;
}

static bool job_ok(const struct job *j)
{
	return CU_OK(j->lock) && CU_OK(j->ckpt) && j->nent == 1 && !j->saved && CU_OK(j->out_complete) &&
	       CU_OK(j->restore) && !j->loaded && CU_OK(j->in_complete) && CU_OK(j->unlock);
}

static void job_report(const struct job *j, int i, const char *when)
{
	tap_ok(job_ok(j),
	       "%s: process %d: lock %d, checkpoint %d (%u entries), copy out %d, Complete %d, restore %d, "
	       "copy in %d, Complete %d, unlock %d",
	       when, i, j->lock, j->ckpt, j->nent, j->saved, j->out_complete, j->restore, j->loaded,
	       j->in_complete, j->unlock);
}

/* the copied-out image of process i holds its workload's buffer byte for byte */
static bool image_ok(const struct job *j)
{
	const struct wl_pattern pat = { .seed = (uint64_t)j->seed, .size = SIZE };
	unsigned char *scratch = malloc(1UL << 20);
	bool ok = j->img.n == 1 && j->img.dev[0].size == USED && scratch;

	for (size_t off = 0; ok && off < SIZE; off += 1UL << 20)
		ok = wl_check(&pat, 0, 0, off, j->img.dev[0].data + off, 1UL << 20, scratch) < 0;
	free(scratch);
	return ok;
}

static double one_by_one(struct job *jobs)
{
	double sum = 0;

	for (int i = 0; i < NAPP; i++) {
		cycle(&jobs[i]);
		sum += jobs[i].total_s;
		job_report(&jobs[i], i, "alone");
		tap_ok(jobs[i].ckpt_s >= MIN_S && jobs[i].restore_s >= MIN_S,
		       "alone: process %d: checkpoint %.3f s and restore %.3f s take at least %lu bytes / %d "
		       "MB/s = %.3f s",
		       i, jobs[i].ckpt_s, jobs[i].restore_s, USED, RATE, MIN_S);
	}
	return sum;
}

static void at_once(struct job *jobs, double sum)
{
	pthread_barrier_t b;
	double wall;

	pthread_barrier_init(&b, NULL, NAPP);
	together = &b;
	wall = emu_test_parallel(cycle, jobs, sizeof(jobs[0]), NAPP);
	together = NULL;
	pthread_barrier_destroy(&b);

	for (int i = 0; i < NAPP; i++) {
		job_report(&jobs[i], i, "at once");
		tap_ok(image_ok(&jobs[i]),
		       "at once: process %d: the image copied out is its pattern, byte for byte", i);
	}
	tap_ok(wall > 0 && wall < 0.6 * sum,
	       "at once: %.3f s, well under the %.3f s of one after another (< 0.6 x)", wall, sum);
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_MEM_MB=64", "CUDASTORE_EMU_RATE_MBPS=12", NULL };
	struct emu_app apps[NAPP];
	struct job jobs[NAPP];
	char trace[64], out[512], seed[NAPP][16];
	CUcontext ctx;
	double sum;

	snprintf(trace, sizeof(trace), "/tmp/cs-emu-conc-cs.%d", getpid());
	unlink(trace);
	setenv("CUDASTORE_EMU_TRACE", trace, 1);
	emu_test_setup(env, &cu);
	if (!CU_OK(cu.Init(0)) || !CU_OK(cu.DevicePrimaryCtxRetain(&ctx, 0)))
		tap_bail("cuInit or the primary context failed");
	for (int i = 0; i < NAPP; i++) {
		const char *args[] = { "--buffers", "1", "--size", "2m", "--seed", seed[i], NULL };

		snprintf(seed[i], sizeof(seed[i]), "%d", SEED0 + i);
		if (emu_app_start(&apps[i], NULL, args))
			tap_bail("cannot start workload %d", i);
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].pid = apps[i].pid;
		jobs[i].seed = SEED0 + i;
	}
	sum = one_by_one(jobs);
	at_once(jobs, sum);
	tap_ok(!emu_test_tr_overlap(trace, "cuCheckpointProcessCheckpoint", NAPP),
	       "trace: the %d checkpoint calls were in flight at one moment (tr_overlap)", NAPP);
	tap_ok(!emu_test_tr_overlap(trace, "cuCheckpointProcessRestore", NAPP),
	       "trace: the %d restore calls were in flight at one moment (tr_overlap)", NAPP);
	emu_test_tr_span(trace, "cuMemcpyDtoHAsync");
	for (int i = 0; i < NAPP; i++) {
		tap_ok(emu_app_stop(&apps[i], out, sizeof(out)) == 0 && !strcmp(out, "PASS"),
		       "process %d verified every byte: %s", i, out);
		emu_saved_free(&jobs[i].img);
	}
	unlink(trace);
	tap_plan(tap_n);
	return tap_done();
}
