// SPDX-License-Identifier: MIT
/*
 * cs-driver-timing - time the driver's own checkpoint calls on a running CUDA process, without
 * CRIU or the plugin: lock, driver-managed checkpoint, restore, unlock. The reference the
 * plugin's overhead is measured against (docs/gpu-testing.md).
 *
 *   cs-driver-timing PID      prints "lock S", "checkpoint S", "restore S", "unlock S"
 *   cs-driver-timing --version   prints "driver N custom_storage 0|1"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_ops.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define STEP(name, call)                                                                         \
	do {                                                                                     \
		double t0 = now();                                                               \
		CUresult r = (call);                                                             \
		if (r != CUDA_SUCCESS) {                                                         \
			fprintf(stderr, "%s failed: %s\n", name, cs_cuda_errname(&cu, r));       \
			return 1;                                                                \
		}                                                                                \
		printf("%s %.3f\n", name, now() - t0);                                           \
	} while (0)

int main(int argc, char **argv)
{
	CUcheckpointLockArgs la;
	CUcheckpointCheckpointArgs ca;
	CUcheckpointRestoreArgs ra;
	CUcheckpointUnlockArgs ua;
	struct cs_cuda_ops cu;
	char err[512];
	int pid, tid;

	if (argc != 2)
		return 2;
	if (cs_cuda_load(&cu, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 77;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("driver %d custom_storage %d\n", cu.driver_version, cu.has_custom_storage);
		return 0;
	}
	pid = atoi(argv[1]);
	if (!cu.has_checkpoint || cu.CheckpointProcessGetRestoreThreadId(pid, &tid) != CUDA_SUCCESS) {
		fprintf(stderr, "pid %d: no checkpoint API or not a CUDA process\n", pid);
		return 1;
	}
	memset(&la, 0, sizeof(la));
	memset(&ca, 0, sizeof(ca));
	memset(&ra, 0, sizeof(ra));
	memset(&ua, 0, sizeof(ua));
	printf("driver %d\n", cu.driver_version);
	STEP("lock", cu.CheckpointProcessLock(pid, &la));
	STEP("checkpoint", cu.CheckpointProcessCheckpoint(pid, &ca));
	STEP("restore", cu.CheckpointProcessRestore(pid, &ra));
	STEP("unlock", cu.CheckpointProcessUnlock(pid, &ua));
	return 0;
}
