// SPDX-License-Identifier: MIT
/*
 * test-emu-gpu-pairs: restore onto other GPUs. The caller sees GPUs A,B,C,D. An app on A,B is
 * restored onto D,C with gpuPairs (CustomStorage); a map that misses a device is refused; a
 * single GPU E the caller does not have goes to the caller's GPU of the same ordinal without a
 * map; two unknown GPUs without a map are refused, and with a map restored. The app reports
 * the new UUIDs (memfd names) and verifies its data.
 */
#include <string.h>

#include "emu-test.h"

#define U_A "GPU-aaaaaaaa-0000-0000-0000-000000000001"
#define U_B "GPU-bbbbbbbb-0000-0000-0000-000000000002"
#define U_C "GPU-cccccccc-0000-0000-0000-000000000003"
#define U_D "GPU-dddddddd-0000-0000-0000-000000000004"
#define U_E "GPU-eeeeeeee-0000-0000-0000-000000000005"
#define U_F "GPU-ffffffff-0000-0000-0000-000000000006"
#define U_Z "GPU-99999999-0000-0000-0000-000000000009"
#define DEV0 EMU_VA_BASE
#define DEV1 (EMU_VA_BASE + EMU_VA_STRIDE)

static struct cs_cuda_ops cu;

static CUcheckpointGpuPair pair(const char *from, const char *to)
{
	CUcheckpointGpuPair p;

	cs_uuid_parse(from, &p.oldUuid);
	cs_uuid_parse(to, &p.newUuid);
	return p;
}

static bool maps_named(int pid, unsigned long addr, const char *uuid)
{
	char name[64];
	size_t bytes;

	emu_app_maps(pid, &bytes, addr, name, sizeof(name));
	if (strcmp(name, uuid))
		printf("# mapping at %#lx is named \"%s\", want \"%s\"\n", addr, name, uuid);
	return !strcmp(name, uuid);
}

static void finish(struct emu_app *app, const char *what)
{
	char out[512];

	tap_ok(CU_OK(cu.CheckpointProcessUnlock(app->pid, NULL)), "%s: Unlock", what);
	usleep(200000);
	tap_ok(emu_app_stop(app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "%s: workload %s", what, out);
}

static void custom_with_map(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=2", "CUDASTORE_EMU_UUIDS=" U_A "," U_B, NULL };
	const char *args[] = { "--devices", "2", "--size", "2m", NULL };
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };
	CUcheckpointGpuPair pairs[2] = { pair(U_A, U_D), pair(U_B, U_C) };
	CUcheckpointRestoreArgs ra = { .gpuPairs = pairs, .gpuPairsCount = 1, .customStorageInfo_out = &info };
	struct emu_saved saved = { 0 };
	CUresult res;
	struct emu_app app;

	if (emu_app_start(&app, env, args)) {
		tap_ok(0, "start an app on A,B");
		return;
	}
	cu.CheckpointProcessLock(app.pid, NULL);
	tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(app.pid, &ca)) && info && info->deviceCount == 2 &&
		       !emu_cs_save(&cu, info, &saved) && CU_OK(cu.CheckpointOperationComplete(info->handle)),
	       "A,B: CustomStorage checkpoint");
	res = cu.CheckpointProcessRestore(app.pid, &ra);
	tap_ok(res == CUDA_ERROR_INVALID_VALUE, "gpuPairs without B: INVALID_VALUE (%d)", res);
	info = NULL;
	ra.gpuPairsCount = 2;
	res = cu.CheckpointProcessRestore(app.pid, &ra);
	tap_ok(CU_OK(res) && info && info->deviceCount == 2, "gpuPairs A->D, B->C: CustomStorage restore");
	if (info) {
		bool dest_ok = true;

		for (unsigned int i = 0; i < info->deviceCount; i++) {
			CUuuid u, c, d;

			emu_entry_uuid(&cu, info->perDeviceData[i].stream, &u, NULL);
			cs_uuid_parse(U_C, &c);
			cs_uuid_parse(U_D, &d);
			dest_ok &= emu_uuid_eq(&u, &c) || emu_uuid_eq(&u, &d);
		}
		tap_ok(dest_ok, "restore entries are on C and D");
		tap_ok(!emu_cs_load(&cu, info, &saved, pairs, 2), "data copied by source UUID through the pairs");
		tap_ok(CU_OK(cu.CheckpointOperationComplete(info->handle)), "Complete");
	}
	tap_ok(maps_named(app.pid, DEV0, U_D) && maps_named(app.pid, DEV1, U_C), "app device 0 is now D, device 1 is C");
	finish(&app, "A,B -> D,C");
	emu_saved_free(&saved);
}

