// SPDX-License-Identifier: MIT
/* devices.c - cuInit, primary contexts, UUID lookups and restore device planning */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "devices.h"
#include "log.h"

void cs_dev_setup(struct cs_gpus *g, const struct cs_cuda_ops *cuda)
{
	memset(g, 0, sizeof(*g));
	g->cuda = cuda;
	pthread_mutex_init(&g->mu, NULL);
}

CUcontext cs_dev_ctx(const struct cs_gpus *g, int ordinal)
{
	return ordinal >= 0 && ordinal < CS_MAX_DEVICES ? g->retained[ordinal] : NULL;
}

static int dev_init(struct cs_gpus *g)
{
	const struct cs_cuda_ops *cu = g->cuda;
	CUresult res;

	if (g->inited)
		return 0;
	res = cu->Init(0);
	if (res != CUDA_SUCCESS) {
		cs_err("cuInit failed in cudastore-helper: %s; is the GPU visible where criu runs (device "
		       "nodes, container)?",
		       cs_cuda_errname(cu, res));
		return -ENODEV;
	}
	res = cu->DeviceGetCount(&g->ndev);
	if (res != CUDA_SUCCESS || g->ndev < 0) {
		cs_err("cuDeviceGetCount failed: %s", cs_cuda_errname(cu, res));
		return -ENODEV;
	}
	if (g->ndev > CS_MAX_DEVICES)
		g->ndev = CS_MAX_DEVICES;
	g->inited = true;
	cs_debug("cuInit done, %d GPU(s) visible", g->ndev);
	return 0;
}

int cs_dev_uuid(struct cs_gpus *g, int ordinal, CUuuid *uuid)
{
	CUdevice dev;

	if (g->cuda->DeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
	    g->cuda->DeviceGetUuid(uuid, dev) != CUDA_SUCCESS)
		return -ENODEV;
	return 0;
}

int cs_dev_by_uuid(struct cs_gpus *g, const CUuuid *uuid)
{
	CUuuid u;
	int i;

	for (i = 0; i < g->ndev; i++)
		if (!cs_dev_uuid(g, i, &u) && !memcmp(&u, uuid, sizeof(u)))
			return i;
	return -ENODEV;
}

static int dev_retain(struct cs_gpus *g, int ordinal)
{
	const struct cs_cuda_ops *cu = g->cuda;
	char name[CS_UUID_STRLEN];
	CUuuid uuid;
	CUdevice dev;
	CUresult res;

	if (ordinal < 0 || ordinal >= g->ndev)
		return -ENODEV;
	if (g->retained[ordinal])
		return 0;
	res = cu->DeviceGet(&dev, ordinal);
	if (res == CUDA_SUCCESS)
		res = cu->DevicePrimaryCtxRetain(&g->retained[ordinal], dev);
	if (res != CUDA_SUCCESS) {
		cs_err("cannot retain the primary context of GPU %d: %s", ordinal, cs_cuda_errname(cu, res));
		g->retained[ordinal] = NULL;
		return -ENODEV;
	}
	cs_dev_uuid(g, ordinal, &uuid);
	cs_uuid_format(&uuid, name);
	cs_debug("retained primary context of GPU %d (%s)", ordinal, name);
	return 0;
}

/* the workers of a batch (batch.h) retain GPUs at the same time: one at a time here */
int cs_dev_init(struct cs_gpus *g)
{
	int ret;

	pthread_mutex_lock(&g->mu);
	ret = dev_init(g);
	pthread_mutex_unlock(&g->mu);
	return ret;
}

int cs_dev_retain(struct cs_gpus *g, int ordinal)
{
	int ret;

	pthread_mutex_lock(&g->mu);
	ret = dev_retain(g, ordinal);
	pthread_mutex_unlock(&g->mu);
	return ret;
}

int cs_dev_retain_all(struct cs_gpus *g)
{
	int i, ret = 0;

	pthread_mutex_lock(&g->mu);
	for (i = 0; i < g->ndev && !ret; i++)
		ret = dev_retain(g, i);
	pthread_mutex_unlock(&g->mu);
	return ret;
}

void cs_dev_release_all(struct cs_gpus *g)
{
	CUdevice dev;
	int i;

	for (i = 0; i < CS_MAX_DEVICES; i++) {
		if (!g->retained[i])
			continue;
		if (g->cuda->DeviceGet(&dev, i) == CUDA_SUCCESS)
			g->cuda->DevicePrimaryCtxRelease(dev);
		g->retained[i] = NULL;
	}
}

int cs_dev_of_stream(struct cs_gpus *g, CUstream stream)
{
	const struct cs_cuda_ops *cu = g->cuda;
	CUcontext sctx = NULL;
	CUdevice dev;
	int i;

	if (cu->StreamGetCtx(stream, &sctx) != CUDA_SUCCESS || !sctx)
		return -EINVAL;
	for (i = 0; i < g->ndev; i++)
		if (g->retained[i] && g->retained[i] == sctx)
			return i;
	/* not one of ours: ask the context itself which GPU it is on */
	if (cu->CtxSetCurrent(sctx) == CUDA_SUCCESS && cu->CtxGetDevice(&dev) == CUDA_SUCCESS && dev >= 0 &&
	    dev < g->ndev && g->retained[dev])
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

/* the pair names this checkpointed GPU: by its UUID, or by its ordinal on the dumping host */
static bool pair_takes(const struct cs_device_pair *p, const struct cs_manifest_dev *d)
{
	if (p->by_ordinal)
		return p->from_ordinal == d->ordinal;
	return !memcmp(&p->from, &d->uuid, sizeof(CUuuid));
}

static int plan_with_map(const struct cs_manifest *m, const struct cs_device_pair *map, unsigned nmap,
			 const CUuuid *visible, int nvisible, CUuuid *dest, char *err, size_t len)
{
	char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];
	unsigned i, j;

	for (i = 0; i < m->ndev; i++) {
		for (j = 0; j < nmap; j++)
			if (pair_takes(&map[j], &m->dev[i]))
				break;
		cs_uuid_format(&m->dev[i].uuid, a);
		if (j == nmap)
			return cs_fail(-ENODEV, err, len,
				       "device_map does not list checkpointed GPU %s (ordinal %d); the "
				       "driver needs every checkpointed GPU in the map",
				       a, m->dev[i].ordinal);
		if (map[j].by_ordinal && map[j].to_ordinal >= nvisible)
			return cs_fail(-ENODEV, err, len,
				       "device_map sends GPU %d to GPU %d, but only %d GPUs are visible here",
				       map[j].from_ordinal, map[j].to_ordinal, nvisible);
		dest[i] = map[j].by_ordinal ? visible[map[j].to_ordinal] : map[j].to;
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
