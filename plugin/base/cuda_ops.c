// SPDX-License-Identifier: MIT
/*
 * cuda_ops.c - load libcuda / libnvidia-ml at run time and fill the ops tables.
 *
 * Why cuGetProcAddress and not dlsym: libcuda exports versioned entry points under their
 * oldest names (cuMemcpyDtoHAsync is the 2.0 ABI with 32-bit sizes); cuGetProcAddress at an
 * explicit version returns the ABI of that version. We ask for 12.0 for the general API,
 * 12.8 for the checkpoint API and 13.4 for cuCheckpointOperationComplete. cuStreamGetCtx is
 * asked for at 9.2 on purpose: from 12.5 on the same name resolves to the 3-argument _v2.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "cuda_ops.h"
#include "trust.h"

typedef CUresult (*get_proc_fn)(const char *sym, void **pfn, int version, cuuint64_t flags,
				CUdriverProcAddressQueryResult *status);

struct sym {
	const char *name;
	int version;
	size_t off; /* offset of the pointer in struct cs_cuda_ops */
	enum { REQUIRED, CHECKPOINT, OPTIONAL } kind;
};

#define OPS(field) offsetof(struct cs_cuda_ops, field)
static const struct sym cuda_syms[] = {
	{ "cuInit", 12000, OPS(Init), REQUIRED },
	{ "cuDriverGetVersion", 12000, OPS(DriverGetVersion), REQUIRED },
	{ "cuGetErrorName", 12000, OPS(GetErrorName), REQUIRED },
	{ "cuGetErrorString", 12000, OPS(GetErrorString), REQUIRED },
	{ "cuDeviceGetCount", 12000, OPS(DeviceGetCount), REQUIRED },
	{ "cuDeviceGet", 12000, OPS(DeviceGet), REQUIRED },
	{ "cuDeviceGetName", 12000, OPS(DeviceGetName), REQUIRED },
	{ "cuDeviceGetUuid", 12000, OPS(DeviceGetUuid), REQUIRED },
	{ "cuDeviceTotalMem", 12000, OPS(DeviceTotalMem), REQUIRED },
	{ "cuDeviceGetAttribute", 12000, OPS(DeviceGetAttribute), REQUIRED },
	{ "cuDeviceGetPCIBusId", 12000, OPS(DeviceGetPCIBusId), OPTIONAL },
	{ "cuDevicePrimaryCtxRetain", 12000, OPS(DevicePrimaryCtxRetain), REQUIRED },
	{ "cuDevicePrimaryCtxRelease", 12000, OPS(DevicePrimaryCtxRelease), REQUIRED },
	{ "cuCtxSetCurrent", 12000, OPS(CtxSetCurrent), REQUIRED },
	{ "cuCtxGetCurrent", 12000, OPS(CtxGetCurrent), REQUIRED },
	{ "cuCtxGetDevice", 12000, OPS(CtxGetDevice), REQUIRED },
	{ "cuCtxSynchronize", 12000, OPS(CtxSynchronize), REQUIRED },
	{ "cuStreamCreate", 12000, OPS(StreamCreate), REQUIRED },
	{ "cuStreamDestroy", 12000, OPS(StreamDestroy), REQUIRED },
	{ "cuStreamSynchronize", 12000, OPS(StreamSynchronize), REQUIRED },
	{ "cuStreamGetCtx", 9020, OPS(StreamGetCtx), REQUIRED },
	{ "cuStreamGetDevice", 12080, OPS(StreamGetDevice), OPTIONAL },
	{ "cuEventCreate", 12000, OPS(EventCreate), REQUIRED },
	{ "cuEventDestroy", 12000, OPS(EventDestroy), REQUIRED },
	{ "cuEventRecord", 12000, OPS(EventRecord), REQUIRED },
	{ "cuEventSynchronize", 12000, OPS(EventSynchronize), REQUIRED },
	{ "cuEventQuery", 12000, OPS(EventQuery), REQUIRED },
	{ "cuMemAlloc", 12000, OPS(MemAlloc), REQUIRED },
	{ "cuMemFree", 12000, OPS(MemFree), REQUIRED },
	{ "cuMemGetInfo", 12000, OPS(MemGetInfo), REQUIRED },
	{ "cuMemHostAlloc", 12000, OPS(MemHostAlloc), REQUIRED },
	{ "cuMemFreeHost", 12000, OPS(MemFreeHost), REQUIRED },
	{ "cuMemcpyHtoD", 12000, OPS(MemcpyHtoD), REQUIRED },
	{ "cuMemcpyDtoH", 12000, OPS(MemcpyDtoH), REQUIRED },
	{ "cuMemcpyDtoD", 12000, OPS(MemcpyDtoD), REQUIRED },
	{ "cuMemcpyHtoDAsync", 12000, OPS(MemcpyHtoDAsync), REQUIRED },
	{ "cuMemcpyDtoHAsync", 12000, OPS(MemcpyDtoHAsync), REQUIRED },
	{ "cuMemsetD8", 12000, OPS(MemsetD8), REQUIRED },
	{ "cuMemsetD8Async", 12000, OPS(MemsetD8Async), REQUIRED },
	{ "cuModuleLoadData", 12000, OPS(ModuleLoadData), OPTIONAL },
	{ "cuModuleUnload", 12000, OPS(ModuleUnload), OPTIONAL },
	{ "cuModuleGetFunction", 12000, OPS(ModuleGetFunction), OPTIONAL },
	{ "cuLaunchKernel", 12000, OPS(LaunchKernel), OPTIONAL },
	{ "cuCheckpointProcessGetRestoreThreadId", 12080, OPS(CheckpointProcessGetRestoreThreadId),
	  CHECKPOINT },
	{ "cuCheckpointProcessGetState", 12080, OPS(CheckpointProcessGetState), CHECKPOINT },
	{ "cuCheckpointProcessLock", 12080, OPS(CheckpointProcessLock), CHECKPOINT },
	{ "cuCheckpointProcessCheckpoint", 12080, OPS(CheckpointProcessCheckpoint), CHECKPOINT },
	{ "cuCheckpointProcessRestore", 12080, OPS(CheckpointProcessRestore), CHECKPOINT },
	{ "cuCheckpointProcessUnlock", 12080, OPS(CheckpointProcessUnlock), CHECKPOINT },
};
#undef OPS

