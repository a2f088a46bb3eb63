// SPDX-License-Identifier: MIT
/*
 * fake-libcuda.c - the fake device of fake-cuda.c as a loadable "libcuda.so.1", so that
 * cs-bench (which loads its driver through cs_cuda_load) runs in `make check` without a GPU
 * or the emulator. cuGetProcAddress_v2 hands out the fake's functions plus a few synchronous
 * extras; every other required name resolves to a stub returning CUDA_ERROR_NOT_SUPPORTED.
 * Test-only; nothing here claims to model the real driver beyond what the engine and the
 * benchmark use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-cuda.h"

#define EXPORT __attribute__((visibility("default")))

static struct cs_cuda_ops T;

static CUresult x_Init(unsigned int flags)
{
	return CUDA_SUCCESS;
}

static CUresult x_DriverGetVersion(int *v)
{
	*v = CUDASTORE_CUDA_13_4;
	return CUDA_SUCCESS;
}

static CUresult x_DeviceGet(CUdevice *dev, int ordinal)
{
	if (ordinal < 0 || ordinal > 3)
		return CUDA_ERROR_INVALID_DEVICE;
	*dev = ordinal;
	return CUDA_SUCCESS;
}

static CUresult x_DeviceGetCount(int *n)
{
	*n = 4;
	return CUDA_SUCCESS;
}

static CUresult x_PrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	*ctx = fake_ctx((unsigned)dev);
	return CUDA_SUCCESS;
}

static CUresult x_MemAlloc(CUdeviceptr *p, size_t bytes)
{
	CUcontext ctx = NULL;

	T.CtxGetCurrent(&ctx);
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	*p = fake_dev_alloc(ctx, bytes);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult x_MemFree(CUdeviceptr p)
{
	fake_dev_free(p);
	return CUDA_SUCCESS;
}

/* synchronous copies wait for the legacy stream's work first, as the real ones do */
static CUresult x_MemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
	fake_legacy_sync();
	memcpy(fake_host(dst), src, n);
	return CUDA_SUCCESS;
}

static CUresult x_MemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	fake_legacy_sync();
	memcpy(dst, fake_host(src), n);
	return CUDA_SUCCESS;
}

/* returns before the memset is done (fake-cuda.h) */
static CUresult x_MemsetD8(CUdeviceptr dst, unsigned char v, size_t n)
{
	fake_legacy_memset(dst, v, n);
	return CUDA_SUCCESS;
}

static CUresult x_CtxSynchronize(void)
{
	fake_legacy_sync();
	return CUDA_SUCCESS;
}

static CUresult x_unsupported(void)
{
	return CUDA_ERROR_NOT_SUPPORTED;
}

struct entry {
	const char *name;
	void *fn;
};

static void *lookup(const char *name)
{
	const struct entry e[] = {
	    {"cuInit", (void *)x_Init},
	    {"cuDriverGetVersion", (void *)x_DriverGetVersion},
	    {"cuDeviceGet", (void *)x_DeviceGet},
	    {"cuDeviceGetCount", (void *)x_DeviceGetCount},
	    {"cuDevicePrimaryCtxRetain", (void *)x_PrimaryCtxRetain},
	    {"cuMemAlloc", (void *)x_MemAlloc},
	    {"cuMemFree", (void *)x_MemFree},
	    {"cuMemcpyHtoD", (void *)x_MemcpyHtoD},
	    {"cuMemcpyDtoH", (void *)x_MemcpyDtoH},
	    {"cuMemsetD8", (void *)x_MemsetD8},
	    {"cuCtxSynchronize", (void *)x_CtxSynchronize},
	    {"cuGetErrorName", (void *)T.GetErrorName},
	    {"cuCtxSetCurrent", (void *)T.CtxSetCurrent},
	    {"cuCtxGetCurrent", (void *)T.CtxGetCurrent},
	    {"cuStreamCreate", (void *)T.StreamCreate},
	    {"cuStreamDestroy", (void *)T.StreamDestroy},
	    {"cuStreamSynchronize", (void *)T.StreamSynchronize},
	    {"cuEventCreate", (void *)T.EventCreate},
	    {"cuEventDestroy", (void *)T.EventDestroy},
	    {"cuEventRecord", (void *)T.EventRecord},
	    {"cuEventSynchronize", (void *)T.EventSynchronize},
	    {"cuEventQuery", (void *)T.EventQuery},
	    {"cuMemHostAlloc", (void *)T.MemHostAlloc},
	    {"cuMemFreeHost", (void *)T.MemFreeHost},
	    {"cuMemcpyDtoHAsync", (void *)T.MemcpyDtoHAsync},
	    {"cuMemcpyHtoDAsync", (void *)T.MemcpyHtoDAsync},
	    {"cuMemsetD8Async", (void *)T.MemsetD8Async},
	};

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		if (!strcmp(e[i].name, name))
			return e[i].fn;
	return NULL;
}

EXPORT CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags,
				    CUdriverProcAddressQueryResult *status);
EXPORT CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags,
				    CUdriverProcAddressQueryResult *status)
{
	if (!T.MemHostAlloc)
		fake_cuda_init(&T);
	*pfn = lookup(sym);
	if (!*pfn && !strncmp(sym, "cuCheckpoint", 12)) {
		*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
		return CUDA_ERROR_NOT_FOUND;
	}
	if (!*pfn)
		*pfn = (void *)x_unsupported; /* never called by the benchmark */
	*status = CU_GET_PROC_ADDRESS_SUCCESS;
	return CUDA_SUCCESS;
}

/* what the fake caught the program doing against the driver's rules, said on stderr at exit */
__attribute__((destructor)) static void report_violations(void)
{
	struct fake_stats st;

	if (!T.MemHostAlloc)
		return;
	fake_get_stats(&st);
	if (st.violations)
		fprintf(stderr, "libcuda-fake: %lu driver-rule violations; last: %s\n", st.violations,
			fake_last_violation());
}
