// SPDX-License-Identifier: MIT
/* custom_view.c - validate and identify the driver's CustomStorage entries; Complete (see custom_view.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "custom_view.h"
#include "log.h"

static int cmp_region(const void *a, const void *b)
{
	const struct cs_gpu_region *x = a, *y = b;

	return x->ordinal - y->ordinal;
}

int cs_custom_view_collect(struct cs_ctx *ctx, pid_t pid, const CUcheckpointCustomStorageInfo *info,
			   struct cs_gpu_view *view)
{
	unsigned i, j;

	memset(view, 0, sizeof(*view));
	if (!info || !info->handle) {
		cs_err("pid %d: the driver returned no CustomStorage view (info %p); driver too old?", pid,
		       (const void *)info);
		return -EPROTO;
	}
	view->handle = info->handle;
	if (info->deviceCount > CS_MAX_DEVICES || (info->deviceCount && !info->perDeviceData)) {
		cs_err("pid %d: the driver returned %u device entries (limit %d, array %p)", pid,
		       info->deviceCount, CS_MAX_DEVICES, (const void *)info->perDeviceData);
		return -EPROTO;
	}
	for (i = 0; i < info->deviceCount; i++) {
		const CUcheckpointCustomStoragePerDeviceData *d = &info->perDeviceData[i];
		struct cs_gpu_region *r = &view->r[view->n];
		int ord;

		if (!d->size || d->size > CS_MAX_DEVICE_BYTES || !d->devPtr) {
			cs_err("pid %d: driver entry %u has size %zu at 0x%llx (must be 1..%llu bytes)", pid,
			       i, d->size, d->devPtr, CS_MAX_DEVICE_BYTES);
			return -EPROTO;
		}
		ord = cs_dev_of_stream(&ctx->gpus, d->stream);
		if (ord < 0 || cs_dev_uuid(&ctx->gpus, ord, &r->uuid)) {
			cs_err("pid %d: cannot tell which GPU driver entry %u belongs to (its stream has no "
			       "known context)",
			       pid, i);
			return -EPROTO;
		}
		for (j = 0; j < view->n; j++)
			if (view->r[j].ordinal == ord) {
				cs_err("pid %d: the driver returned two entries for GPU %d", pid, ord);
				return -EPROTO;
			}
		r->ordinal = ord;
		r->ptr = d->devPtr;
		r->size = d->size;
		r->stream = d->stream;
		view->n++;
	}
	qsort(view->r, view->n, sizeof(view->r[0]), cmp_region);
	return 0;
}

int cs_custom_view_complete(struct cs_ctx *ctx, pid_t pid, struct cs_gpu_view *view)
{
	struct cs_cuda_ops *cu = &ctx->cuda;
	CUresult res;

	res = cu->CheckpointOperationComplete(view->handle);
	view->handle = NULL; /* the driver's view is gone, whatever Complete returned */
	if (res != CUDA_SUCCESS) {
		cs_err("pid %d: cuCheckpointOperationComplete failed: %s", pid, cs_cuda_errname(cu, res));
		return -EPROTO;
	}
	return 0;
}
