// SPDX-License-Identifier: MIT
/* devices.c - cuInit, primary contexts, UUID lookups and restore device planning */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "devices.h"
#include "log.h"

static int dev_init(struct cs_ctx *ctx)
{
	struct cs_cuda_ops *cu = &ctx->cuda;
	CUresult res;

	if (ctx->cuda_inited)
		return 0;
	res = cu->Init(0);
	if (res != CUDA_SUCCESS) {
		cs_err("cuInit failed in cudastore-helper: %s; is the GPU visible where criu runs (device "
		       "nodes, container)?",
		       cs_cuda_errname(cu, res));
		return -ENODEV;
	}
	res = cu->DeviceGetCount(&ctx->ndev);
	if (res != CUDA_SUCCESS || ctx->ndev < 0) {
		cs_err("cuDeviceGetCount failed: %s", cs_cuda_errname(cu, res));
		return -ENODEV;
	}
	if (ctx->ndev > CS_MAX_DEVICES)
		ctx->ndev = CS_MAX_DEVICES;
	ctx->cuda_inited = true;
	cs_debug("cuInit done, %d GPU(s) visible", ctx->ndev);
	return 0;
}

int cs_dev_uuid(struct cs_ctx *ctx, int ordinal, CUuuid *uuid)
{
	CUdevice dev;

	if (ctx->cuda.DeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
	    ctx->cuda.DeviceGetUuid(uuid, dev) != CUDA_SUCCESS)
		return -ENODEV;
	return 0;
}

int cs_dev_by_uuid(struct cs_ctx *ctx, const CUuuid *uuid)
{
	CUuuid u;
	int i;

	for (i = 0; i < ctx->ndev; i++)
		if (!cs_dev_uuid(ctx, i, &u) && !memcmp(&u, uuid, sizeof(u)))
			return i;
	return -ENODEV;
}

static int dev_retain(struct cs_ctx *ctx, int ordinal)
{
	struct cs_cuda_ops *cu = &ctx->cuda;
	char name[CS_UUID_STRLEN];
	CUuuid uuid;
	CUdevice dev;
	CUresult res;

	if (ordinal < 0 || ordinal >= ctx->ndev)
		return -ENODEV;
	if (ctx->retained[ordinal])
		return 0;
	res = cu->DeviceGet(&dev, ordinal);
	if (res == CUDA_SUCCESS)
		res = cu->DevicePrimaryCtxRetain(&ctx->retained[ordinal], dev);
	if (res != CUDA_SUCCESS) {
		cs_err("cannot retain the primary context of GPU %d: %s", ordinal, cs_cuda_errname(cu, res));
		ctx->retained[ordinal] = NULL;
		return -ENODEV;
	}
	cs_dev_uuid(ctx, ordinal, &uuid);
	cs_uuid_format(&uuid, name);
	cs_debug("retained primary context of GPU %d (%s)", ordinal, name);
	return 0;
}

/* the workers of a batch (batch.h) retain GPUs at the same time: one at a time here */
int cs_dev_init(struct cs_ctx *ctx)
{
	int ret;

	pthread_mutex_lock(&ctx->mu);
	ret = dev_init(ctx);
	pthread_mutex_unlock(&ctx->mu);
	return ret;
}

int cs_dev_retain(struct cs_ctx *ctx, int ordinal)
{
	int ret;

	pthread_mutex_lock(&ctx->mu);
	ret = dev_retain(ctx, ordinal);
	pthread_mutex_unlock(&ctx->mu);
	return ret;
}

int cs_dev_retain_all(struct cs_ctx *ctx)
{
	int i, ret = 0;

	pthread_mutex_lock(&ctx->mu);
	for (i = 0; i < ctx->ndev && !ret; i++)
		ret = dev_retain(ctx, i);
	pthread_mutex_unlock(&ctx->mu);
	return ret;
}