static void single_without_map(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=1", "CUDASTORE_EMU_UUIDS=" U_E, NULL };
	const char *args[] = { "--size", "2m", NULL };
	struct emu_app app;

	if (emu_app_start(&app, env, args)) {
		tap_ok(0, "start an app on E");
		return;
	}
	cu.CheckpointProcessLock(app.pid, NULL);
	tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(app.pid, NULL)), "E: driver-managed checkpoint");
	tap_ok(CU_OK(cu.CheckpointProcessRestore(app.pid, NULL)), "E (unknown to the caller), no map: restored");
	tap_ok(maps_named(app.pid, DEV0, U_A), "single GPU E moved to the caller's device 0 (A)");
	finish(&app, "E -> A");
}

static void two_unknown(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=2", "CUDASTORE_EMU_UUIDS=" U_E "," U_F, NULL };
	const char *args[] = { "--devices", "2", "--size", "2m", NULL };
	CUcheckpointGpuPair pairs[2] = { pair(U_E, U_C), pair(U_F, U_Z) };
	CUcheckpointRestoreArgs ra = { .gpuPairs = pairs, .gpuPairsCount = 2 };
	struct emu_app app;
	CUresult res;

	if (emu_app_start(&app, env, args)) {
		tap_ok(0, "start an app on E,F");
		return;
	}
	cu.CheckpointProcessLock(app.pid, NULL);
	tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(app.pid, NULL)), "E,F: driver-managed checkpoint");
	res = cu.CheckpointProcessRestore(app.pid, NULL);
	tap_ok(res == CUDA_ERROR_INVALID_DEVICE, "two unknown GPUs, no map: INVALID_DEVICE (%d)", res);
	res = cu.CheckpointProcessRestore(app.pid, &ra);
	tap_ok(res == CUDA_ERROR_INVALID_DEVICE, "map onto a GPU the caller lacks: INVALID_DEVICE (%d)", res);
	pairs[1] = pair(U_F, U_C);
	res = cu.CheckpointProcessRestore(app.pid, &ra);
	tap_ok(res == CUDA_ERROR_INVALID_VALUE, "two GPUs mapped onto one: INVALID_VALUE (%d)", res);
	pairs[1] = pair(U_F, U_D);
	res = cu.CheckpointProcessRestore(app.pid, &ra);
	tap_ok(CU_OK(res), "E->C, F->D: restored");
	tap_ok(maps_named(app.pid, DEV0, U_C) && maps_named(app.pid, DEV1, U_D), "app device 0 is C, device 1 is D");
	finish(&app, "E,F -> C,D");
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=4", "CUDASTORE_EMU_UUIDS=" U_A "," U_B "," U_C "," U_D,
			      "CUDASTORE_EMU_MEM_MB=64", NULL };
	CUcontext ctx;

	emu_test_setup(env, &cu);
	if (!CU_OK(cu.Init(0)))
		tap_bail("cuInit failed");
	for (int d = 0; d < 4; d++)
		cu.DevicePrimaryCtxRetain(&ctx, d);
	custom_with_map();
	single_without_map();
	two_unknown();
	tap_plan(tap_n);
	return tap_done();
}
