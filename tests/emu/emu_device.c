// SPDX-License-Identifier: MIT
/*
 * emu_device.c - devices, primary contexts, streams and events.
 *
 * Contexts are the primary contexts only (one per device, reference counted); the current
 * context is per thread, as in CUDA. Streams and events are heap objects kept in a list, so a
 * stale or foreign handle is refused with CUDA_ERROR_INVALID_HANDLE instead of being
 * dereferenced. All work is synchronous, so streams and events are always complete.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_api.h"

struct CUctx_st {
	int dev;
	int refs;
};

struct CUstream_st {
	struct CUstream_st *next;
	struct CUctx_st *ctx;
	unsigned int flags;
};

struct CUevent_st {
	struct CUevent_st *next;
	unsigned int flags;
};

/* dev is fixed from the start, so threads read it without the lock; refs is under handles_lock */
_Static_assert(EMU_MAXDEV == 8, "one context initialiser per device ordinal");
static struct CUctx_st contexts[EMU_MAXDEV] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 },
						{ 4, 0 }, { 5, 0 }, { 6, 0 }, { 7, 0 } };
static __thread struct CUctx_st *current;
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUstream_st *streams;
static struct CUevent_st *events;

/* the facts of devices a restore moved onto another GPU; the others report their configuration's */
static struct emu_gpu moved_gpu[EMU_MAXDEV];
static bool moved[EMU_MAXDEV];

int emu_ndev(void)
{
	return emu_config()->nvisible;
}

int emu_dev_slot(int dev)
{
	return emu_config()->visible[dev];
}

const struct emu_gpu *emu_dev_gpu(int dev)
{
	return moved[dev] ? &moved_gpu[dev] : &emu_config()->gpu[emu_dev_slot(dev)];
}

void emu_dev_uuid(int dev, CUuuid *out)
{
	*out = emu_dev_gpu(dev)->uuid;
}

void emu_dev_move(int dev, const struct emu_gpu *to)
{
	moved_gpu[dev] = *to;
	moved[dev] = true;
}

size_t emu_dev_capacity(int dev)
{
	return emu_dev_gpu(dev)->mem;
}

size_t emu_dev_avail(int dev)
{
	const struct emu_gpu *g = emu_dev_gpu(dev);

	return g->mem - g->other;
}

static bool dev_valid(CUdevice dev)
{
	return dev >= 0 && dev < emu_ndev();
}

/* ---- device queries ---- */

static CUresult device_count(int *count)
{
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = emu_ndev();
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
	EMU_CALL("cuDeviceGetCount", EMU_F_INIT, device_count(count));
}

static CUresult device_get(CUdevice *dev, int ordinal)
{
	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*dev = ordinal;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	EMU_CALL("cuDeviceGet", EMU_F_INIT, device_get(dev, ordinal));
}

static CUresult device_name(char *name, int len, CUdevice dev)
{
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	snprintf(name, (size_t)len, "%s", emu_dev_gpu(dev)->name);
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	EMU_CALL("cuDeviceGetName", EMU_F_INIT, device_name(name, len, dev));
}

/*
 * "domain:bus:device.function", hexadecimal in upper case as NVML's legacy form (the case the
 * real driver prints is not documented); a buffer too short for it is refused, not cut.
 */
