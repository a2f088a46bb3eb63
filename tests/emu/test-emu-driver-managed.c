// SPDX-License-Identifier: MIT
/*
 * test-emu-driver-managed: the driver-managed path (args NULL) from a caller that never calls
 * cuInit: device memory leaves the app's mappings at checkpoint (memfds gone, data in the
 * app's own anonymous memory), comes back at the same addresses on restore, twice in a row,
 * on two devices, and the app verifies every byte afterwards.
 */
#include <string.h>

#include "emu-test.h"

static struct cs_cuda_ops cu;

static void one_cycle(int pid, int round)
{
	CUprocessState st = (CUprocessState)-1;
	char name[64];
	size_t bytes;
	int n;

	tap_ok(CU_OK(cu.CheckpointProcessLock(pid, NULL)), "round %d: Lock", round);
	tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(pid, NULL)), "round %d: driver-managed checkpoint", round);
	n = emu_app_maps(pid, &bytes, 0, NULL, 0);
	tap_ok(n == 0, "round %d: no device mappings left in the app (%d)", round, n);
	cu.CheckpointProcessGetState(pid, &st);
	tap_ok(st == CU_PROCESS_STATE_CHECKPOINTED, "round %d: CHECKPOINTED (%d)", round, st);
	tap_ok(CU_OK(cu.CheckpointProcessRestore(pid, NULL)), "round %d: driver-managed restore", round);
	n = emu_app_maps(pid, &bytes, EMU_VA_BASE, name, sizeof(name));
	tap_ok(n == 2 && bytes == 2 * (10UL << 20) && name[0], "round %d: memory back at the same addresses (%d maps, %zu bytes, %s)",
	       round, n, bytes, name);
	tap_ok(CU_OK(cu.CheckpointProcessUnlock(pid, NULL)), "round %d: Unlock", round);
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=2", "CUDASTORE_EMU_MEM_MB=64", NULL };
	const char *args[] = { "--devices", "2", "--buffers", "2", "--size", "4m", "--seed", "99", NULL };
	struct emu_app app;
	char out[512];
	int tid = 0;
	CUresult res;

	emu_test_setup(env, &cu);
	if (emu_app_start(&app, NULL, args))
		tap_bail("cannot start the workload");
	res = cu.CheckpointProcessGetRestoreThreadId(app.pid, &tid);
	tap_ok(CU_OK(res) && tid != app.pid, "restore thread %d found without cuInit in the caller", tid);
	one_cycle(app.pid, 1);
	usleep(200000);
	one_cycle(app.pid, 2);
	usleep(200000);
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "workload verified its data: %s", out);
	tap_plan(tap_n);
	return tap_done();
}
