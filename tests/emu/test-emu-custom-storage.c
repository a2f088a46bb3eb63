// SPDX-License-Identifier: MIT
/*
 * test-emu-custom-storage: a CustomStorage checkpoint/restore of a 3-device app through the
 * caller, byte-exact: the mappings hold exactly the workload's pattern, entries come shuffled
 * with streams on the right devices, restore mappings start zeroed, the app continues and
 * verifies every byte; one flipped byte is caught by the app.
 */
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"
#include "../workload/workload.h"

#define NDEV  3
#define NBUF  2
#define SIZE  (3UL << 20)
#define SLOT  (4UL << 20) /* SIZE rounded to the emulator's 2 MiB granularity */
#define USED  (NBUF * SLOT + (2UL << 20))
#define SEED  7
#define ZEROP 34

static struct cs_cuda_ops cu;
static const struct wl_pattern pat = { .seed = SEED, .size = SIZE, .zero_percent = ZEROP };

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* the saved image of device dev must be the workload's buffers; returns first bad offset or -1 */
static long check_image(const unsigned char *img, int dev)
{
	unsigned char *want = malloc(SIZE);
	long bad = -1;

	for (int b = 0; b < NBUF && bad < 0; b++) {
		wl_expect(&pat, dev, b, 0, want, SIZE);
		for (size_t i = 0; i < SIZE; i++)
			if (img[b * SLOT + i] != want[i]) {
				bad = (long)(b * SLOT + i);
				break;
			}
	}
	free(want);
	return bad;
}

static void check_entries(const CUcheckpointCustomStorageInfo *info, const char *what)
{
	int order[NDEV] = { -1, -1, -1 };
	bool sorted = true, dev_ok = true;

	for (unsigned int i = 0; i < info->deviceCount && i < NDEV; i++) {
		CUdevice d1 = -1, d2 = -2;
		CUuuid u, want;

		emu_entry_uuid(&cu, info->perDeviceData[i].stream, &u, &d1);
		cu.StreamGetDevice(info->perDeviceData[i].stream, &d2);
		cu.DeviceGetUuid(&want, d1);
		dev_ok &= d1 == d2 && emu_uuid_eq(&u, &want) && info->perDeviceData[i].size == USED;
		order[i] = d1;
		if (i && order[i] < order[i - 1])
			sorted = false;
	}
	tap_ok(info->deviceCount == NDEV, "%s: %u entries", what, info->deviceCount);
	tap_ok(dev_ok, "%s: each entry's stream names its device (cuStreamGetCtx and cuStreamGetDevice agree), size %lu",
	       what, USED);
	tap_ok(!sorted, "%s: entries are not in device order (%d,%d,%d)", what, order[0], order[1], order[2]);
}

static int checkpoint(int pid, struct emu_saved *s)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };
	size_t bytes;
	int ok = 1;

	ok &= tap_ok(CU_OK(cu.CheckpointProcessLock(pid, NULL)), "Lock");
	ok &= tap_ok(CU_OK(cu.CheckpointProcessCheckpoint(pid, &ca)) && info, "CustomStorage checkpoint");
	if (!ok)
		return -1;
	check_entries(info, "checkpoint");
	ok &= tap_ok(!emu_cs_save(&cu, info, s), "copy out with cuMemcpyDtoHAsync on the entry streams");
	for (unsigned int i = 0; i < s->n; i++) {
		CUuuid u;
		int d = -1;

		for (int k = 0; k < NDEV; k++)
			if (CU_OK(cu.DeviceGetUuid(&u, k)) && emu_uuid_eq(&u, &s->dev[i].uuid))
				d = k;
		long bad = check_image(s->dev[i].data, d);
		tap_ok(bad < 0, "device %d image is the workload's pattern (first mismatch %ld)", d, bad);
		tap_ok(all_zero(s->dev[i].data + SLOT, 1UL << 20) == wl_block_is_zero(&pat, 0) &&
			       all_zero(s->dev[i].data + SLOT + (1UL << 20), 1UL << 20) == wl_block_is_zero(&pat, 1),
		       "device %d: zero blocks where --zero-percent puts them", d);
	}
	ok &= tap_ok(CU_OK(cu.CheckpointOperationComplete(info->handle)), "Complete");
	ok &= tap_ok(emu_app_maps(pid, &bytes, 0, NULL, 0) == 0, "app holds no device memory after Complete");
	return ok ? 0 : -1;
}

