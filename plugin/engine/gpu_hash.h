/* SPDX-License-Identifier: MIT */
/*
 * gpu_hash.h - chunk ids (images/chunk_id.h, "sha256-tree-4k") computed on the GPU, over device
 * memory where it lies, in the current CUDA context: a kernel loaded from the PTX kept in the
 * tree (gpu_hash.cu, gpu_hash.ptx) with cuModuleLoadData hashes every 4 KiB leaf, a second one
 * each chunk's root. The ids equal cs_chunk_id() of each chunk's bytes; only the ids cross PCIe.
 */
#ifndef CUDASTORE_GPU_HASH_H
#define CUDASTORE_GPU_HASH_H

#include <stdint.h>

#include "cuda_ops.h"

struct eng_gpu_hasher;

/*
 * Load the kernels into the current context. 0, or -ENOTSUP: the driver cannot load or run them
 * (an entry point missing, the PTX refused): the caller hashes on the CPU; -ENOMEM.
 */
int eng_gpu_hasher_open(const struct cs_cuda_ops *ops, struct eng_gpu_hasher **out);

/*
 * One id per chunk of chunk bytes of the len bytes at dptr (the last chunk may be short) into
 * ids (CS_CHUNK_ID_LEN * ceil(len / chunk) bytes). Returns when the ids are on the host. The
 * kernels run on the legacy default stream: writes to the region queued on non-blocking streams
 * must be complete before the call. A hasher serves one call at a time (its scratch memory is
 * its own); callers hashing from several threads open one each.
 * 0, or -EINVAL (chunk 0), -ENOMEM (no device memory for the leaves' digests), -EIO (a launch
 * or copy failed).
 */
int eng_gpu_hash(struct eng_gpu_hasher *h, CUdeviceptr dptr, uint64_t len, uint64_t chunk, uint8_t *ids);

/* Unload the kernels and free what the hasher holds; NULL is allowed. */
void eng_gpu_hasher_close(struct eng_gpu_hasher *h);

#endif /* CUDASTORE_GPU_HASH_H */
