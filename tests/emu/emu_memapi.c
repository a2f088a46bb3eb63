// SPDX-License-Identifier: MIT
/*
 * emu_memapi.c - cuMem* entry points: allocation, host memory, copies and memset.
 *
 * Copies are plain memcpy, done when the call returns (the Async forms too). Every device
 * pointer is checked against the live allocations of this process and the caller-side
 * CustomStorage mappings; anything else is CUDA_ERROR_INVALID_VALUE, never a fault. Like
 * CUDA, these calls need a current context (CUDA_ERROR_INVALID_CONTEXT otherwise).
 *
 * A copy or memset through a caller-side CustomStorage mapping pins the operation while the
 * bytes move (emu_op_pin), and concerns that mapping's target: a fault "name@PID" counts it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "emu_api.h"

#define MEM_F (EMU_F_INIT | EMU_F_GATE)

/* host allocations, so cuMemFreeHost can refuse a pointer it did not hand out */
struct host_block {
	struct host_block *next;
	void *addr;
	size_t size;
};
static struct host_block *host_blocks;
static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult need_ctx(void)
{
	return emu_ctx_current_dev() < 0 ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}

static CUresult mem_alloc(CUdeviceptr *dptr, size_t bytes)
{
	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	if (need_ctx())
		return CUDA_ERROR_INVALID_CONTEXT;
	return emu_mem_alloc(emu_ctx_current_dev(), bytes, dptr);
}

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes)
{
	EMU_CALL("cuMemAlloc", MEM_F, mem_alloc(dptr, bytes));
}
EMU_API extern __typeof(cuMemAlloc) cuMemAlloc_v2 __attribute__((alias("cuMemAlloc")));

CUresult cuMemFree(CUdeviceptr dptr)
{
	EMU_CALL("cuMemFree", MEM_F, need_ctx() ? CUDA_ERROR_INVALID_CONTEXT : emu_mem_free(dptr));
}
EMU_API extern __typeof(cuMemFree) cuMemFree_v2 __attribute__((alias("cuMemFree")));

