// SPDX-License-Identifier: MIT
/*
 * test-emu-faults: CUDASTORE_EMU_FAULTS (Nth call / Nth and later, app and caller side),
 * CUDASTORE_EMU_DELAY (a busy app makes a Lock with a timeout fail and stay RUNNING),
 * CUDASTORE_EMU_ABORT (the app dies while serving a checkpoint) and CUDASTORE_EMU_TRACE.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu-test.h"

static struct cs_cuda_ops cu;
static char trace[64];

static void nth_call_faults(void)
{
	CUdeviceptr p[3] = { 0 };
	CUcontext ctx;
	CUresult r[5];
	char buf[16];

	tap_ok(cu.Init(0) == CUDA_ERROR_NO_DEVICE, "cuInit:1:100: first cuInit returns 100");
	tap_ok(CU_OK(cu.Init(0)), "second cuInit succeeds");
	cu.DevicePrimaryCtxRetain(&ctx, 0);
	cu.CtxSetCurrent(ctx);
	r[0] = cu.MemAlloc(&p[0], 4096);
	r[1] = cu.MemAlloc(&p[1], 4096);
	r[2] = cu.MemAlloc(&p[2], 4096);
	tap_ok(CU_OK(r[0]) && r[1] == CUDA_ERROR_OUT_OF_MEMORY && !p[1] && CU_OK(r[2]),
	       "cuMemAlloc:2:2: only the 2nd call fails (%d %d %d)", r[0], r[1], r[2]);
	for (int i = 0; i < 5; i++)
		r[i] = cu.MemcpyDtoH(buf, p[0], sizeof(buf));
	tap_ok(CU_OK(r[0]) && CU_OK(r[1]) && r[2] == 700 && r[3] == 700 && r[4] == 700,
	       "cuMemcpyDtoH:3+:700: 3rd and later calls fail (%d %d %d %d %d)", r[0], r[1], r[2], r[3], r[4]);
}

static void caller_fault_and_trace(void)
{
	struct emu_app app;
	char line[256], want_drv[64], want_api[96];
	bool drv = false, api = false;
	CUprocessState st = (CUprocessState)-1;
	CUresult res;
	FILE *f;

	if (emu_app_start(&app, NULL, NULL)) {
		tap_ok(0, "start the workload");
		return;
	}
	res = cu.CheckpointProcessLock(app.pid, NULL);
	cu.CheckpointProcessGetState(app.pid, &st);
	tap_ok(res == CUDA_ERROR_OPERATING_SYSTEM && st == CU_PROCESS_STATE_RUNNING,
	       "cuCheckpointProcessLock:1:304 fails in the caller without reaching the app (%d, state %d)", res, st);
	tap_ok(CU_OK(cu.CheckpointProcessLock(app.pid, NULL)) && CU_OK(cu.CheckpointProcessUnlock(app.pid, NULL)),
	       "second Lock reaches the app");
	snprintf(want_drv, sizeof(want_drv), "%d ", app.pid);
	snprintf(want_api, sizeof(want_api), "%d ", getpid());
	emu_app_stop(&app, line, sizeof(line));
	f = fopen(trace, "r");
	while (f && fgets(line, sizeof(line), f)) {
		drv |= !strncmp(line, want_drv, strlen(want_drv)) && strstr(line, " drv:lock 0");
		api |= !strncmp(line, want_api, strlen(want_api)) && strstr(line, " cuCheckpointProcessLock 304");
	}
	if (f)
		fclose(f);
	tap_ok(drv, "trace has the app's driver-thread line \"drv:lock 0\"");
	tap_ok(api, "trace has the caller's line \"cuCheckpointProcessLock 304\"");
}

static void delay_makes_lock_time_out(void)
{
	const char *env[] = { "CUDASTORE_EMU_DELAY=cuMemcpyHtoD:800", NULL };
	const char *args[] = { "--size", "1m", NULL };
	CUcheckpointLockArgs la = { .timeoutMs = 150 };
	CUprocessState st = (CUprocessState)-1;
	struct emu_app app;
	char out[256];
	CUresult res = CUDA_SUCCESS;

	if (emu_app_start(&app, env, args)) {
		tap_ok(0, "start the delayed workload");
		return;
	}
	/*
	 * The app spends ~99% of its time inside a delayed call; retry if we hit the gap. After an
	 * unlock give the app 100 ms to get back into its delayed call: an immediate retry can beat
	 * the app's blocked thread to the gate again and again on a loaded machine.
	 */
	for (int i = 0; i < 10; i++) {
		res = cu.CheckpointProcessLock(app.pid, &la);
		if (res != CUDA_SUCCESS)
			break;
		cu.CheckpointProcessUnlock(app.pid, NULL);
		usleep(100 * 1000);
	}
	cu.CheckpointProcessGetState(app.pid, &st);
	tap_ok(res == CUDA_ERROR_NOT_READY && st == CU_PROCESS_STATE_RUNNING,
	       "Lock with timeoutMs=150 on a busy app: NOT_READY, still RUNNING (%d, state %d)", res, st);
	tap_ok(CU_OK(cu.CheckpointProcessLock(app.pid, NULL)), "Lock without timeout waits for the call to end");
	cu.CheckpointProcessGetState(app.pid, &st);
	tap_ok(st == CU_PROCESS_STATE_LOCKED && CU_OK(cu.CheckpointProcessUnlock(app.pid, NULL)), "LOCKED, then Unlock");
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "delayed workload: %s", out);
}

static void abort_in_checkpoint(void)
{
	const char *env[] = { "CUDASTORE_EMU_ABORT=checkpoint", NULL };
	struct emu_app app;
	CUresult res;
	int status;

	if (emu_app_start(&app, env, NULL)) {
		tap_ok(0, "start the aborting workload");
		return;
	}
	tap_ok(CU_OK(cu.CheckpointProcessLock(app.pid, NULL)), "Lock before the abort");
	res = cu.CheckpointProcessCheckpoint(app.pid, NULL);
	tap_ok(res == CUDA_ERROR_UNKNOWN, "checkpoint of an app that dies mid-request: UNKNOWN (%d)", res);
	status = emu_app_wait(&app, 5000);
	tap_ok(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the app died of SIGKILL");
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_FAULTS=cuInit:1:100,cuMemAlloc:2:2,cuMemcpyDtoH:3+:700,"
			      "cuCheckpointProcessLock:1:304",
			      NULL };

	snprintf(trace, sizeof(trace), "/tmp/cs-emu-trace.%d", getpid());
	setenv("CUDASTORE_EMU_TRACE", trace, 1);
	emu_test_setup(env, &cu);
	nth_call_faults();
	/* apps must not inherit the caller's faults */
	unsetenv("CUDASTORE_EMU_FAULTS");
	caller_fault_and_trace();
	unsetenv("CUDASTORE_EMU_TRACE");
	delay_makes_lock_time_out();
	abort_in_checkpoint();
	unlink(trace);
	tap_plan(tap_n);
	return tap_done();
}
