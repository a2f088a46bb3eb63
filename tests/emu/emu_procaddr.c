// SPDX-License-Identifier: MIT
/*
 * emu_procaddr.c - cuGetProcAddress with the driver's documented version rules:
 *   requested version > driver version       -> CUDA_ERROR_INVALID_VALUE
 *   unknown name (or newer than the driver)  -> CUDA_SUCCESS, NULL, SYMBOL_NOT_FOUND
 *   known, but only in ABIs newer than asked -> CUDA_SUCCESS, NULL, VERSION_NOT_SUFFICIENT
 *   known                                    -> CUDA_SUCCESS, the newest ABI <= the version
 * cuCheckpointOperationComplete exists from 13040 on, so an emulated 13.0 driver does not
 * know it at all. The names in $CUDASTORE_EMU_HIDE (comma-separated) are not known at all:
 * a driver without them.
 */
#include <stdlib.h>
#include <string.h>

#include "emu_api.h"

struct proc_entry {
	const char *name;
	int version; /* first CUDA version with this ABI */
	void *fn;
};

#define E(n, v, f) { n, v, (void *)(f) }
static const struct proc_entry proc_table[] = {
	E("cuGetProcAddress", 12000, cuGetProcAddress_v2),
	E("cuInit", 2000, cuInit),
	E("cuDriverGetVersion", 2020, cuDriverGetVersion),
	E("cuGetErrorName", 6000, cuGetErrorName),
	E("cuGetErrorString", 6000, cuGetErrorString),
	E("cuDeviceGetCount", 2000, cuDeviceGetCount),
	E("cuDeviceGet", 2000, cuDeviceGet),
	E("cuDeviceGetName", 2000, cuDeviceGetName),
	E("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
	E("cuDeviceTotalMem", 3020, cuDeviceTotalMem),
	E("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
	E("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
	E("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
	E("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease),
	E("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
	E("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
	E("cuCtxGetDevice", 2000, cuCtxGetDevice),
	E("cuCtxSynchronize", 2000, cuCtxSynchronize),
	E("cuStreamCreate", 2000, cuStreamCreate),
	E("cuStreamDestroy", 4000, cuStreamDestroy),
	E("cuStreamSynchronize", 2000, cuStreamSynchronize),
	E("cuStreamGetCtx", 9020, cuStreamGetCtx),
	E("cuStreamGetCtx", 12050, cuStreamGetCtx_v2),
	E("cuStreamGetDevice", 12080, cuStreamGetDevice),
	E("cuEventCreate", 2000, cuEventCreate),
	E("cuEventDestroy", 4000, cuEventDestroy),
	E("cuEventRecord", 2000, cuEventRecord),
	E("cuEventSynchronize", 2000, cuEventSynchronize),
	E("cuEventQuery", 2000, cuEventQuery),
	E("cuMemAlloc", 3020, cuMemAlloc),
	E("cuMemFree", 3020, cuMemFree),
	E("cuMemGetInfo", 3020, cuMemGetInfo),
	E("cuMemHostAlloc", 2020, cuMemHostAlloc),
	E("cuMemFreeHost", 2000, cuMemFreeHost),
	E("cuMemcpyHtoD", 3020, cuMemcpyHtoD),
	E("cuMemcpyDtoH", 3020, cuMemcpyDtoH),
	E("cuMemcpyDtoD", 3020, cuMemcpyDtoD),
	E("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync),
	E("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync),
	E("cuMemsetD8", 3020, cuMemsetD8),
	E("cuMemsetD8Async", 3020, cuMemsetD8Async),
	E("cuModuleLoadData", 2000, cuModuleLoadData),
	E("cuModuleUnload", 2000, cuModuleUnload),
	E("cuModuleGetFunction", 2000, cuModuleGetFunction),
	E("cuLaunchKernel", 4000, cuLaunchKernel),
	E("cuCheckpointProcessGetRestoreThreadId", 12080, cuCheckpointProcessGetRestoreThreadId),
	E("cuCheckpointProcessGetState", 12080, cuCheckpointProcessGetState),
	E("cuCheckpointProcessLock", 12080, cuCheckpointProcessLock),
	E("cuCheckpointProcessCheckpoint", 12080, cuCheckpointProcessCheckpoint),
	E("cuCheckpointProcessRestore", 12080, cuCheckpointProcessRestore),
	E("cuCheckpointProcessUnlock", 12080, cuCheckpointProcessUnlock),
	E("cuCheckpointOperationComplete", 13040, cuCheckpointOperationComplete),
};
#undef E

/* $CUDASTORE_EMU_HIDE: comma-separated entry points this driver does not have */
static bool hidden(const char *sym)
{
	const char *list = getenv("CUDASTORE_EMU_HIDE");
	size_t n = strlen(sym);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, sym, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static CUresult proc_lookup(const char *sym, void **pfn, int version, CUdriverProcAddressQueryResult *status)
{
	int driver = emu_config()->driver_version;
	const struct proc_entry *best = NULL;
	bool known = false;

	for (size_t i = 0; i < sizeof(proc_table) / sizeof(proc_table[0]); i++) {
		const struct proc_entry *e = &proc_table[i];

		if (strcmp(e->name, sym) || e->version > driver || hidden(sym))
			continue;
		known = true;
		if (e->version <= version && (!best || e->version > best->version))
			best = e;
	}
	*pfn = best ? best->fn : NULL;
	if (status)
		*status = best	? CU_GET_PROC_ADDRESS_SUCCESS
			  : known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
				  : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return CUDA_SUCCESS;
}

static CUresult proc_address(const char *sym, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	if (!sym || !pfn || flags > 2)
		return CUDA_ERROR_INVALID_VALUE;
	if (version > emu_config()->driver_version) {
		*pfn = NULL;
		return CUDA_ERROR_INVALID_VALUE;
	}
	return proc_lookup(sym, pfn, version, status);
}

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int cudaVersion, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	EMU_CALL("cuGetProcAddress", 0, proc_address(sym, pfn, cudaVersion, flags, status));
}

CUresult cuGetProcAddress(const char *sym, void **pfn, int cudaVersion, cuuint64_t flags,
			  CUdriverProcAddressQueryResult *status)
{
	EMU_CALL("cuGetProcAddress", 0, proc_address(sym, pfn, cudaVersion, flags, status));
}
