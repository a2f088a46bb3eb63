// SPDX-License-Identifier: MIT
/*
 * test-emu-visible-devices: CUDA_VISIBLE_DEVICES in a process that calls cuInit, as the driver
 * reads it: ordinals and UUIDs (whole, or a beginning that names one device) choose and order
 * the devices; the list stops at an entry that names no device or one listed already; an empty
 * list leaves none; NVML still sees every device. A process's memory lives on the physical
 * device (that device's address range, its UUID on the memfd, NVML's account), and a caller
 * that sees every device checkpoints such a process (CustomStorage) and restores it onto other
 * GPUs with every byte.
 */
#include <dlfcn.h>
#include <string.h>

#include "emu-test.h"
#include "emu_api.h"
#include "emu_nvml.h"

#define MiB  (1ULL << 20)
#define NDEV 4

static struct cs_cuda_ops cu;
static struct cs_nvml_ops nv;
static const char *const names[NDEV] = { "GPU zero", "GPU one", "GPU two", "GPU three" };
static const unsigned long long mem_mb[NDEV] = { 64, 64, 32, 48 };
/* unique to this run (NVML's account is host-wide); all four begin alike: "GPU-<pid>" names none */
static char uuid_text[NDEV][CS_UUID_STRLEN], uuid_env[256];
static char common_prefix[16], prefix_of_1[24];

/* the host: 4 GPUs, named and sized each its own way */
static void setup(const char *visible)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=4", uuid_env,
			      "CUDASTORE_EMU_NAMES=GPU zero,GPU one,GPU two,GPU three",
			      "CUDASTORE_EMU_MEM_MB=64,64,32,48", NULL };
	char err[256];

	if (visible)
		setenv("CUDA_VISIBLE_DEVICES", visible, 1);
	else
		unsetenv("CUDA_VISIBLE_DEVICES");
	emu_test_setup(env, &cu);
	if (cs_nvml_load(&nv, NULL, err, sizeof(err)) || nv.Init() != NVML_SUCCESS)
		tap_bail("cannot load the NVML emulator: %s", err);
}

struct visible_case {
	const char *what, *value; /* value NULL: unset */
	int n, want[NDEV];	  /* the physical devices of ordinals 0..n-1 */
};

/* ordinal i shows physical device p: its UUID, name, bus and capacity */
static bool shows(int i, int p)
{
	char text[CS_UUID_STRLEN], name[64] = "";
	size_t total = 0;
	int bus = -1;
	CUuuid u;

	if (!CU_OK(cu.DeviceGetUuid(&u, i)))
		return false;
	cs_uuid_format(&u, text);
	cu.DeviceGetName(name, sizeof(name), i);
	cu.DeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i);
	cu.DeviceTotalMem(&total, i);
	if (!strcmp(text, uuid_text[p]) && !strcmp(name, names[p]) && bus == 0x10 + p &&
	    total == mem_mb[p] * MiB)
		return true;
	printf("# ordinal %d: %s \"%s\" bus %#x %zu MiB, want physical device %d\n", i, text, name, bus,
	       total >> 20, p);
	return false;
}

static void one_case(void *arg)
{
	const struct visible_case *c = arg;
	unsigned int nvml_count = 0;
	CUresult res, res_count;
	int count = -1;
	bool ok = true;

	setup(c->value);
	res = cu.Init(0);
	res_count = cu.DeviceGetCount(&count);
	nv.DeviceGetCount(&nvml_count);
	if (!c->n) {
		tap_ok(res == CUDA_ERROR_NO_DEVICE && res_count == CUDA_ERROR_NOT_INITIALIZED,
		       "%s (\"%s\"): cuInit NO_DEVICE (%d), cuDeviceGetCount NOT_INITIALIZED (%d)", c->what,
		       c->value, res, res_count);
	} else {
		for (int i = 0; i < c->n && CU_OK(res); i++)
			ok &= shows(i, c->want[i]);
		tap_ok(CU_OK(res) && count == c->n && ok, "%s (%s): %d devices, in the list's order", c->what,
		       c->value ? c->value : "unset", count);
	}
	tap_ok(nvml_count == NDEV, "%s: NVML sees all %d devices (%u)", c->what, NDEV, nvml_count);
}

/* usedGpuMemory of pid on physical device p, 0 if not listed */
static unsigned long long nvml_usage(int p, int pid)
{
	nvmlProcessInfo_t infos[16];
	unsigned int count = 16;
	nvmlDevice_t dev;

	if (nv.DeviceGetHandleByIndex((unsigned int)p, &dev) ||
	    nv.DeviceGetComputeRunningProcesses(dev, &count, infos))
		return ~0ULL;
	for (unsigned int i = 0; i < count; i++)
		if ((int)infos[i].pid == pid)
			return infos[i].usedGpuMemory;
	return 0;
}

