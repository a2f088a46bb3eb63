/* SPDX-License-Identifier: MIT */
/*
 * cuda_api.h - our own declarations of the CUDA Driver API subset cudastore uses.
 *
 * libcuda is never linked: the plugin, the workload and the benchmark reach it through
 * dlopen + cuGetProcAddress (see cuda_ops.h). These declarations follow the CUDA 13.4
 * documentation; the checkpoint argument structs use the 13.4 layouts, which are
 * binary-compatible with 13.0 when the new fields are zero (docs/design.md, "Driver ABI").
 * Every size and offset the driver relies on is pinned by a _Static_assert below; when a
 * real cuda.h is available at build time, tests/base/test-cuda-abi-matches-cuda-h compares them.
 */
#ifndef CUDASTORE_CUDA_API_H
#define CUDASTORE_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_ILLEGAL_STATE = 401,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_TIMEOUT = 909,
	CUDA_ERROR_UNKNOWN = 999,
};

typedef uint64_t cuuint64_t;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUuuid_st {
	char bytes[16];
} CUuuid;

#define CU_STREAM_NON_BLOCKING	    0x1
#define CU_EVENT_DISABLE_TIMING	    0x2
#define CU_MEMHOSTALLOC_PORTABLE    0x01
#define CU_GET_PROC_ADDRESS_DEFAULT 0

typedef enum {
	CU_GET_PROC_ADDRESS_SUCCESS = 0,
	CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
	CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
} CUdriverProcAddressQueryResult;

enum {
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

/* CUprocessState: 0-3 exist since 12.8; 4 and 5 are new with CustomStorage (13.4). */
typedef enum {
	CU_PROCESS_STATE_RUNNING = 0,
	CU_PROCESS_STATE_LOCKED = 1,
	CU_PROCESS_STATE_CHECKPOINTED = 2,
	CU_PROCESS_STATE_FAILED = 3,
	CU_PROCESS_STATE_CHECKPOINTING = 4,
	CU_PROCESS_STATE_RESTORING = 5,
} CUprocessState;

/* CUDA version numbers as cuDriverGetVersion and cuGetProcAddress use them (1000*major + 10*minor) */
#define CUDASTORE_CUDA_12_0 12000
#define CUDASTORE_CUDA_12_8 12080
#define CUDASTORE_CUDA_13_0 13000
#define CUDASTORE_CUDA_13_4 13040

typedef struct CUIcheckpointOperation_st *CUcheckpointOperationHandle;

typedef struct CUcheckpointCustomStoragePerDeviceData_st {
	CUdeviceptr devPtr; /* mapping of the target's memory on one GPU, in the caller */
	size_t size;
	CUstream stream; /* in that GPU's primary context; synchronized by Complete */
} CUcheckpointCustomStoragePerDeviceData;

typedef struct CUcheckpointCustomStorageInfo_st {
	CUcheckpointOperationHandle handle;
	CUcheckpointCustomStoragePerDeviceData *perDeviceData; /* driver-owned, any order */
	unsigned int deviceCount;
} CUcheckpointCustomStorageInfo;

typedef struct CUcheckpointLockArgs_st {
	unsigned int timeoutMs; /* 0 = wait forever */
	unsigned int reserved0;
	cuuint64_t reserved1[7];
} CUcheckpointLockArgs;

typedef struct CUcheckpointCheckpointArgs_st {
	CUcheckpointCustomStorageInfo **customStorageInfo_out; /* 13.4; NULL = driver-managed */
	char reserved[64 - sizeof(CUcheckpointCustomStorageInfo **)];
} CUcheckpointCheckpointArgs;

typedef struct CUcheckpointGpuPair_st {
	CUuuid oldUuid;
	CUuuid newUuid;
} CUcheckpointGpuPair;

typedef struct CUcheckpointRestoreArgs_st {
	CUcheckpointGpuPair *gpuPairs;
	unsigned int gpuPairsCount;
	unsigned int padding0;
	CUcheckpointCustomStorageInfo **customStorageInfo_out; /* 13.4; NULL = driver-managed */
	char reserved[64 - 2 * sizeof(void *) - 2 * sizeof(unsigned int)];
} CUcheckpointRestoreArgs;

typedef struct CUcheckpointUnlockArgs_st {
	cuuint64_t reserved[8];
} CUcheckpointUnlockArgs;

_Static_assert(sizeof(CUuuid) == 16, "CUuuid");
_Static_assert(sizeof(CUprocessState) == 4, "CUprocessState");
_Static_assert(sizeof(CUcheckpointLockArgs) == 64, "LockArgs size");
_Static_assert(offsetof(CUcheckpointLockArgs, reserved1) == 8, "LockArgs.reserved1");
_Static_assert(sizeof(CUcheckpointCheckpointArgs) == 64, "CheckpointArgs size");
_Static_assert(offsetof(CUcheckpointCheckpointArgs, reserved) == 8, "CheckpointArgs.reserved");
_Static_assert(sizeof(CUcheckpointRestoreArgs) == 64, "RestoreArgs size");
_Static_assert(offsetof(CUcheckpointRestoreArgs, gpuPairsCount) == 8, "RestoreArgs.gpuPairsCount");
_Static_assert(offsetof(CUcheckpointRestoreArgs, padding0) == 12, "RestoreArgs.padding0");
_Static_assert(offsetof(CUcheckpointRestoreArgs, customStorageInfo_out) == 16,
	       "RestoreArgs.customStorageInfo_out");
_Static_assert(offsetof(CUcheckpointRestoreArgs, reserved) == 24, "RestoreArgs.reserved");
_Static_assert(sizeof(CUcheckpointUnlockArgs) == 64, "UnlockArgs size");
_Static_assert(sizeof(CUcheckpointGpuPair) == 32, "GpuPair size");
_Static_assert(offsetof(CUcheckpointGpuPair, newUuid) == 16, "GpuPair.newUuid");
_Static_assert(sizeof(CUcheckpointCustomStorageInfo) == 24, "CustomStorageInfo size");
_Static_assert(offsetof(CUcheckpointCustomStorageInfo, perDeviceData) == 8, "Info.perDeviceData");
_Static_assert(offsetof(CUcheckpointCustomStorageInfo, deviceCount) == 16, "Info.deviceCount");
_Static_assert(sizeof(CUcheckpointCustomStoragePerDeviceData) == 24, "PerDeviceData size");
_Static_assert(offsetof(CUcheckpointCustomStoragePerDeviceData, size) == 8, "PerDeviceData.size");
_Static_assert(offsetof(CUcheckpointCustomStoragePerDeviceData, stream) == 16, "PerDeviceData.stream");

/* ---- NVML subset (libnvidia-ml.so.1), used to plan a dump before the process is touched ---- */
typedef int nvmlReturn_t;
enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_UNKNOWN = 999,
};
typedef struct nvmlDevice_st *nvmlDevice_t;
/* nvmlMemory_t, as nvmlDeviceGetMemoryInfo fills it (bytes) */
typedef struct nvmlMemory_st {
	unsigned long long total, free, used;
} nvmlMemory_t;
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
#define NVML_DEVICE_MIG_ENABLE		1
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
/* nvmlProcessInfo_t as returned by nvmlDeviceGetComputeRunningProcesses_v3 */
typedef struct nvmlProcessInfo_st {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t");

#endif /* CUDASTORE_CUDA_API_H */
