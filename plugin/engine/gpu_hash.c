/* SPDX-License-Identifier: MIT */
/*
 * gpu_hash.c - chunk ids on the GPU (gpu_hash.h). Until the kernels are in, every open says the
 * driver cannot run them, and callers hash on the CPU.
 */
#include <errno.h>
#include <stddef.h>

#include "gpu_hash.h"

int eng_gpu_hasher_open(const struct cs_cuda_ops *ops, struct eng_gpu_hasher **out)
{
	*out = NULL;
	return -ENOTSUP;
}

int eng_gpu_hash(struct eng_gpu_hasher *h, CUdeviceptr dptr, uint64_t len, uint64_t chunk, uint8_t *ids)
{
	return -ENOTSUP;
}

void eng_gpu_hasher_close(struct eng_gpu_hasher *h)
{
}