static unsigned long long nvml_used(int p)
{
	__typeof(nvmlDeviceGetMemoryInfo) *info =
	    (__typeof(nvmlDeviceGetMemoryInfo) *)dlsym(nv.lib, "nvmlDeviceGetMemoryInfo");
	struct emu_nvml_memory m = { 0 };
	nvmlDevice_t dev;

	if (!info || nv.DeviceGetHandleByIndex((unsigned int)p, &dev) || info(dev, &m))
		return ~0ULL;
	return m.used;
}

static const char *memfd_at(int pid, unsigned long addr)
{
	static char name[64];
	size_t bytes;

	emu_app_maps(pid, &bytes, addr, name, sizeof(name));
	return name;
}

/* CUDA_VISIBLE_DEVICES=2,0: ordinal 0's memory is physical device 2's, ordinal 1's device 0's */
static void placement(void *arg)
{
	CUdeviceptr a = 0, b = 0;
	size_t free_b = 0, total = 0;
	CUcontext ctx;
	CUresult res;

	(void)arg;
	setup("2,0");
	if (!CU_OK(cu.Init(0)) || !CU_OK(cu.DevicePrimaryCtxRetain(&ctx, 0)) || !CU_OK(cu.CtxSetCurrent(ctx)))
		tap_bail("cuInit with CUDA_VISIBLE_DEVICES=2,0");
	res = cu.MemAlloc(&a, 4 * MiB);
	tap_ok(CU_OK(res) && a == EMU_VA_BASE + 2 * EMU_VA_STRIDE &&
		   !strcmp(memfd_at(getpid(), a), uuid_text[2]),
	       "ordinal 0: memory at physical device 2's address %#llx, memfd of its UUID %s", a,
	       memfd_at(getpid(), a));
	res = cu.MemGetInfo(&free_b, &total);
	tap_ok(CU_OK(res) && total == 32 * MiB && free_b == 28 * MiB,
	       "ordinal 0: cuMemGetInfo is physical device 2's: %zu MiB free of %zu", free_b >> 20,
	       total >> 20);
	if (!CU_OK(cu.DevicePrimaryCtxRetain(&ctx, 1)) || !CU_OK(cu.CtxSetCurrent(ctx)))
		tap_bail("ordinal 1");
	res = cu.MemAlloc(&b, 2 * MiB);
	tap_ok(CU_OK(res) && b == EMU_VA_BASE && !strcmp(memfd_at(getpid(), b), uuid_text[0]),
	       "ordinal 1: memory at physical device 0's address %#llx, memfd %s", b, memfd_at(getpid(), b));
	tap_ok(nvml_usage(2, getpid()) == 4 * MiB && nvml_usage(0, getpid()) == 2 * MiB &&
		   !nvml_usage(1, getpid()) && !nvml_usage(3, getpid()),
	       "NVML lists this process on devices 2 (4 MiB) and 0 (2 MiB) only");
	tap_ok(nvml_used(2) == 4 * MiB && nvml_used(0) == 2 * MiB && nvml_used(1) == 0,
	       "NVML's used memory: device 2 %llu MiB, device 0 %llu MiB, device 1 %llu MiB",
	       nvml_used(2) >> 20, nvml_used(0) >> 20, nvml_used(1) >> 20);
	tap_ok(CU_OK(cu.MemFree(b)) && !nvml_usage(0, getpid()), "freed: no longer on device 0");
}

static CUcheckpointGpuPair pair(int from, int to)
{
	CUcheckpointGpuPair p;

	cs_uuid_parse(uuid_text[from], &p.oldUuid);
	cs_uuid_parse(uuid_text[to], &p.newUuid);
	return p;
}

/* the entries' devices, as physical device numbers, one bit each */
static unsigned int entry_devices(const CUcheckpointCustomStorageInfo *info)
{
	unsigned int set = 0;

	for (unsigned int i = 0; i < info->deviceCount; i++) {
		int dev = -1;
		CUuuid u;

		if (!emu_entry_uuid(&cu, info->perDeviceData[i].stream, &u, &dev))
			set |= 1u << dev;
	}
	return set;
}

/*
 * A workload that sees 2,0 as its ordinals 0 and 1; the caller (no CUDA_VISIBLE_DEVICES) sees
 * all 4: checkpoint, then restore physical 2 onto 3 and 0 in place.
 */
