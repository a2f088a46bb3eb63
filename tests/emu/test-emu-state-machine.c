// SPDX-License-Identifier: MIT
/* test-emu-state-machine: every checkpoint state transition and every documented error code. */
#include <signal.h>
#include <string.h>

#include "emu-test.h"

static struct cs_cuda_ops cu;

static CUprocessState state_of(int pid)
{
	CUprocessState st = (CUprocessState)-1;

	if (!CU_OK(cu.CheckpointProcessGetState(pid, &st)))
		return (CUprocessState)-1;
	return st;
}

static void check_state(int pid, CUprocessState want, const char *when)
{
	CUprocessState st = state_of(pid);

	tap_ok(st == want, "%s: state %d (want %d)", when, st, want);
}

static void non_cuda_pids(void)
{
	int tid = 0;
	CUprocessState st;
	pid_t sleeper = fork();

	if (sleeper == 0) {
		pause();
		_exit(0);
	}
	tap_ok(cu.CheckpointProcessGetRestoreThreadId(getpid(), &tid) == CUDA_ERROR_NOT_INITIALIZED,
	       "GetRestoreThreadId of a process without cuInit: NOT_INITIALIZED");
	tap_ok(cu.CheckpointProcessGetRestoreThreadId(sleeper, &tid) == CUDA_ERROR_NOT_INITIALIZED,
	       "GetRestoreThreadId of a CPU-only child: NOT_INITIALIZED");
	tap_ok(cu.CheckpointProcessGetState(sleeper, &st) == CUDA_ERROR_NOT_INITIALIZED,
	       "GetState of a CPU-only child: NOT_INITIALIZED");
	tap_ok(cu.CheckpointProcessGetState(0x3ffffff0, &st) == CUDA_ERROR_INVALID_VALUE,
	       "GetState of a pid that does not exist: INVALID_VALUE");
	tap_ok(cu.CheckpointProcessGetRestoreThreadId(1234, NULL) == CUDA_ERROR_INVALID_VALUE,
	       "GetRestoreThreadId with tid NULL: INVALID_VALUE");
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
}