/* the current context's device: free is what other tenants and this process leave */
static CUresult mem_info(size_t *free_bytes, size_t *total_bytes)
{
	int dev = emu_ctx_current_dev();

	if (!free_bytes || !total_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	*total_bytes = emu_dev_capacity(dev);
	*free_bytes = emu_dev_avail(dev) > emu_mem_used(dev) ? emu_dev_avail(dev) - emu_mem_used(dev) : 0;
	return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	EMU_CALL("cuMemGetInfo", MEM_F, mem_info(free_bytes, total_bytes));
}
EMU_API extern __typeof(cuMemGetInfo) cuMemGetInfo_v2 __attribute__((alias("cuMemGetInfo")));

static CUresult host_alloc(void **pp, size_t bytes, unsigned int flags)
{
	struct host_block *b;

	if (!pp || !bytes || flags > 0xf)
		return CUDA_ERROR_INVALID_VALUE;
	b = calloc(1, sizeof(*b));
	if (!b)
		return CUDA_ERROR_OUT_OF_MEMORY;
	b->addr = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->addr == MAP_FAILED) {
		free(b);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	b->size = bytes;
	pthread_mutex_lock(&host_lock);
	b->next = host_blocks;
	host_blocks = b;
	pthread_mutex_unlock(&host_lock);
	*pp = b->addr;
	return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	EMU_CALL("cuMemHostAlloc", MEM_F, host_alloc(pp, bytes, flags));
}

static CUresult host_free(void *p)
{
	struct host_block **pp, *b = NULL;

	pthread_mutex_lock(&host_lock);
	for (pp = &host_blocks; *pp; pp = &(*pp)->next)
		if ((*pp)->addr == p) {
			b = *pp;
			*pp = b->next;
			break;
		}
	pthread_mutex_unlock(&host_lock);
	if (!b)
		return CUDA_ERROR_INVALID_VALUE;
	munmap(b->addr, b->size);
	free(b);
	return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p)
{
	EMU_CALL("cuMemFreeHost", MEM_F, host_free(p));
}

/* dst/src: a device pointer (is_dev) or a host pointer; resolves and copies */
static CUresult copy(uintptr_t dst, bool dst_dev, uintptr_t src, bool src_dev, size_t bytes, CUstream s,
		     bool async)
{
	struct cs_op *pin_d = NULL, *pin_s = NULL;
	void *d = (void *)dst;
	const void *sp = (const void *)src;
	CUresult res = need_ctx();

	if (res == CUDA_SUCCESS && async)
		res = emu_stream_check(s);
	if (res != CUDA_SUCCESS || !bytes)
		return res;
	if (dst_dev)
		d = emu_mem_resolve(dst, bytes, &pin_d);
	if (src_dev)
		sp = emu_mem_resolve(src, bytes, &pin_s);
	if (d && sp)
		memmove(d, sp, bytes);
	if (d && sp && src_dev && !dst_dev)
		emu_dtoh_count(bytes);
	emu_op_unpin(pin_d);
	emu_op_unpin(pin_s);
	return d && sp ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
	EMU_CALL_FOR("cuMemcpyHtoD", MEM_F, emu_op_owner(dst, bytes),
		     copy(dst, true, (uintptr_t)src, false, bytes, NULL, false));
}
EMU_API extern __typeof(cuMemcpyHtoD) cuMemcpyHtoD_v2 __attribute__((alias("cuMemcpyHtoD")));

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
	EMU_CALL_FOR("cuMemcpyDtoH", MEM_F, emu_op_owner(src, bytes),
		     copy((uintptr_t)dst, false, src, true, bytes, NULL, false));
}
EMU_API extern __typeof(cuMemcpyDtoH) cuMemcpyDtoH_v2 __attribute__((alias("cuMemcpyDtoH")));

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
	EMU_CALL("cuMemcpyDtoD", MEM_F, copy(dst, true, src, true, bytes, NULL, false));
}
EMU_API extern __typeof(cuMemcpyDtoD) cuMemcpyDtoD_v2 __attribute__((alias("cuMemcpyDtoD")));

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	EMU_CALL_FOR("cuMemcpyHtoDAsync", MEM_F, emu_op_owner(dst, bytes),
		     copy(dst, true, (uintptr_t)src, false, bytes, s, true));
}
EMU_API extern __typeof(cuMemcpyHtoDAsync) cuMemcpyHtoDAsync_v2 __attribute__((alias("cuMemcpyHtoDAsync")));

CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	EMU_CALL_FOR("cuMemcpyDtoHAsync", MEM_F, emu_op_owner(src, bytes),
		     copy((uintptr_t)dst, false, src, true, bytes, s, true));
}
EMU_API extern __typeof(cuMemcpyDtoHAsync) cuMemcpyDtoHAsync_v2 __attribute__((alias("cuMemcpyDtoHAsync")));

static CUresult memset8(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream s, bool async)
{
	CUresult res = need_ctx();
	struct cs_op *pin;
	void *d;

	if (res == CUDA_SUCCESS && async)
		res = emu_stream_check(s);
	if (res != CUDA_SUCCESS || !bytes)
		return res;
	d = emu_mem_resolve(dst, bytes, &pin);
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	memset(d, value, bytes);
	emu_op_unpin(pin);
	return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t bytes)
{
	EMU_CALL_FOR("cuMemsetD8", MEM_F, emu_op_owner(dst, bytes), memset8(dst, value, bytes, NULL, false));
}
EMU_API extern __typeof(cuMemsetD8) cuMemsetD8_v2 __attribute__((alias("cuMemsetD8")));

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream s)
{
	EMU_CALL_FOR("cuMemsetD8Async", MEM_F, emu_op_owner(dst, bytes), memset8(dst, value, bytes, s, true));
}
