/* SPDX-License-Identifier: MIT */
/*
 * emu_api.h - the CUDA driver functions the emulated libcuda.so.1 exports.
 *
 * Each is also reachable through cuGetProcAddress (emu_procaddr.c), which returns the ABI
 * of the requested version: cuStreamGetCtx is the 2-argument form below 12.5 and the
 * 3-argument cuStreamGetCtx_v2 from 12.5 on, as in the real driver.
 */
#ifndef CUDASTORE_EMU_API_H
#define CUDASTORE_EMU_API_H

#include "emu.h"

typedef struct CUgreenCtx_st *CUgreenCtx;

EMU_API CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int cudaVersion, cuuint64_t flags,
				     CUdriverProcAddressQueryResult *status);
EMU_API CUresult cuGetProcAddress(const char *sym, void **pfn, int cudaVersion, cuuint64_t flags,
				  CUdriverProcAddressQueryResult *status);
EMU_API CUresult cuInit(unsigned int flags);
EMU_API CUresult cuDriverGetVersion(int *version);
EMU_API CUresult cuGetErrorName(CUresult err, const char **name);
EMU_API CUresult cuGetErrorString(CUresult err, const char **str);

EMU_API CUresult cuDeviceGetCount(int *count);
EMU_API CUresult cuDeviceGet(CUdevice *dev, int ordinal);
EMU_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
EMU_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
EMU_API CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev);
EMU_API CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev);
EMU_API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);

EMU_API CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
EMU_API CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
EMU_API CUresult cuCtxSetCurrent(CUcontext ctx);
EMU_API CUresult cuCtxGetCurrent(CUcontext *ctx);
EMU_API CUresult cuCtxGetDevice(CUdevice *dev);
EMU_API CUresult cuCtxSynchronize(void);

EMU_API CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
EMU_API CUresult cuStreamDestroy(CUstream stream);
EMU_API CUresult cuStreamSynchronize(CUstream stream);
EMU_API CUresult cuStreamGetCtx(CUstream stream, CUcontext *ctx);
EMU_API CUresult cuStreamGetCtx_v2(CUstream stream, CUcontext *ctx, CUgreenCtx *green);
EMU_API CUresult cuStreamGetDevice(CUstream stream, CUdevice *dev);

EMU_API CUresult cuEventCreate(CUevent *ev, unsigned int flags);
EMU_API CUresult cuEventDestroy(CUevent ev);
EMU_API CUresult cuEventRecord(CUevent ev, CUstream stream);
EMU_API CUresult cuEventSynchronize(CUevent ev);
EMU_API CUresult cuEventQuery(CUevent ev);

EMU_API CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes);
EMU_API CUresult cuMemFree(CUdeviceptr dptr);
EMU_API CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes);
EMU_API CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags);
EMU_API CUresult cuMemFreeHost(void *p);
EMU_API CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
EMU_API CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
EMU_API CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
EMU_API CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
EMU_API CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
EMU_API CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t bytes);
EMU_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream s);

EMU_API CUresult cuCheckpointProcessGetRestoreThreadId(int pid, int *tid);
EMU_API CUresult cuCheckpointProcessGetState(int pid, CUprocessState *state);
EMU_API CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args);
EMU_API CUresult cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args);
EMU_API CUresult cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args);
EMU_API CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args);
EMU_API CUresult cuCheckpointOperationComplete(CUcheckpointOperationHandle handle);

/* the GPU hasher's module only (emu_kernel.c) */
EMU_API CUresult cuModuleLoadData(CUmodule *module, const void *image);
EMU_API CUresult cuModuleUnload(CUmodule module);
EMU_API CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name);
EMU_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
				unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared_bytes,
				CUstream stream, void **params, void **extra);

/* stream validation shared by the copy functions (emu_device.c) */
CUresult emu_stream_check(CUstream stream);

#endif /* CUDASTORE_EMU_API_H */
