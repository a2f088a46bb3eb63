/* SPDX-License-Identifier: MIT */
/* cuda-abi.h - the ABI facts compared between our cuda_api.h and a real cuda.h (same order). */
#ifndef CUDASTORE_TEST_CUDA_ABI_H
#define CUDASTORE_TEST_CUDA_ABI_H

/* X(name, expression) - evaluated once against each header */
#define CS_ABI_FACTS(X)                                                                           \
	X("sizeof(CUuuid)", sizeof(CUuuid))                                                      \
	X("sizeof(CUdeviceptr)", sizeof(CUdeviceptr))                                            \
	X("sizeof(CUprocessState)", sizeof(CUprocessState))                                      \
	X("sizeof(CUcheckpointLockArgs)", sizeof(CUcheckpointLockArgs))                          \
	X("offsetof(CUcheckpointLockArgs, reserved0)", offsetof(CUcheckpointLockArgs, reserved0)) \
	X("sizeof(CUcheckpointCheckpointArgs)", sizeof(CUcheckpointCheckpointArgs))              \
	X("sizeof(CUcheckpointRestoreArgs)", sizeof(CUcheckpointRestoreArgs))                    \
	X("offsetof(CUcheckpointRestoreArgs, gpuPairs)", offsetof(CUcheckpointRestoreArgs, gpuPairs)) \
	X("offsetof(CUcheckpointRestoreArgs, gpuPairsCount)",                                    \
	  offsetof(CUcheckpointRestoreArgs, gpuPairsCount))                                      \
	X("sizeof(CUcheckpointUnlockArgs)", sizeof(CUcheckpointUnlockArgs))                      \
	X("sizeof(CUcheckpointGpuPair)", sizeof(CUcheckpointGpuPair))                            \
	X("offsetof(CUcheckpointGpuPair, newUuid)", offsetof(CUcheckpointGpuPair, newUuid))      \
	X("CU_PROCESS_STATE_RUNNING", CU_PROCESS_STATE_RUNNING)                                  \
	X("CU_PROCESS_STATE_LOCKED", CU_PROCESS_STATE_LOCKED)                                    \
	X("CU_PROCESS_STATE_CHECKPOINTED", CU_PROCESS_STATE_CHECKPOINTED)                        \
	X("CU_PROCESS_STATE_FAILED", CU_PROCESS_STATE_FAILED)                                    \
	X("CUDA_ERROR_INVALID_VALUE", CUDA_ERROR_INVALID_VALUE)                                  \
	X("CUDA_ERROR_NOT_INITIALIZED", CUDA_ERROR_NOT_INITIALIZED)                              \
	X("CUDA_ERROR_INVALID_CONTEXT", CUDA_ERROR_INVALID_CONTEXT)                              \
	X("CUDA_ERROR_OPERATING_SYSTEM", CUDA_ERROR_OPERATING_SYSTEM)                            \
	X("CUDA_ERROR_ILLEGAL_STATE", CUDA_ERROR_ILLEGAL_STATE)                                  \
	X("CUDA_ERROR_NOT_READY", CUDA_ERROR_NOT_READY)                                          \
	X("CUDA_ERROR_NOT_SUPPORTED", CUDA_ERROR_NOT_SUPPORTED)                                  \
	X("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)        \
	X("CUDA_ERROR_TIMEOUT", CUDA_ERROR_TIMEOUT)                                              \
	X("CU_STREAM_NON_BLOCKING", CU_STREAM_NON_BLOCKING)                                      \
	X("CU_EVENT_DISABLE_TIMING", CU_EVENT_DISABLE_TIMING)                                    \
	X("CU_MEMHOSTALLOC_PORTABLE", CU_MEMHOSTALLOC_PORTABLE)                                  \
	X("CU_GET_PROC_ADDRESS_DEFAULT", CU_GET_PROC_ADDRESS_DEFAULT)                            \
	X("CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND", CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)          \
	X("CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT", CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT) \
	X("CU_DEVICE_ATTRIBUTE_PCI_BUS_ID", CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)

struct cs_abi_fact {
	const char *name;
	long value;
};

extern const struct cs_abi_fact cs_abi_ours[], cs_abi_cuda_h[];
extern const int cs_abi_cuda_version;

#endif
