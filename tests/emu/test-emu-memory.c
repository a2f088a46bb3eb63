// SPDX-License-Identifier: MIT
/*
 * test-emu-memory: the application-side API in this process: memfd-backed device memory at
 * fixed per-device addresses, compact extents, pointer validation, copies, streams, events,
 * host memory, contexts and device queries; no memfd fd stays open.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"

#define U0 "GPU-01234567-89ab-cdef-0123-456789abcdef"
#define MiB (1UL << 20)

static struct cs_cuda_ops cu;

static size_t used_bytes(unsigned long addr, char *name)
{
	size_t bytes;

	emu_app_maps(getpid(), &bytes, addr, name, 64);
	return bytes;
}

static int open_memfds(void)
{
	char path[300], link[256];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && (de = readdir(d))) {
		ssize_t l;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l > 0 && (link[l] = '\0', strstr(link, "memfd:")))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void devices(void)
{
	char name[64], text[CS_UUID_STRLEN];
	size_t total = 0;
	int count = 0, bus = -1;
	CUresult res;
	CUuuid u;

	tap_ok(CU_OK(cu.DeviceGetCount(&count)) && count == 2, "2 devices");
	tap_ok(CU_OK(cu.DeviceGetName(name, sizeof(name), 1)) && !strcmp(name, "NVIDIA Emulated GPU"),
	       "name: %s", name);
	cu.DeviceGetUuid(&u, 0);
	cs_uuid_format(&u, text);
	tap_ok(!strcmp(text, U0), "UUID from CUDASTORE_EMU_UUIDS: %s", text);
	tap_ok(CU_OK(cu.DeviceTotalMem(&total, 1)) && total == 32 * MiB, "per-device capacity from a list");
	res = cu.DeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1);
	tap_ok(CU_OK(res) && bus >= 0, "PCI bus id %d", bus);
	tap_ok(cu.DeviceGet((CUdevice *)&count, 2) == CUDA_ERROR_INVALID_DEVICE, "ordinal 2: INVALID_DEVICE");
}

static void memory(void)
{
	unsigned char *in = malloc(3 * MiB), *back = malloc(3 * MiB);
	CUdeviceptr a = 0, b = 0, c = 0, big;
	size_t fr = 0, tot = 0;
	char name[64];
	CUcontext ctx;

	tap_ok(cu.MemAlloc(&a, MiB) == CUDA_ERROR_INVALID_CONTEXT, "cuMemAlloc without a current context");
	cu.DevicePrimaryCtxRetain(&ctx, 0);
	cu.CtxSetCurrent(ctx);
	tap_ok(CU_OK(cu.MemAlloc(&a, 3 * MiB)) && a == EMU_VA_BASE, "device 0 memory at its fixed base");
	tap_ok(used_bytes(EMU_VA_BASE, name) == 4 * MiB && !strcmp(name, U0),
	       "one memfd \"cudastore-emu:<UUID>\" mapping of the used extent (%s)", name);
	tap_ok(open_memfds() == 0, "no memfd fd left open");
	for (size_t i = 0; i < 3 * MiB; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	tap_ok(CU_OK(cu.MemcpyHtoD(a, in, 3 * MiB)) && CU_OK(cu.MemcpyDtoH(back, a, 3 * MiB)) &&
		       !memcmp(in, back, 3 * MiB), "HtoD/DtoH round trip");
	tap_ok(CU_OK(cu.MemAlloc(&b, 5 * MiB)) && used_bytes(EMU_VA_BASE, name) == 10 * MiB, "extent grows to 10 MiB");
	tap_ok(CU_OK(cu.MemcpyDtoD(b + 100, a, MiB)) && CU_OK(cu.MemcpyDtoH(back, b + 100, MiB)) &&
		       !memcmp(in, back, MiB) && CU_OK(cu.MemcpyDtoH(back, a, 3 * MiB)) && !memcmp(in, back, 3 * MiB),
	       "DtoD; growing kept the data");
	tap_ok(CU_OK(cu.MemsetD8(b, 0xab, 10)) && CU_OK(cu.MemcpyDtoH(back, b, 10)) && back[0] == 0xab && back[9] == 0xab,
	       "cuMemsetD8");
	tap_ok(cu.MemcpyDtoH(back, a + 3 * MiB + 4096, 16) == CUDA_ERROR_INVALID_VALUE, "copy from a gap: INVALID_VALUE");
	tap_ok(cu.MemcpyDtoH(back, b + 5 * MiB, 16) == CUDA_ERROR_INVALID_VALUE, "copy past the last allocation");
	tap_ok(cu.MemcpyHtoD(0x1234, in, 16) == CUDA_ERROR_INVALID_VALUE, "copy to a wild pointer");
	tap_ok(cu.MemcpyDtoH(back, a + 3 * MiB - 8, 16) == CUDA_ERROR_INVALID_VALUE, "copy across an allocation's end");
	tap_ok(cu.MemFree(a + 8) == CUDA_ERROR_INVALID_VALUE, "cuMemFree of an inner pointer");
	tap_ok(CU_OK(cu.MemFree(a)) && used_bytes(EMU_VA_BASE, name) == 10 * MiB, "free of the first: extent stays");
	tap_ok(CU_OK(cu.MemAlloc(&c, MiB)) && c == EMU_VA_BASE, "the hole is reused");
	tap_ok(CU_OK(cu.MemFree(b)) && used_bytes(EMU_VA_BASE, name) == 2 * MiB, "free of the last: extent shrinks");
	tap_ok(cu.MemcpyDtoH(back, b, 16) == CUDA_ERROR_INVALID_VALUE, "freed memory: INVALID_VALUE");
	tap_ok(cu.MemAlloc(&big, 100 * MiB) == CUDA_ERROR_OUT_OF_MEMORY, "more than the capacity: OUT_OF_MEMORY");
	tap_ok(CU_OK(cu.MemGetInfo(&fr, &tot)) && tot == 64 * MiB && fr == 62 * MiB, "cuMemGetInfo");
	cu.DevicePrimaryCtxRetain(&ctx, 1);
	cu.CtxSetCurrent(ctx);
	tap_ok(CU_OK(cu.MemAlloc(&a, MiB)) && a == (EMU_VA_BASE + EMU_VA_STRIDE) && used_bytes((EMU_VA_BASE + EMU_VA_STRIDE), name) == 4 * MiB,
	       "device 1 memory at its own base (2 MiB on each device)");
	free(in);
	free(back);
}

static void handles(void)
{
	CUstream s;
	CUevent e;
	CUcontext ctx, cur;
	CUdevice d = -1;
	void *h;

	tap_ok(CU_OK(cu.StreamCreate(&s, CU_STREAM_NON_BLOCKING)) && CU_OK(cu.StreamSynchronize(s)), "stream");
	tap_ok(CU_OK(cu.StreamGetCtx(s, &ctx)) && CU_OK(cu.CtxGetCurrent(&cur)) && ctx == cur &&
		       CU_OK(cu.StreamGetDevice(s, &d)) && d == 1, "stream context and device");
	tap_ok(CU_OK(cu.EventCreate(&e, CU_EVENT_DISABLE_TIMING)) && CU_OK(cu.EventRecord(e, s)) &&
		       CU_OK(cu.EventSynchronize(e)) && CU_OK(cu.EventQuery(e)) && CU_OK(cu.EventDestroy(e)), "event");
	tap_ok(cu.EventQuery(e) == CUDA_ERROR_INVALID_HANDLE, "destroyed event: INVALID_HANDLE");
	tap_ok(CU_OK(cu.StreamDestroy(s)) && cu.StreamDestroy(s) == CUDA_ERROR_INVALID_HANDLE, "stream destroyed once");
	tap_ok(CU_OK(cu.MemHostAlloc(&h, 5000, CU_MEMHOSTALLOC_PORTABLE)) && ((uintptr_t)h & 4095) == 0 &&
		       CU_OK(cu.MemFreeHost(h)) && cu.MemFreeHost(h) == CUDA_ERROR_INVALID_VALUE, "host memory");
	tap_ok(CU_OK(cu.CtxSetCurrent(NULL)) && cu.CtxGetDevice(&d) == CUDA_ERROR_INVALID_CONTEXT &&
		       cu.CtxSynchronize() == CUDA_ERROR_INVALID_CONTEXT, "no current context: INVALID_CONTEXT");
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=2", "CUDASTORE_EMU_MEM_MB=64,32",
			      "CUDASTORE_EMU_UUIDS=" U0 ",GPU-11111111-2222-3333-4444-555555555555", NULL };
	CUcheckpointCustomStorageInfo *info = NULL;
	CUcheckpointCheckpointArgs ca = { .customStorageInfo_out = &info };
	CUdeviceptr p;
	int tid = 0;

	emu_test_setup(env, &cu);
	tap_ok(cu.MemAlloc(&p, 1) == CUDA_ERROR_NOT_INITIALIZED, "cuMemAlloc before cuInit: NOT_INITIALIZED");
	if (!CU_OK(cu.Init(0)))
		tap_bail("cuInit failed");
	devices();
	memory();
	handles();
	tap_ok(CU_OK(cu.CheckpointProcessGetRestoreThreadId(getpid(), &tid)) && tid != getpid(),
	       "cuInit started the driver thread");
	tap_ok(cu.CheckpointProcessCheckpoint(getpid(), &ca) == CUDA_ERROR_INVALID_VALUE,
	       "CustomStorage checkpoint of itself: INVALID_VALUE");
	tap_plan(tap_n);
	return tap_done();
}