static CUresult device_bus_id(char *bus_id, int len, CUdevice dev)
{
	const struct emu_gpu *g;
	int n;

	if (!bus_id || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	g = emu_dev_gpu(dev);
	n = snprintf(bus_id, (size_t)len, "%04X:%02X:%02X.%X", g->pci_domain, g->pci_bus, g->pci_device,
		     g->pci_function);
	return n < len ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev)
{
	EMU_CALL("cuDeviceGetPCIBusId", EMU_F_INIT, device_bus_id(bus_id, len, dev));
}

static CUresult device_uuid(CUuuid *uuid, CUdevice dev)
{
	if (!uuid)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	emu_dev_uuid(dev, uuid);
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	EMU_CALL("cuDeviceGetUuid", EMU_F_INIT, device_uuid(uuid, dev));
}
EMU_API extern __typeof(cuDeviceGetUuid) cuDeviceGetUuid_v2 __attribute__((alias("cuDeviceGetUuid")));

static CUresult device_mem(size_t *bytes, CUdevice dev)
{
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = emu_dev_capacity(dev);
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
	EMU_CALL("cuDeviceTotalMem", EMU_F_INIT, device_mem(bytes, dev));
}
EMU_API extern __typeof(cuDeviceTotalMem) cuDeviceTotalMem_v2 __attribute__((alias("cuDeviceTotalMem")));

static CUresult device_attr(int *value, int attrib, CUdevice dev)
{
	const struct emu_gpu *g;

	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	g = emu_dev_gpu(dev);
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
		*value = (int)g->pci_bus;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
		*value = (int)g->pci_device;
		return CUDA_SUCCESS;
	case EMU_ATTR_PCI_DOMAIN_ID:
		*value = (int)g->pci_domain;
		return CUDA_SUCCESS;
	case EMU_ATTR_CC_MAJOR:
		*value = g->cc_major;
		return CUDA_SUCCESS;
	case EMU_ATTR_CC_MINOR:
		*value = g->cc_minor;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev)
{
	EMU_CALL("cuDeviceGetAttribute", EMU_F_INIT, device_attr(value, attrib, dev));
}

/* ---- primary contexts ---- */

static struct CUctx_st *ctx_find(CUcontext ctx)
{
	for (int i = 0; i < emu_ndev(); i++)
		if (ctx == &contexts[i])
			return &contexts[i];
	return NULL;
}

bool emu_ctx_retained(int dev)
{
	bool r;

	pthread_mutex_lock(&handles_lock);
	r = contexts[dev].refs > 0;
	pthread_mutex_unlock(&handles_lock);
	return r;
}

CUcontext emu_ctx_of(int dev)
{
	return &contexts[dev];
}

int emu_ctx_current_dev(void)
{
	return current ? current->dev : -1;
}

static CUresult ctx_retain(CUcontext *ctx, CUdevice dev)
{
	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&handles_lock);
	contexts[dev].refs++;
	pthread_mutex_unlock(&handles_lock);
	*ctx = &contexts[dev];
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	EMU_CALL("cuDevicePrimaryCtxRetain", EMU_F_INIT | EMU_F_GATE, ctx_retain(ctx, dev));
}

static CUresult ctx_release(CUdevice dev)
{
	CUresult res = CUDA_SUCCESS;

	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&handles_lock);
	if (contexts[dev].refs > 0)
		contexts[dev].refs--;
	else
		res = CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_unlock(&handles_lock);
	return res;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
	EMU_CALL("cuDevicePrimaryCtxRelease", EMU_F_INIT | EMU_F_GATE, ctx_release(dev));
}
EMU_API extern __typeof(cuDevicePrimaryCtxRelease) cuDevicePrimaryCtxRelease_v2
	__attribute__((alias("cuDevicePrimaryCtxRelease")));

static CUresult ctx_set(CUcontext ctx)
{
	struct CUctx_st *c = NULL;

	if (ctx && !(c = ctx_find(ctx)))
		return CUDA_ERROR_INVALID_CONTEXT;
	current = c;
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
	EMU_CALL("cuCtxSetCurrent", EMU_F_INIT, ctx_set(ctx));
}

static CUresult ctx_get(CUcontext *ctx)
{
	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	*ctx = current;
	return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *ctx)
{
	EMU_CALL("cuCtxGetCurrent", EMU_F_INIT, ctx_get(ctx));
}

static CUresult ctx_device(CUdevice *dev)
{
	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	*dev = current->dev;
	return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *dev)
{
	EMU_CALL("cuCtxGetDevice", EMU_F_INIT, ctx_device(dev));
}

CUresult cuCtxSynchronize(void)
{
	EMU_CALL("cuCtxSynchronize", EMU_F_INIT | EMU_F_GATE,
		 current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT);
}

/* ---- streams ---- */

CUresult emu_stream_new(CUstream *out, int dev)
{
	struct CUstream_st *s = calloc(1, sizeof(*s));

	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->ctx = &contexts[dev];
	s->flags = CU_STREAM_NON_BLOCKING;
	pthread_mutex_lock(&handles_lock);
	s->next = streams;
	streams = s;
	pthread_mutex_unlock(&handles_lock);
	*out = s;
	return CUDA_SUCCESS;
}

