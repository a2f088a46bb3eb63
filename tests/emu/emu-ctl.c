// SPDX-License-Identifier: MIT
/*
 * emu-ctl: drive the checkpoint API of whatever libcuda cs_cuda_load finds, from the shell
 * (a tiny cuda-checkpoint for tests and debugging):
 *   emu-ctl tid|state|lock|unlock|checkpoint|restore PID [TIMEOUT_MS]
 * checkpoint/restore are driver-managed. Prints the result; exit 0 on CUDA_SUCCESS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"

int main(int argc, char **argv)
{
	CUcheckpointLockArgs la = { 0 };
	struct cs_cuda_ops cu;
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	CUresult res;
	char err[256];
	int pid, tid = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: emu-ctl tid|state|lock|unlock|checkpoint|restore PID [TIMEOUT_MS]\n");
		return 2;
	}
	if (cs_cuda_load(&cu, NULL, err, sizeof(err)) || !cu.has_checkpoint) {
		fprintf(stderr, "emu-ctl: %s\n", err[0] ? err : "no checkpoint API");
		return 2;
	}
	pid = atoi(argv[2]);
	la.timeoutMs = argc > 3 ? (unsigned int)atoi(argv[3]) : 0;
	if (!strcmp(argv[1], "tid"))
		res = cu.CheckpointProcessGetRestoreThreadId(pid, &tid);
	else if (!strcmp(argv[1], "state"))
		res = cu.CheckpointProcessGetState(pid, &st);
	else if (!strcmp(argv[1], "lock"))
		res = cu.CheckpointProcessLock(pid, &la);
	else if (!strcmp(argv[1], "unlock"))
		res = cu.CheckpointProcessUnlock(pid, NULL);
	else if (!strcmp(argv[1], "checkpoint"))
		res = cu.CheckpointProcessCheckpoint(pid, NULL);
	else if (!strcmp(argv[1], "restore"))
		res = cu.CheckpointProcessRestore(pid, NULL);
	else {
		fprintf(stderr, "emu-ctl: unknown action %s\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[1], "tid") && res == CUDA_SUCCESS)
		printf("%d\n", tid);
	else if (!strcmp(argv[1], "state") && res == CUDA_SUCCESS)
		printf("%d\n", st);
	else
		printf("%s\n", cs_cuda_errname(&cu, res));
	return res == CUDA_SUCCESS ? 0 : 1;
}
