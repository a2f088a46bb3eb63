// SPDX-License-Identifier: MIT
/*
 * test-emu-ptrace: requests are served by the app's driver thread, so a ptrace-stopped driver
 * thread blocks them (as CRIU's frozen restore thread does) while GetRestoreThreadId still
 * answers; once the thread is let go the pending request completes.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/ptrace.h>
#include <time.h>

#include "emu-test.h"

static struct cs_cuda_ops cu;
static int target;
static volatile int done;
static CUresult helper_res = -1;
static CUprocessState helper_state = (CUprocessState)-1;

static void *helper(void *arg)
{
	helper_res = cu.CheckpointProcessGetState(target, &helper_state);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool wait_done(int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
			return true;
		usleep(10000);
	}
	return __atomic_load_n(&done, __ATOMIC_ACQUIRE);
}

int main(void)
{
	struct emu_app app;
	pthread_t th;
	int tid = 0, tid2 = 0, status;
	char out[256];
	CUresult res;

	emu_test_setup(NULL, &cu);
	if (emu_app_start(&app, NULL, NULL))
		tap_bail("cannot start the workload");
	target = app.pid;
	res = cu.CheckpointProcessGetRestoreThreadId(app.pid, &tid);
	tap_ok(CU_OK(res), "restore thread %d", tid);
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) || ptrace(PTRACE_INTERRUPT, tid, 0, 0) || waitpid(tid, &status, __WALL) != tid)
		tap_bail("cannot ptrace-stop thread %d: %s", tid, strerror(errno));
	tap_ok(WIFSTOPPED(status), "driver thread %d is ptrace-stopped", tid);
	res = cu.CheckpointProcessGetRestoreThreadId(app.pid, &tid2);
	tap_ok(CU_OK(res) && tid2 == tid, "GetRestoreThreadId answers while it is stopped");
	pthread_create(&th, NULL, helper, NULL);
	tap_ok(!wait_done(500), "GetState does not complete within 500 ms while the driver thread is stopped");
	ptrace(PTRACE_DETACH, tid, 0, 0);
	tap_ok(wait_done(3000), "it completes once the thread runs again");
	pthread_join(th, NULL);
	tap_ok(CU_OK(helper_res) && helper_state == CU_PROCESS_STATE_RUNNING, "with RUNNING (%d, %d)", helper_res,
	       helper_state);
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "workload: %s", out);
	tap_plan(tap_n);
	return tap_done();
}
