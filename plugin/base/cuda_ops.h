/* SPDX-License-Identifier: MIT */
/*
 * cuda_ops.h - the one door to libcuda (and libnvidia-ml).
 *
 * cs_cuda_load() dlopens libcuda.so.1 (or $CUDASTORE_LIBCUDA / an explicit path), resolves
 * cuGetProcAddress_v2 with dlsym and every other entry point through it at an explicit
 * version, so versioned functions get their current ABI (a bare dlsym returns the oldest).
 * The driver emulator used in tests fills the same table through the same calls.
 *
 * Entries marked "optional" may be NULL after a successful load; all others are required.
 * has_custom_storage is true only if the driver reports >= 13040 *and*
 * cuCheckpointOperationComplete resolves at 13040 (docs/design.md, "Driver detection").
 */
#ifndef CUDASTORE_CUDA_OPS_H
#define CUDASTORE_CUDA_OPS_H

#include <stdbool.h>
#include "cuda_api.h"

struct cs_cuda_ops {
	void *lib;		 /* dlopen handle */
	char path[256];		 /* what was loaded */
	int driver_version;	 /* cuDriverGetVersion */
	bool has_checkpoint;	 /* cuCheckpointProcess* resolved (12.8+) */
	bool has_custom_storage; /* 13.4 CustomStorage usable */

	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*GetErrorName)(CUresult err, const char **name);
	CUresult (*GetErrorString)(CUresult err, const char **str);

	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetUuid)(CUuuid *uuid, CUdevice dev);
	CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
	CUresult (*DeviceGetAttribute)(int *value, int attrib, CUdevice dev);
	CUresult (*DeviceGetPCIBusId)(char *bus_id, int len, CUdevice dev); /* optional */

	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxGetCurrent)(CUcontext *ctx);
	CUresult (*CtxGetDevice)(CUdevice *dev);
	CUresult (*CtxSynchronize)(void);

	CUresult (*StreamCreate)(CUstream *stream, unsigned int flags);
	CUresult (*StreamDestroy)(CUstream stream);
	CUresult (*StreamSynchronize)(CUstream stream);
	CUresult (*StreamGetCtx)(CUstream stream, CUcontext *ctx);   /* 2-argument form (9.2 ABI) */
	CUresult (*StreamGetDevice)(CUstream stream, CUdevice *dev); /* optional (12.8+) */

	CUresult (*EventCreate)(CUevent *ev, unsigned int flags);
	CUresult (*EventDestroy)(CUevent ev);
	CUresult (*EventRecord)(CUevent ev, CUstream stream);
	CUresult (*EventSynchronize)(CUevent ev);
	CUresult (*EventQuery)(CUevent ev);

	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytes);
	CUresult (*MemFree)(CUdeviceptr dptr);
	CUresult (*MemGetInfo)(size_t *free_bytes, size_t *total_bytes);
	CUresult (*MemHostAlloc)(void **pp, size_t bytes, unsigned int flags);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
	CUresult (*MemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
	CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes);
	CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream s);

	/* optional: kernels from PTX (engine/gpu_hash.h); without them chunks are hashed on the CPU */
	CUresult (*ModuleLoadData)(CUmodule *module, const void *image);
	CUresult (*ModuleUnload)(CUmodule module);
	CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule module, const char *name);
	CUresult (*LaunchKernel)(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
				 unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared_bytes,
				 CUstream stream, void **params, void **extra);

	/* checkpoint API (12.8+); all NULL when has_checkpoint is false */
	CUresult (*CheckpointProcessGetRestoreThreadId)(int pid, int *tid);
	CUresult (*CheckpointProcessGetState)(int pid, CUprocessState *state);
	CUresult (*CheckpointProcessLock)(int pid, CUcheckpointLockArgs *args);
	CUresult (*CheckpointProcessCheckpoint)(int pid, CUcheckpointCheckpointArgs *args);
	CUresult (*CheckpointProcessRestore)(int pid, CUcheckpointRestoreArgs *args);
	CUresult (*CheckpointProcessUnlock)(int pid, CUcheckpointUnlockArgs *args);
	/* optional: 13.4 only */
	CUresult (*CheckpointOperationComplete)(CUcheckpointOperationHandle handle);
};

/*
 * The variables that name the libraries: the libcuda and libnvml options' (options.c reads them
 * with every other option); cs_cuda_load and cs_nvml_load read them too, for the tools and tests
 * that load no options. The helper and the command pass the option's value, which holds the
 * variable's already (the helper's environment does not carry it).
 */
#define CS_LIBCUDA_ENV "CUDASTORE_LIBCUDA"
#define CS_LIBNVML_ENV "CUDASTORE_LIBNVML"

/*
 * Load libcuda: path NULL means $CUDASTORE_LIBCUDA if set, else "libcuda.so.1" (which
 * honours LD_LIBRARY_PATH). Returns 0, or -errno with a message in err (ENOENT: library
 * not found; ENOSYS: a required entry point is missing; EPROTO: driver call failed).
 * Does not call cuInit: callers that need it call ops->Init(0) themselves.
 */
int cs_cuda_load(struct cs_cuda_ops *ops, const char *path, char *err, size_t errlen);
void cs_cuda_unload(struct cs_cuda_ops *ops);

/* "CUDA_ERROR_X (text)" for logs; never NULL; thread-safe (static strings only). */
const char *cs_cuda_errname(const struct cs_cuda_ops *ops, CUresult res);
/* A process's checkpoint state in lower case ("running", "locked", "checkpointed", ...), as logs and
 * `cudastore check` print it; "unknown" for a value the driver API does not define. Never NULL. */
const char *cs_cuda_state_name(CUprocessState state);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (41 bytes with the NUL) */
#define CS_UUID_STRLEN 41
void cs_uuid_format(const CUuuid *uuid, char out[CS_UUID_STRLEN]);
int cs_uuid_parse(const char *text, CUuuid *uuid);

struct cs_nvml_ops {
	void *lib;
	nvmlReturn_t (*Init)(void);
	nvmlReturn_t (*Shutdown)(void);
	nvmlReturn_t (*DeviceGetCount)(unsigned int *count);
	nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned int index, nvmlDevice_t *dev);
	nvmlReturn_t (*DeviceGetHandleByUUID)(const char *uuid, nvmlDevice_t *dev);
	nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t dev, char *uuid, unsigned int len);
	nvmlReturn_t (*DeviceGetComputeRunningProcesses)(nvmlDevice_t dev, unsigned int *count,
							 nvmlProcessInfo_t *infos);
	nvmlReturn_t (*SystemGetDriverVersion)(char *version, unsigned int len); /* "580.159.04" */
	/* optional: NULL when this NVML lacks them */
	nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t dev, nvmlMemory_t *memory);
	nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t dev, unsigned int *current, unsigned int *pending);
	nvmlReturn_t (*DeviceGetMinorNumber)(nvmlDevice_t dev, unsigned int *minor); /* N of /dev/nvidiaN */
};

/* path NULL: $CUDASTORE_LIBNVML, else "libnvidia-ml.so.1". 0 or -errno (err filled). */
int cs_nvml_load(struct cs_nvml_ops *ops, const char *path, char *err, size_t errlen);
void cs_nvml_unload(struct cs_nvml_ops *ops);

#endif /* CUDASTORE_CUDA_OPS_H */
