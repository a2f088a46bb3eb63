// SPDX-License-Identifier: MIT
/*
 * test-emu-nvml: the NVML emulator lists the app on the devices it uses with the bytes it has
 * mapped, follows the INSUFFICIENT_SIZE protocol, and no longer lists it once a
 * driver-managed checkpoint removed its device memory; each device reports the minor number
 * CUDASTORE_EMU_MINORS gives it (the N of its /dev/nvidiaN).
 */
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"

static struct cs_cuda_ops cu;
static struct cs_nvml_ops nv;

/* usedGpuMemory of pid on device index, 0 if not listed, -1 on error */
static long long usage(unsigned int index, int pid)
{
	nvmlProcessInfo_t infos[16];
	unsigned int count = 16;
	nvmlDevice_t dev;

	if (nv.DeviceGetHandleByIndex(index, &dev) || nv.DeviceGetComputeRunningProcesses(dev, &count, infos))
		return -1;
	for (unsigned int i = 0; i < count; i++)
		if ((int)infos[i].pid == pid)
			return (long long)infos[i].usedGpuMemory;
	return 0;
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=3", "CUDASTORE_EMU_MEM_MB=64",
			      "CUDASTORE_EMU_MINORS=4,0,7", NULL };
	const char *args[] = { "--devices", "2", "--buffers", "1", "--size", "5m", NULL };
	char err[256], uuid[96], want[CS_UUID_STRLEN], out[256];
	nvmlDevice_t d0, d1;
	unsigned int count = 0, minor[3] = { 99, 99, 99 };
	struct emu_app app;
	long long u0, u1, u2;
	nvmlReturn_t r;
	CUuuid u;

	emu_test_setup(env, &cu);
	if (cs_nvml_load(&nv, NULL, err, sizeof(err)))
		tap_bail("cannot load the NVML emulator: %s", err);
	tap_ok(nv.DeviceGetCount(&count) == NVML_ERROR_UNINITIALIZED, "calls before nvmlInit: UNINITIALIZED");
	r = nv.Init();
	if (r == NVML_SUCCESS)
		r = nv.DeviceGetCount(&count);
	tap_ok(r == NVML_SUCCESS && count == 3, "3 devices (%u)", count);
	if (!CU_OK(cu.Init(0)) || !CU_OK(cu.DeviceGetUuid(&u, 1)))
		tap_bail("cuInit failed");
	cs_uuid_format(&u, want);
	nv.DeviceGetHandleByIndex(1, &d1);
	tap_ok(nv.DeviceGetUUID(d1, uuid, sizeof(uuid)) == NVML_SUCCESS && !strcmp(uuid, want),
	       "nvmlDeviceGetUUID matches cuDeviceGetUuid (%s)", uuid);
	tap_ok(nv.DeviceGetHandleByUUID(want, &d0) == NVML_SUCCESS && d0 == d1, "nvmlDeviceGetHandleByUUID");
	for (unsigned int i = 0; i < 3; i++)
		if (nv.DeviceGetHandleByIndex(i, &d0) || !nv.DeviceGetMinorNumber ||
		    nv.DeviceGetMinorNumber(d0, &minor[i]) != NVML_SUCCESS)
			minor[i] = 99;
	tap_ok(minor[0] == 4 && minor[1] == 0 && minor[2] == 7,
	       "nvmlDeviceGetMinorNumber: CUDASTORE_EMU_MINORS=4,0,7 (%u,%u,%u)", minor[0], minor[1],
	       minor[2]);
	if (emu_app_start(&app, NULL, args))
		tap_bail("cannot start the workload");
	count = 0;
	nv.DeviceGetHandleByIndex(0, &d0);
	r = nv.DeviceGetComputeRunningProcesses(d0, &count, NULL);
	tap_ok(r == NVML_ERROR_INSUFFICIENT_SIZE && count >= 1, "count 0: INSUFFICIENT_SIZE and the needed count (%u)",
	       count);
	u0 = usage(0, app.pid);
	u1 = usage(1, app.pid);
	u2 = usage(2, app.pid);
	tap_ok(u0 == 8 << 20 && u1 == 8 << 20, "app listed on devices 0 and 1 with 8 MiB each (%lld, %lld)", u0, u1);
	tap_ok(u2 == 0, "app not listed on device 2 (%lld)", u2);
	cu.CheckpointProcessLock(app.pid, NULL);
	cu.CheckpointProcessCheckpoint(app.pid, NULL);
	tap_ok(usage(0, app.pid) == 0, "not listed once its memory is checkpointed");
	cu.CheckpointProcessRestore(app.pid, NULL);
	cu.CheckpointProcessUnlock(app.pid, NULL);
	tap_ok(usage(0, app.pid) == 8 << 20, "listed again after restore");
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "workload: %s", out);
	nv.Shutdown();
	tap_plan(tap_n);
	return tap_done();
}