/* Looks a stream up under the lock; NULL (the default stream) maps to the current context. */
static CUresult stream_ctx(CUstream stream, struct CUctx_st **ctx)
{
	struct CUstream_st *s;

	if (!stream) {
		*ctx = current;
		return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
	}
	pthread_mutex_lock(&handles_lock);
	for (s = streams; s && s != stream; s = s->next)
		;
	if (s)
		*ctx = s->ctx;
	pthread_mutex_unlock(&handles_lock);
	return s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult emu_stream_check(CUstream stream)
{
	struct CUctx_st *ctx;

	return stream_ctx(stream, &ctx);
}

/* Removes stream from the list; false if it was not there. */
static bool stream_unlink(CUstream stream)
{
	struct CUstream_st **pp;
	bool found;

	pthread_mutex_lock(&handles_lock);
	for (pp = &streams; *pp && *pp != stream; pp = &(*pp)->next)
		;
	found = *pp != NULL;
	if (found)
		*pp = stream->next;
	pthread_mutex_unlock(&handles_lock);
	return found;
}

void emu_stream_free(CUstream stream)
{
	if (stream && stream_unlink(stream))
		free(stream);
}

static CUresult stream_create(CUstream *stream, unsigned int flags)
{
	if (!stream || (flags & ~CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	return emu_stream_new(stream, current->dev);
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	EMU_CALL("cuStreamCreate", EMU_F_INIT | EMU_F_GATE, stream_create(stream, flags));
}

static CUresult stream_destroy(CUstream stream)
{
	if (!stream || !stream_unlink(stream))
		return CUDA_ERROR_INVALID_HANDLE;
	free(stream);
	return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream stream)
{
	EMU_CALL("cuStreamDestroy", EMU_F_INIT | EMU_F_GATE, stream_destroy(stream));
}
EMU_API extern __typeof(cuStreamDestroy) cuStreamDestroy_v2 __attribute__((alias("cuStreamDestroy")));

CUresult cuStreamSynchronize(CUstream stream)
{
	EMU_CALL("cuStreamSynchronize", EMU_F_INIT | EMU_F_GATE, emu_stream_check(stream));
}

static CUresult stream_get_ctx(CUstream stream, CUcontext *ctx, CUgreenCtx *green)
{
	struct CUctx_st *c;
	CUresult res;

	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	res = stream_ctx(stream, &c);
	if (res != CUDA_SUCCESS)
		return res;
	*ctx = c;
	if (green)
		*green = NULL;
	return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream stream, CUcontext *ctx)
{
	EMU_CALL("cuStreamGetCtx", EMU_F_INIT, stream_get_ctx(stream, ctx, NULL));
}

CUresult cuStreamGetCtx_v2(CUstream stream, CUcontext *ctx, CUgreenCtx *green)
{
	EMU_CALL("cuStreamGetCtx_v2", EMU_F_INIT,
		 green ? stream_get_ctx(stream, ctx, green) : CUDA_ERROR_INVALID_VALUE);
}

static CUresult stream_device(CUstream stream, CUdevice *dev)
{
	struct CUctx_st *c;
	CUresult res;

	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	res = stream_ctx(stream, &c);
	if (res == CUDA_SUCCESS)
		*dev = c->dev;
	return res;
}

CUresult cuStreamGetDevice(CUstream stream, CUdevice *dev)
{
	EMU_CALL("cuStreamGetDevice", EMU_F_INIT, stream_device(stream, dev));
}

/* ---- events ---- */

static CUresult event_find(CUevent ev)
{
	struct CUevent_st *e;

	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&handles_lock);
	for (e = events; e && e != ev; e = e->next)
		;
	pthread_mutex_unlock(&handles_lock);
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult event_create(CUevent *ev, unsigned int flags)
{
	struct CUevent_st *e;

	if (!ev || flags > 0xf)
		return CUDA_ERROR_INVALID_VALUE;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	e = calloc(1, sizeof(*e));
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	e->flags = flags;
	pthread_mutex_lock(&handles_lock);
	e->next = events;
	events = e;
	pthread_mutex_unlock(&handles_lock);
	*ev = e;
	return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
	EMU_CALL("cuEventCreate", EMU_F_INIT | EMU_F_GATE, event_create(ev, flags));
}

static CUresult event_destroy(CUevent ev)
{
	struct CUevent_st **pp;
	bool found;

	pthread_mutex_lock(&handles_lock);
	for (pp = &events; *pp && *pp != ev; pp = &(*pp)->next)
		;
	found = ev && *pp;
	if (found)
		*pp = ev->next;
	pthread_mutex_unlock(&handles_lock);
	if (!found)
		return CUDA_ERROR_INVALID_HANDLE;
	free(ev);
	return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent ev)
{
	EMU_CALL("cuEventDestroy", EMU_F_INIT | EMU_F_GATE, event_destroy(ev));
}
EMU_API extern __typeof(cuEventDestroy) cuEventDestroy_v2 __attribute__((alias("cuEventDestroy")));

static CUresult event_record(CUevent ev, CUstream stream)
{
	CUresult res = event_find(ev);

	return res == CUDA_SUCCESS ? emu_stream_check(stream) : res;
}

CUresult cuEventRecord(CUevent ev, CUstream stream)
{
	EMU_CALL("cuEventRecord", EMU_F_INIT | EMU_F_GATE, event_record(ev, stream));
}

CUresult cuEventSynchronize(CUevent ev)
{
	EMU_CALL("cuEventSynchronize", EMU_F_INIT | EMU_F_GATE, event_find(ev));
}

CUresult cuEventQuery(CUevent ev)
{
	EMU_CALL("cuEventQuery", EMU_F_INIT | EMU_F_GATE, event_find(ev));
}
