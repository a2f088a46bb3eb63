// SPDX-License-Identifier: MIT
/* gpuop.c - validate and identify the driver's CustomStorage entries; Complete; state checks */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "gpuop.h"
#include "test_hooks.h"
#include "log.h"

_Static_assert(CS_ENGINE_NOTE_WARN == CS_LOG_WARN && CS_ENGINE_NOTE_INFO == CS_LOG_INFO &&
		   CS_ENGINE_NOTE_DEBUG == CS_LOG_DEBUG,
	       "the engine's notes are logged at their own level");

static int cmp_region(const void *a, const void *b)
{
	const struct cs_gpu_region *x = a, *y = b;

	return x->ordinal - y->ordinal;
}

int cs_gpuop_collect(struct cs_ctx *ctx, pid_t pid, const CUcheckpointCustomStorageInfo *info,
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
		ord = cs_dev_of_stream(ctx, d->stream);
		if (ord < 0 || cs_dev_uuid(ctx, ord, &r->uuid)) {
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

int cs_gpuop_complete(struct cs_ctx *ctx, pid_t pid, struct cs_gpu_view *view)
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

static void progress(void *arg, unsigned region, uint64_t done, uint64_t total)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pid_t pid = (pid_t)(long)arg;

	pthread_mutex_lock(&lock);
	cs_info("pid %d: GPU region %u: %.0f%% (%.1f / %.1f MiB)", pid, region,
		total ? 100.0 * done / total : 100.0, done / 1048576.0, total / 1048576.0);
	pthread_mutex_unlock(&lock);
	cs_test_stall("copy-out");
}

void cs_gpuop_engine_opts(struct cs_ctx *ctx, struct cs_engine_opts *eo)
{
	cs_engine_opts_default(eo);
	eo->chunk_size = ctx->opt.chunk_size;
	eo->threads = ctx->opt.threads;
	eo->pinned_max = ctx->opt.pinned_max;
	eo->direct_io = ctx->opt.direct_io;
	eo->map_tmpfs = ctx->opt.tmpfs_map;
	eo->stripes = ctx->opt.stripes;
	eo->skip_zero = ctx->opt.skip_zero;
	/* space_check = no: the user says the images fit although the GPU memory does not; only the
	 * non-zero chunks will take space, so nothing is reserved at full size either */
	eo->no_reserve = !ctx->opt.space_check;
	eo->progress = progress;
	eo->note = cs_log_text;	    /* into this helper's log, as criu relays it */
	eo->sharers = ctx->sharers; /* copies of other processes running at once (batch.h) */
}

int cs_gpuop_expect_state(struct cs_ctx *ctx, pid_t pid, CUprocessState want, const char *after)
{
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	CUresult res;

	res = ctx->cuda.CheckpointProcessGetState(pid, &st);
	if (res == CUDA_SUCCESS && st == want)
		return 0;
	if (res != CUDA_SUCCESS)
		cs_err("pid %d: cannot read its CUDA state after %s: %s", pid, after,
		       cs_cuda_errname(&ctx->cuda, res));
	else
		cs_err("pid %d: CUDA state is %s after %s, expected %s", pid, cs_cuda_state_name(st), after,
		       cs_cuda_state_name(want));
	return -EPROTO;
}
