/* SPDX-License-Identifier: MIT */
/*
 * custom_view.h - what a CustomStorage checkpoint/restore call hands back, made safe to use.
 *
 * The driver returns one entry per GPU, in no particular order. cs_custom_view_collect()
 * copies the entries out of the driver-owned struct (it is invalid after Complete), checks
 * them (non-NULL, sizes > 0 and bounded, count bounded, no GPU twice), identifies each entry's
 * GPU by its stream's primary context, and sorts them by ordinal.
 */
#ifndef CUDASTORE_CUSTOM_VIEW_H
#define CUDASTORE_CUSTOM_VIEW_H

#include "context.h"

struct cs_gpu_region {
	int ordinal;
	CUuuid uuid;
	CUdeviceptr ptr;
	uint64_t size;
	CUstream stream;
};

struct cs_gpu_view {
	CUcheckpointOperationHandle handle;
	unsigned n;
	struct cs_gpu_region r[CS_MAX_DEVICES];
};

int cs_custom_view_collect(struct cs_ctx *ctx, pid_t pid, const CUcheckpointCustomStorageInfo *info,
			   struct cs_gpu_view *view);
/* cuCheckpointOperationComplete (the driver synchronizes the streams it returned; the engine
 * has already synchronized its own). The view's handle is invalid afterwards, whatever happened. */
int cs_custom_view_complete(struct cs_ctx *ctx, pid_t pid, struct cs_gpu_view *view);

#endif /* CUDASTORE_CUSTOM_VIEW_H */
