// SPDX-License-Identifier: MIT
/*
 * hostops.c - a struct cs_cuda_ops that moves nothing to a GPU.
 *
 * cudastore verify runs the copy engine's own restore (cs_engine_restore: the same chunk
 * plan, threads, O_DIRECT reads, zero-flag and XXH3 checks, and error messages as a real
 * restore) with these ops: "pinned" buffers are page-aligned heap memory, streams and
 * events are tokens, and the host-to-device copies and device memsets do nothing. So the
 * verdict and the chunk named are those of a restore, without a GPU or libcuda.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static CUresult h_ctx_set(CUcontext ctx)
{
	return CUDA_SUCCESS;
}

static CUresult h_stream_create(CUstream *s, unsigned int flags)
{
	*s = (CUstream)(uintptr_t)1;
	return CUDA_SUCCESS;
}

static CUresult h_stream(CUstream s)
{
	return CUDA_SUCCESS;
}

static CUresult h_event_create(CUevent *ev, unsigned int flags)
{
	*ev = (CUevent)(uintptr_t)1;
	return CUDA_SUCCESS;
}

static CUresult h_event(CUevent ev)
{
	return CUDA_SUCCESS;
}

static CUresult h_event_record(CUevent ev, CUstream s)
{
	return CUDA_SUCCESS;
}

static CUresult h_host_alloc(void **pp, size_t bytes, unsigned int flags)
{
	/* page-aligned like pinned memory, so O_DIRECT reads work as in a restore */
	if (posix_memalign(pp, 4096, bytes ? bytes : 4096))
		return CUDA_ERROR_OUT_OF_MEMORY;
	return CUDA_SUCCESS;
}

static CUresult h_host_free(void *p)
{
	free(p);
	return CUDA_SUCCESS;
}

static CUresult h_htod_async(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	return CUDA_SUCCESS;
}

static CUresult h_memset_async(CUdeviceptr dst, unsigned char v, size_t bytes, CUstream s)
{
	return CUDA_SUCCESS;
}

void cli_hostops(struct cs_cuda_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	snprintf(ops->path, sizeof(ops->path), "host-only (cudastore verify)");
	ops->CtxSetCurrent = h_ctx_set;
	ops->StreamCreate = h_stream_create;
	ops->StreamDestroy = h_stream;
	ops->StreamSynchronize = h_stream;
	ops->EventCreate = h_event_create;
	ops->EventDestroy = h_event;
	ops->EventSynchronize = h_event;
	ops->EventRecord = h_event_record;
	ops->MemHostAlloc = h_host_alloc;
	ops->MemFreeHost = h_host_free;
	ops->MemcpyHtoDAsync = h_htod_async;
	ops->MemsetD8Async = h_memset_async;
}