static void checkpoint_across(void *arg)
{
	const char *app_env[] = { "CUDA_VISIBLE_DEVICES=2,0", NULL };
	const char *args[] = { "--devices", "2", "--size", "2m", NULL };
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };
	CUcheckpointGpuPair pairs[2] = { pair(2, 3), pair(0, 0) };
	CUcheckpointRestoreArgs ra = { .gpuPairs = pairs,
				       .gpuPairsCount = 2,
				       .customStorageInfo_out = &info };
	const unsigned long slot2 = EMU_VA_BASE + 2 * EMU_VA_STRIDE;
	struct emu_saved saved = { 0 };
	unsigned int set = 0;
	struct emu_app app;
	char out[256];
	CUcontext ctx;
	CUresult res;

	(void)arg;
	setup(NULL);
	if (!CU_OK(cu.Init(0)))
		tap_bail("cuInit");
	for (int d = 0; d < NDEV; d++)
		cu.DevicePrimaryCtxRetain(&ctx, d);
	if (emu_app_start(&app, app_env, args))
		tap_bail("cannot start the workload with CUDA_VISIBLE_DEVICES=2,0");
	tap_ok(nvml_usage(2, app.pid) && nvml_usage(0, app.pid) && !nvml_usage(1, app.pid),
	       "the workload (CUDA_VISIBLE_DEVICES=2,0) runs on physical devices 2 and 0");
	res = cu.CheckpointProcessLock(app.pid, NULL);
	if (CU_OK(res))
		res = cu.CheckpointProcessCheckpoint(app.pid, &ca);
	if (CU_OK(res) && info)
		set = entry_devices(info);
	tap_ok(CU_OK(res) && info && info->deviceCount == 2 && set == (1u << 2 | 1u << 0),
	       "CustomStorage checkpoint: 2 entries, on the caller's devices 2 and 0 (%#x)", set);
	tap_ok(info && !emu_cs_save(&cu, info, &saved) && CU_OK(cu.CheckpointOperationComplete(info->handle)),
	       "copied out, Complete");
	info = NULL;
	res = cu.CheckpointProcessRestore(app.pid, &ra);
	set = CU_OK(res) && info ? entry_devices(info) : 0;
	tap_ok(CU_OK(res) && info && set == (1u << 3 | 1u << 0),
	       "restore 2 -> 3, 0 -> 0: entries on devices 3 and 0");
	tap_ok(info && !emu_cs_load(&cu, info, &saved, pairs, 2) &&
		   CU_OK(cu.CheckpointOperationComplete(info->handle)),
	       "copied in, Complete");
	tap_ok(
	    !strcmp(memfd_at(app.pid, slot2), uuid_text[3]) &&
		!strcmp(memfd_at(app.pid, EMU_VA_BASE), uuid_text[0]),
	    "its ordinal 0 keeps physical device 2's address, now on device 3; ordinal 1 stays on device 0");
	tap_ok(nvml_usage(3, app.pid) && nvml_usage(0, app.pid) && !nvml_usage(2, app.pid),
	       "NVML lists it on devices 3 and 0, no longer on 2");
	tap_ok(CU_OK(cu.CheckpointProcessUnlock(app.pid, NULL)), "Unlock");
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"),
	       "workload verified every byte: %s", out);
	emu_saved_free(&saved);
}

int main(void)
{
	char v_uuids[128], v_ambiguous[64];
	struct visible_case cases[] = {
		{ "unset", NULL, 4, { 0, 1, 2, 3 } },
		{ "ordinals, reordered", "2,0", 2, { 2, 0 } },
		{ "a whole UUID and a unique beginning of one", v_uuids, 2, { 3, 1 } },
		{ "an ambiguous UUID beginning stops the list", v_ambiguous, 1, { 3 } },
		{ "an ordinal past the last device stops the list", "1,4,0", 1, { 1 } },
		{ "-1 stops the list", "0,-1,1", 1, { 0 } },
		{ "a word stops the list", "1,x,2", 1, { 1 } },
		{ "a device listed twice stops the list", "2,2,0", 1, { 2 } },
		{ "empty", "", 0, { 0 } },
		{ "the first entry names no device", "7,0", 0, { 0 } },
	};

	for (int d = 0; d < NDEV; d++)
		snprintf(uuid_text[d], sizeof(uuid_text[d]), "GPU-%08x-000%d-4000-8000-%012d",
			 (unsigned int)getpid(), d, d);
	snprintf(uuid_env, sizeof(uuid_env), "CUDASTORE_EMU_UUIDS=%s,%s,%s,%s", uuid_text[0], uuid_text[1],
		 uuid_text[2], uuid_text[3]);
	snprintf(common_prefix, sizeof(common_prefix), "%.12s", uuid_text[0]);
	snprintf(prefix_of_1, sizeof(prefix_of_1), "%.17s", uuid_text[1]);
	snprintf(v_uuids, sizeof(v_uuids), "%s,%s", uuid_text[3], prefix_of_1);
	snprintf(v_ambiguous, sizeof(v_ambiguous), "3,%s,0", common_prefix);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		emu_test_fork(one_case, &cases[i]);
	emu_test_fork(placement, NULL);
	emu_test_fork(checkpoint_across, NULL);
	tap_plan(tap_n);
	return tap_done();
}
