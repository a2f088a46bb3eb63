// SPDX-License-Identifier: MIT
/*
 * test-emu-concurrent-driver-managed: four emulated processes checkpointed and restored
 * driver-managed, first one after another, then from four caller threads at once, with the
 * driver's per-process rate (CUDASTORE_EMU_RATE_MBPS) set: each checkpoint and restore takes
 * at least its bytes / rate, the four at once take well under the sum of the single-process
 * times, the trace shows the four checkpoints (and restores) in flight together, and every
 * process verifies every byte afterwards.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "emu-test.h"

#define NAPP  4
#define RATE  50	   /* 10^6 bytes/s */
#define USED  (16UL << 20) /* --buffers 1 --size 14m: 14 MiB + the 2 MiB-rounded scratch buffer */
#define MIN_S (USED / (RATE * 1e6))

struct job {
	int pid;
	CUresult lock, ckpt, restore, unlock;
	double ckpt_s, restore_s, total_s;
};

static struct cs_cuda_ops cu;
/* at once: the caller threads start their checkpoints, then their restores, together, as the
 * helper starts every process's (on a loaded 2-CPU machine one checkpoint ran 0.4 s late, and
 * its restore began after the first restore had ended) */
static pthread_barrier_t *together;

static void *cycle(void *arg)
{
	struct job *j = arg;
	double t0 = emu_test_now(), t;

	j->lock = cu.CheckpointProcessLock(j->pid, NULL);
	if (together)
		pthread_barrier_wait(together);
	t = emu_test_now();
	j->ckpt = cu.CheckpointProcessCheckpoint(j->pid, NULL);
	j->ckpt_s = emu_test_now() - t;
	if (together)
		pthread_barrier_wait(together);
	t = emu_test_now();
	j->restore = cu.CheckpointProcessRestore(j->pid, NULL);
	j->restore_s = emu_test_now() - t;
	j->unlock = cu.CheckpointProcessUnlock(j->pid, NULL);
	j->total_s = emu_test_now() - t0;
	return NULL;
}

static bool job_ok(const struct job *j)
{
	return CU_OK(j->lock) && CU_OK(j->ckpt) && CU_OK(j->restore) && CU_OK(j->unlock);
}

/* one process at a time: the single-process times, each at least bytes / rate */
static double one_by_one(struct job *jobs)
{
	double sum = 0;

	for (int i = 0; i < NAPP; i++) {
		cycle(&jobs[i]);
		sum += jobs[i].total_s;
		tap_ok(job_ok(&jobs[i]), "alone: process %d: lock, checkpoint, restore, unlock (%d %d %d %d)",
		       i, jobs[i].lock, jobs[i].ckpt, jobs[i].restore, jobs[i].unlock);
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
	bool ok = true;

	pthread_barrier_init(&b, NULL, NAPP);
	together = &b;
	wall = emu_test_parallel(cycle, jobs, sizeof(jobs[0]), NAPP);
	together = NULL;
	pthread_barrier_destroy(&b);

	for (int i = 0; i < NAPP; i++)
		ok &= job_ok(&jobs[i]);
	tap_ok(ok, "at once: every thread's lock, checkpoint, restore and unlock succeeded");
	tap_ok(wall > 0 && wall < 0.6 * sum,
	       "at once: %.3f s, well under the %.3f s of one after another (< 0.6 x)", wall, sum);
	tap_ok(wall >= 2 * MIN_S,
	       "at once: still at least one process's checkpoint and restore (%.3f s >= %.3f s)", wall,
	       2 * MIN_S);
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_MEM_MB=64", "CUDASTORE_EMU_RATE_MBPS=50", NULL };
	struct emu_app apps[NAPP];
	struct job jobs[NAPP];
	char trace[64], out[512], seed[NAPP][16];
	double sum;

	snprintf(trace, sizeof(trace), "/tmp/cs-emu-conc-dm.%d", getpid());
	unlink(trace);
	setenv("CUDASTORE_EMU_TRACE", trace, 1);
	emu_test_setup(env, &cu);
	for (int i = 0; i < NAPP; i++) {
		const char *args[] = { "--buffers", "1", "--size", "14m", "--seed", seed[i], NULL };

		snprintf(seed[i], sizeof(seed[i]), "%d", 40 + i);
		if (emu_app_start(&apps[i], NULL, args))
			tap_bail("cannot start workload %d", i);
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].pid = apps[i].pid;
	}
	sum = one_by_one(jobs);
	tap_ok(emu_test_tr_overlap(trace, "cuCheckpointProcessCheckpoint", 2) != 0,
	       "alone: no two checkpoints overlapped (tr_overlap can fail)");
	at_once(jobs, sum);
	tap_ok(!emu_test_tr_overlap(trace, "cuCheckpointProcessCheckpoint", NAPP),
	       "trace: the %d checkpoint calls were in flight at one moment (tr_overlap)", NAPP);
	tap_ok(!emu_test_tr_overlap(trace, "cuCheckpointProcessRestore", NAPP),
	       "trace: the %d restore calls were in flight at one moment (tr_overlap)", NAPP);
	emu_test_tr_span(trace, "cuCheckpointProcessCheckpoint");
	for (int i = 0; i < NAPP; i++)
		tap_ok(emu_app_stop(&apps[i], out, sizeof(out)) == 0 && !strcmp(out, "PASS"),
		       "process %d verified every byte: %s", i, out);
	unlink(trace);
	tap_plan(tap_n);
	return tap_done();
}