void cs_dev_release_all(struct cs_ctx *ctx)
{
	CUdevice dev;
	int i;

	for (i = 0; i < CS_MAX_DEVICES; i++) {
		if (!ctx->retained[i])
			continue;
		if (ctx->cuda.DeviceGet(&dev, i) == CUDA_SUCCESS)
			ctx->cuda.DevicePrimaryCtxRelease(dev);
		ctx->retained[i] = NULL;
	}
}

int cs_dev_of_stream(struct cs_ctx *ctx, CUstream stream)
{
	struct cs_cuda_ops *cu = &ctx->cuda;
	CUcontext sctx = NULL;
	CUdevice dev;
	int i;

	if (cu->StreamGetCtx(stream, &sctx) != CUDA_SUCCESS || !sctx)
		return -EINVAL;
	for (i = 0; i < ctx->ndev; i++)
		if (ctx->retained[i] && ctx->retained[i] == sctx)
			return i;
	/* not one of ours: ask the context itself which GPU it is on */
	if (cu->CtxSetCurrent(sctx) == CUDA_SUCCESS && cu->CtxGetDevice(&dev) == CUDA_SUCCESS && dev >= 0 &&
	    dev < ctx->ndev && ctx->retained[dev])
		return dev;
	return -EINVAL;
}

static int find_uuid(const CUuuid *list, int n, const CUuuid *u)
{
	int i;

	for (i = 0; i < n; i++)
		if (!memcmp(&list[i], u, sizeof(*u)))
			return i;
	return -1;
}

static int plan_with_map(const struct cs_manifest *m, const struct cs_device_pair *map, unsigned nmap,
			 const CUuuid *visible, int nvisible, CUuuid *dest, char *err, size_t len)
{
	char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];
	unsigned i, j;

	for (i = 0; i < m->ndev; i++) {
		for (j = 0; j < nmap; j++)
			if (!memcmp(&map[j].from, &m->dev[i].uuid, sizeof(CUuuid)))
				break;
		cs_uuid_format(&m->dev[i].uuid, a);
		if (j == nmap)
			return cs_fail(-ENODEV, err, len,
				       "device_map does not list checkpointed GPU %s; the driver needs "
				       "every checkpointed GPU in the map",
				       a);
		dest[i] = map[j].to;
		cs_uuid_format(&dest[i], b);
		if (find_uuid(visible, nvisible, &dest[i]) < 0)
			return cs_fail(-ENODEV, err, len,
				       "device_map sends %s to %s, which is not visible here", a, b);
		if (find_uuid(dest, (int)i, &dest[i]) >= 0)
			return cs_fail(-ENODEV, err, len, "device_map sends two checkpointed GPUs to %s", b);
	}
	return 0;
}

int cs_dev_plan_restore(const struct cs_manifest *m, const struct cs_device_pair *map, unsigned nmap,
			const CUuuid *visible, int nvisible, CUuuid *dest, char *err, size_t len)
{
	char a[CS_UUID_STRLEN];
	unsigned i;
	int ord;

	if (nmap)
		return plan_with_map(m, map, nmap, visible, nvisible, dest, err, len);
	for (i = 0; i < m->ndev; i++) {
		if (find_uuid(visible, nvisible, &m->dev[i].uuid) >= 0) {
			dest[i] = m->dev[i].uuid;
			continue;
		}
		cs_uuid_format(&m->dev[i].uuid, a);
		if (m->ndev != 1)
			return cs_fail(-ENODEV, err, len,
				       "checkpointed GPU %s is not visible here and the process used %u "
				       "GPUs; set CUDASTORE_DEVICE_MAP=OLD=NEW,... to say where each goes",
				       a, m->ndev);
		if (nvisible < 1)
			return cs_fail(-ENODEV, err, len, "no GPU visible to restore %s onto", a);
		ord = m->dev[i].ordinal >= 0 && m->dev[i].ordinal < nvisible ? m->dev[i].ordinal : 0;
		dest[i] = visible[ord];
	}
	return 0;
}