/*
 * A bare name is the loader's to find, in the system's library directories (the helper runs
 * without LD_LIBRARY_PATH). A path must pass cs_trust_path: root loads it. NULL: see *ret.
 */
static void *open_lib(const char *what, const char *path, int *ret, char *err, size_t errlen)
{
	char resolved[PATH_MAX];
	void *lib;

	*ret = 0;
	if (strchr(path, '/')) {
		*ret = cs_trust_path(path, what, resolved, sizeof(resolved), err, errlen);
		if (*ret)
			return NULL;
		path = resolved;
	}
	/* RTLD_NODELETE: libcuda keeps threads and state after cuInit; never unmap it under them */
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib) {
		cs_seterr(err, errlen, "cannot load %s: %s", path, dlerror());
		*ret = -ENOENT;
	}
	return lib;
}

static int resolve(get_proc_fn gpa, const char *name, int version, void **out)
{
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult res;

	*out = NULL;
	res = gpa(name, out, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
	if (res != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !*out) {
		*out = NULL;
		return -ENOSYS;
	}
	return 0;
}

/* CustomStorage needs a 13.4 driver *and* cuCheckpointOperationComplete at its 13.4 ABI */
static void detect_custom_storage(struct cs_cuda_ops *ops, get_proc_fn gpa)
{
	void *fn = NULL;

	ops->has_custom_storage = false;
	if (ops->driver_version < CUDASTORE_CUDA_13_4 || !ops->has_checkpoint)
		return;
	if (resolve(gpa, "cuCheckpointOperationComplete", CUDASTORE_CUDA_13_4, &fn))
		return;
	ops->CheckpointOperationComplete = (CUresult(*)(CUcheckpointOperationHandle))fn;
	ops->has_custom_storage = true;
}

int cs_cuda_load(struct cs_cuda_ops *ops, const char *path, char *err, size_t errlen)
{
	get_proc_fn gpa;
	size_t i;
	void *fn;
	int ret;

	memset(ops, 0, sizeof(*ops));
	if (!path)
		path = getenv(CS_LIBCUDA_ENV);
	if (!path || !*path)
		path = "libcuda.so.1";
	snprintf(ops->path, sizeof(ops->path), "%s", path);
	ops->lib = open_lib("libcuda", path, &ret, err, errlen);
	if (!ops->lib)
		return ret;
	gpa = (get_proc_fn)dlsym(ops->lib, "cuGetProcAddress_v2");
	if (!gpa) {
		cs_seterr(err, errlen, "%s has no cuGetProcAddress_v2 (driver older than CUDA 12.0?)", path);
		goto err_close;
	}
	for (i = 0; i < sizeof(cuda_syms) / sizeof(cuda_syms[0]); i++) {
		const struct sym *s = &cuda_syms[i];

		if (resolve(gpa, s->name, s->version, &fn) && s->kind == REQUIRED) {
			cs_seterr(err, errlen, "%s: %s (CUDA %d ABI) is missing", path, s->name, s->version);
			goto err_close;
		}
		memcpy((char *)ops + s->off, &fn, sizeof(fn));
	}
	if (ops->DriverGetVersion(&ops->driver_version) != CUDA_SUCCESS) {
		cs_seterr(err, errlen, "%s: cuDriverGetVersion failed", path);
		dlclose(ops->lib);
		ops->lib = NULL;
		return -EPROTO;
	}
	ops->has_checkpoint = ops->CheckpointProcessGetRestoreThreadId && ops->CheckpointProcessGetState &&
			      ops->CheckpointProcessLock && ops->CheckpointProcessCheckpoint &&
			      ops->CheckpointProcessRestore && ops->CheckpointProcessUnlock;
	detect_custom_storage(ops, gpa);
	return 0;

err_close:
	dlclose(ops->lib);
	ops->lib = NULL;
	return -ENOSYS;
}

void cs_cuda_unload(struct cs_cuda_ops *ops)
{
	if (!ops || !ops->lib)
		return;
	dlclose(ops->lib);
	memset(ops, 0, sizeof(*ops));
}

const char *cs_cuda_errname(const struct cs_cuda_ops *ops, CUresult res)
{
	const char *name = NULL;

	if (ops && ops->GetErrorName && ops->GetErrorName(res, &name) == CUDA_SUCCESS && name)
		return name;
	switch (res) {
	case CUDA_SUCCESS:
		return "CUDA_SUCCESS";
	case CUDA_ERROR_INVALID_VALUE:
		return "CUDA_ERROR_INVALID_VALUE";
	case CUDA_ERROR_OUT_OF_MEMORY:
		return "CUDA_ERROR_OUT_OF_MEMORY";
	case CUDA_ERROR_NOT_INITIALIZED:
		return "CUDA_ERROR_NOT_INITIALIZED";
	case CUDA_ERROR_INVALID_CONTEXT:
		return "CUDA_ERROR_INVALID_CONTEXT";
	case CUDA_ERROR_OPERATING_SYSTEM:
		return "CUDA_ERROR_OPERATING_SYSTEM";
	case CUDA_ERROR_ILLEGAL_STATE:
		return "CUDA_ERROR_ILLEGAL_STATE";
	case CUDA_ERROR_NOT_READY:
		return "CUDA_ERROR_NOT_READY";
	case CUDA_ERROR_NOT_SUPPORTED:
		return "CUDA_ERROR_NOT_SUPPORTED";
	case CUDA_ERROR_TIMEOUT:
		return "CUDA_ERROR_TIMEOUT";
	default:
		return "CUDA_ERROR_(unknown code)";
	}
}

const char *cs_cuda_state_name(CUprocessState state)
{
	static const char *const names[] = {
		[CU_PROCESS_STATE_RUNNING] = "running",
		[CU_PROCESS_STATE_LOCKED] = "locked",
		[CU_PROCESS_STATE_CHECKPOINTED] = "checkpointed",
		[CU_PROCESS_STATE_FAILED] = "failed",
		[CU_PROCESS_STATE_CHECKPOINTING] = "checkpointing",
		[CU_PROCESS_STATE_RESTORING] = "restoring",
	};

	if ((unsigned)state >= sizeof(names) / sizeof(names[0]) || !names[state])
		return "unknown";
	return names[state];
}

#define NVML_SYM(field, name)                                                                                \
	{                                                                                                    \
		name, offsetof(struct cs_nvml_ops, field), false                                             \
	}
static const struct {
	const char *name;
	size_t off;
	bool optional;
} nvml_syms[] = {
	NVML_SYM(Init, "nvmlInit_v2"),
	NVML_SYM(Shutdown, "nvmlShutdown"),
	NVML_SYM(DeviceGetCount, "nvmlDeviceGetCount_v2"),
	NVML_SYM(DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2"),
	NVML_SYM(DeviceGetHandleByUUID, "nvmlDeviceGetHandleByUUID"),
	NVML_SYM(DeviceGetUUID, "nvmlDeviceGetUUID"),
	NVML_SYM(DeviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses_v3"),
	NVML_SYM(SystemGetDriverVersion, "nvmlSystemGetDriverVersion"),
	{ "nvmlDeviceGetMemoryInfo", offsetof(struct cs_nvml_ops, DeviceGetMemoryInfo), true },
	{ "nvmlDeviceGetMigMode", offsetof(struct cs_nvml_ops, DeviceGetMigMode), true },
	{ "nvmlDeviceGetMinorNumber", offsetof(struct cs_nvml_ops, DeviceGetMinorNumber), true },
};
#undef NVML_SYM

int cs_nvml_load(struct cs_nvml_ops *ops, const char *path, char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(ops, 0, sizeof(*ops));
	if (!path)
		path = getenv(CS_LIBNVML_ENV);
	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	ops->lib = open_lib("libnvml", path, &ret, err, errlen);
	if (!ops->lib)
		return ret;
	for (i = 0; i < sizeof(nvml_syms) / sizeof(nvml_syms[0]); i++) {
		void *fn = dlsym(ops->lib, nvml_syms[i].name);

		if (!fn && !nvml_syms[i].optional) {
			cs_seterr(err, errlen, "%s: %s is missing", path, nvml_syms[i].name);
			dlclose(ops->lib);
			ops->lib = NULL;
			return -ENOSYS;
		}
		memcpy((char *)ops + nvml_syms[i].off, &fn, sizeof(fn));
	}
	return 0;
}

void cs_nvml_unload(struct cs_nvml_ops *ops)
{
	if (!ops || !ops->lib)
		return;
	dlclose(ops->lib);
	memset(ops, 0, sizeof(*ops));
}