static void running_errors(int pid)
{
	CUcheckpointLockArgs la = { 0 };
	CUcheckpointUnlockArgs ua = { 0 };
	CUcheckpointCheckpointArgs ca = { 0 };
	CUcheckpointCustomStorageInfo *info = NULL;

	check_state(pid, CU_PROCESS_STATE_RUNNING, "after start");
	tap_ok(cu.CheckpointProcessGetState(pid, NULL) == CUDA_ERROR_INVALID_VALUE, "GetState(NULL): INVALID_VALUE");
	ca.customStorageInfo_out = &info;
	tap_ok(cu.CheckpointProcessCheckpoint(pid, &ca) == CUDA_ERROR_NOT_INITIALIZED,
	       "CustomStorage checkpoint without cuInit in the caller: NOT_INITIALIZED");
	tap_ok(cu.CheckpointProcessUnlock(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Unlock when RUNNING: ILLEGAL_STATE");
	tap_ok(cu.CheckpointProcessCheckpoint(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE,
	       "Checkpoint when RUNNING: ILLEGAL_STATE");
	tap_ok(cu.CheckpointProcessRestore(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Restore when RUNNING: ILLEGAL_STATE");
	la.reserved0 = 1;
	tap_ok(cu.CheckpointProcessLock(pid, &la) == CUDA_ERROR_INVALID_VALUE, "Lock with reserved0 != 0: INVALID_VALUE");
	la.reserved0 = 0;
	la.reserved1[6] = 1;
	tap_ok(cu.CheckpointProcessLock(pid, &la) == CUDA_ERROR_INVALID_VALUE, "Lock with reserved1 != 0: INVALID_VALUE");
	ua.reserved[3] = 1;
	tap_ok(cu.CheckpointProcessUnlock(pid, &ua) == CUDA_ERROR_INVALID_VALUE, "Unlock with reserved != 0: INVALID_VALUE");
	check_state(pid, CU_PROCESS_STATE_RUNNING, "after refused calls");
}

static void locked_errors(int pid)
{
	CUcheckpointLockArgs la = { .timeoutMs = 5000 };
	CUcheckpointCheckpointArgs ca = { 0 };
	int fake;

	tap_ok(CU_OK(cu.CheckpointProcessLock(pid, &la)), "Lock with a timeout");
	check_state(pid, CU_PROCESS_STATE_LOCKED, "after Lock");
	tap_ok(cu.CheckpointProcessLock(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Lock when LOCKED: ILLEGAL_STATE");
	tap_ok(cu.CheckpointProcessRestore(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Restore when LOCKED: ILLEGAL_STATE");
	tap_ok(cu.CheckpointOperationComplete((CUcheckpointOperationHandle)&fake) == CUDA_ERROR_INVALID_VALUE,
	       "Complete with a bogus handle: INVALID_VALUE");
	ca.reserved[10] = 1;
	tap_ok(cu.CheckpointProcessCheckpoint(pid, &ca) == CUDA_ERROR_INVALID_VALUE,
	       "Checkpoint with reserved bytes set: INVALID_VALUE");
	check_state(pid, CU_PROCESS_STATE_LOCKED, "after refused calls");
}

static void custom_cycle(int pid)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };
	CUcheckpointRestoreArgs ra = { .customStorageInfo_out = &info };
	CUcheckpointOperationHandle h;
	struct emu_saved saved;
	CUcontext c0, c1;
	size_t bytes;

	tap_ok(CU_OK(cu.Init(0)), "cuInit in the caller");
	tap_ok(cu.CheckpointProcessCheckpoint(getpid(), &ca) == CUDA_ERROR_INVALID_VALUE,
	       "CustomStorage checkpoint of the caller itself: INVALID_VALUE");
	tap_ok(cu.CheckpointProcessCheckpoint(pid, &ca) == CUDA_ERROR_INVALID_CONTEXT,
	       "CustomStorage checkpoint without retained contexts: INVALID_CONTEXT");
	cu.DevicePrimaryCtxRetain(&c0, 0);
	tap_ok(cu.CheckpointProcessCheckpoint(pid, &ca) == CUDA_ERROR_INVALID_CONTEXT,
	       "... with device 1's context missing: INVALID_CONTEXT");
	check_state(pid, CU_PROCESS_STATE_LOCKED, "after INVALID_CONTEXT");
	cu.DevicePrimaryCtxRetain(&c1, 1);
	tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(pid, &ca)) && info && info->deviceCount == 2,
	       "CustomStorage checkpoint with both contexts: 2 entries");
	if (!info)
		return;
	check_state(pid, CU_PROCESS_STATE_CHECKPOINTING, "after CustomStorage checkpoint");
	tap_ok(cu.CheckpointProcessUnlock(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Unlock when CHECKPOINTING");
	tap_ok(cu.CheckpointProcessCheckpoint(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Checkpoint when CHECKPOINTING");
	tap_ok(cu.CheckpointProcessRestore(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Restore when CHECKPOINTING");
	tap_ok(!emu_cs_save(&cu, info, &saved), "copy the mappings out");
	h = info->handle;
	tap_ok(CU_OK(cu.CheckpointOperationComplete(h)), "Complete");
	check_state(pid, CU_PROCESS_STATE_CHECKPOINTED, "after Complete");
	tap_ok(emu_app_maps(pid, &bytes, 0, NULL, 0) == 0, "no device memory mapped in the app when CHECKPOINTED");
	tap_ok(cu.CheckpointOperationComplete(h) == CUDA_ERROR_INVALID_VALUE, "second Complete: INVALID_VALUE");
	tap_ok(cu.CheckpointProcessUnlock(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Unlock when CHECKPOINTED");
	tap_ok(cu.CheckpointProcessLock(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Lock when CHECKPOINTED");
	tap_ok(cu.CheckpointProcessRestore(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE,
	       "driver-managed Restore of a CustomStorage checkpoint: ILLEGAL_STATE");
	ra.padding0 = 1;
	tap_ok(cu.CheckpointProcessRestore(pid, &ra) == CUDA_ERROR_INVALID_VALUE, "Restore with padding0 != 0");
	ra.padding0 = 0;
	ra.gpuPairsCount = 1;
	tap_ok(cu.CheckpointProcessRestore(pid, &ra) == CUDA_ERROR_INVALID_VALUE, "Restore with pairs count but NULL");
	ra.gpuPairsCount = 0;
	ra.reserved[39] = 1;
	tap_ok(cu.CheckpointProcessRestore(pid, &ra) == CUDA_ERROR_INVALID_VALUE, "Restore with reserved bytes set");
	ra.reserved[39] = 0;
	info = NULL;
	tap_ok(CU_OK(cu.CheckpointProcessRestore(pid, &ra)) && info && info->deviceCount == 2, "CustomStorage restore");
	if (!info)
		return;
	check_state(pid, CU_PROCESS_STATE_RESTORING, "after CustomStorage restore");
	tap_ok(cu.CheckpointProcessUnlock(pid, NULL) == CUDA_ERROR_ILLEGAL_STATE, "Unlock when RESTORING");
	tap_ok(!emu_cs_load(&cu, info, &saved, NULL, 0), "copy the data back in");
	tap_ok(CU_OK(cu.CheckpointOperationComplete(info->handle)), "Complete after restore");
	check_state(pid, CU_PROCESS_STATE_LOCKED, "after restore Complete");
	tap_ok(emu_app_maps(pid, &bytes, 0, NULL, 0) == 2, "device memory mapped again in the app");
	tap_ok(CU_OK(cu.CheckpointProcessUnlock(pid, NULL)), "Unlock");
	check_state(pid, CU_PROCESS_STATE_RUNNING, "after Unlock");
	emu_saved_free(&saved);
}

static void driver_managed_cycle(int pid)
{
	tap_ok(CU_OK(cu.CheckpointProcessLock(pid, NULL)), "Lock (no args)");
	tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(pid, NULL)), "driver-managed checkpoint (args NULL)");
	check_state(pid, CU_PROCESS_STATE_CHECKPOINTED, "after driver-managed checkpoint");
	tap_ok(CU_OK(cu.CheckpointProcessRestore(pid, NULL)), "driver-managed restore");
	check_state(pid, CU_PROCESS_STATE_LOCKED, "after driver-managed restore");
	tap_ok(CU_OK(cu.CheckpointProcessUnlock(pid, NULL)), "Unlock");
	check_state(pid, CU_PROCESS_STATE_RUNNING, "after Unlock");
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=2", "CUDASTORE_EMU_MEM_MB=64", NULL };
	const char *args[] = { "--devices", "2", "--size", "3m", NULL };
	struct emu_app app;
	char out[512];
	CUresult res;
	int tid = 0;

	emu_test_setup(env, &cu);
	non_cuda_pids();
	if (emu_app_start(&app, NULL, args))
		tap_bail("cannot start the workload");
	res = cu.CheckpointProcessGetRestoreThreadId(app.pid, &tid);
	tap_ok(CU_OK(res) && tid > app.pid, "GetRestoreThreadId finds the driver thread (tid %d)", tid);
	running_errors(app.pid);
	locked_errors(app.pid);
	custom_cycle(app.pid);
	driver_managed_cycle(app.pid);
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "workload verified its data: %s", out);
	tap_plan(tap_n);
	return tap_done();
}