static int restore(int pid, const struct emu_saved *s, long flip_dev, size_t flip_off)
{
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointRestoreArgs ra = { .customStorageInfo_out = &info };
	bool zero = true;
	size_t bytes;
	int ok = 1, n;

	ok &= tap_ok(CU_OK(cu.CheckpointProcessRestore(pid, &ra)) && info, "CustomStorage restore");
	if (!ok)
		return -1;
	check_entries(info, "restore");
	for (unsigned int i = 0; i < info->deviceCount; i++)
		zero &= all_zero((const unsigned char *)(uintptr_t)info->perDeviceData[i].devPtr, USED);
	tap_ok(zero, "restore mappings start zeroed");
	ok &= tap_ok(!emu_cs_load(&cu, info, s, NULL, 0), "copy in with cuMemcpyHtoDAsync");
	for (unsigned int i = 0; flip_dev >= 0 && i < info->deviceCount; i++) {
		CUuuid u;
		int d;
		unsigned char v;

		emu_entry_uuid(&cu, info->perDeviceData[i].stream, &u, &d);
		if (d != flip_dev)
			continue;
		cu.MemcpyDtoH(&v, info->perDeviceData[i].devPtr + flip_off, 1);
		v ^= 0x40;
		cu.MemcpyHtoD(info->perDeviceData[i].devPtr + flip_off, &v, 1);
	}
	ok &= tap_ok(CU_OK(cu.CheckpointOperationComplete(info->handle)), "Complete after restore");
	n = emu_app_maps(pid, &bytes, 0, NULL, 0);
	ok &= tap_ok(n == NDEV && bytes == NDEV * USED, "app maps its device memory again (%d maps, %zu bytes)", n,
		     bytes);
	ok &= tap_ok(CU_OK(cu.CheckpointProcessUnlock(pid, NULL)), "Unlock");
	return ok ? 0 : -1;
}

static void cycle(long flip_dev, size_t flip_off, const char *want_prefix)
{
	const char *args[] = { "--devices", "3", "--buffers", "2", "--size", "3m", "--seed", "7", "--zero-percent",
			       "34", NULL };
	struct emu_saved saved = { 0 };
	struct emu_app app;
	char out[512];

	if (emu_app_start(&app, NULL, args)) {
		tap_ok(0, "start the workload");
		return;
	}
	if (!checkpoint(app.pid, &saved) && !restore(app.pid, &saved, flip_dev, flip_off))
		usleep(300000); /* the app's rolling check runs on restored memory */
	emu_app_stop(&app, out, sizeof(out));
	tap_ok(!strncmp(out, want_prefix, strlen(want_prefix)), "workload reports \"%s\" (want \"%s\")", out,
	       want_prefix);
	emu_saved_free(&saved);
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=3", "CUDASTORE_EMU_MEM_MB=64", NULL };
	CUcontext ctx;

	emu_test_setup(env, &cu);
	if (!CU_OK(cu.Init(0)))
		tap_bail("cuInit failed");
	for (int d = 0; d < NDEV; d++)
		cu.DevicePrimaryCtxRetain(&ctx, d);
	tap_ok(cu.has_custom_storage, "13.4 CustomStorage detected through cs_cuda_load");
	cycle(-1, 0, "PASS");
	/* one byte changed during restore must be found by the app (the test can fail) */
	cycle(1, 12345, "FAIL: device 1 buffer 0 offset 12345");
	tap_plan(tap_n);
	return tap_done();
}
