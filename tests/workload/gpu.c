// SPDX-License-Identifier: MIT
/*
 * gpu.c - the CUDA side of one workload process: allocate, fill, keep checking, verify.
 *
 * Everything is synchronous (cuMemcpyHtoD/DtoH) through an ordinary host buffer, so it runs
 * unchanged on a real driver. Device d's context is made current before touching device d.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define CU_TRY(g, call, what)                                                                      \
	do {                                                                                       \
		CUresult r_ = (call);                                                              \
		if (r_ != CUDA_SUCCESS) {                                                          \
			snprintf((g)->fail, sizeof((g)->fail), "FAIL: %s: %s (%d)", what,           \
				 cs_cuda_errname(&(g)->cu, r_), r_);                                 \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

static int use_dev(struct wl_gpu *g, int d)
{
	CU_TRY(g, g->cu.CtxSetCurrent(g->ctx[d]), "cuCtxSetCurrent");
	return 0;
}

static int open_devices(struct wl_gpu *g)
{
	int count = 0;

	CU_TRY(g, g->cu.Init(0), "cuInit");
	CU_TRY(g, g->cu.DeviceGetCount(&count), "cuDeviceGetCount");
	if (count < g->first + g->ndev) {
		snprintf(g->fail, sizeof(g->fail), "FAIL: devices %d..%d wanted, %d present", g->first,
			 g->first + g->ndev - 1, count);
		return -1;
	}
	for (int d = 0; d < g->ndev; d++) {
		CUdevice dev;

		CU_TRY(g, g->cu.DeviceGet(&dev, g->first + d), "cuDeviceGet");
		CU_TRY(g, g->cu.DevicePrimaryCtxRetain(&g->ctx[d], dev), "cuDevicePrimaryCtxRetain");
	}
	return 0;
}

int wl_gpu_open(struct wl_gpu *g, const struct wl_opts *o, uint64_t seed)
{
	char err[256];
	int ret;

	memset(g, 0, sizeof(*g));
	g->ndev = o->devices;
	g->first = o->first_device;
	g->nbuf = o->buffers;
	g->pat.seed = seed;
	g->pat.size = o->size;
	g->pat.zero_percent = o->zero_percent;
	ret = cs_cuda_load(&g->cu, NULL, err, sizeof(err));
	if (ret) {
		snprintf(g->fail, sizeof(g->fail), "FAIL: %s", err);
		return -1;
	}
	g->host = malloc(WL_BLOCK);
	g->want = malloc(WL_BLOCK);
	if (!g->host || !g->want) {
		snprintf(g->fail, sizeof(g->fail), "FAIL: out of host memory");
		return -1;
	}
	if (open_devices(g))
		return -1;
	for (int d = 0; d < g->ndev; d++) {
		if (use_dev(g, d))
			return -1;
		for (int b = 0; b < g->nbuf; b++)
			CU_TRY(g, g->cu.MemAlloc(&g->buf[d][b], o->size), "cuMemAlloc (buffer)");
		CU_TRY(g, g->cu.MemAlloc(&g->scratch[d], WL_SCRATCH), "cuMemAlloc (scratch)");
	}
	return 0;
}

int wl_gpu_fill(struct wl_gpu *g)
{
	for (int d = 0; d < g->ndev; d++) {
		if (use_dev(g, d))
			return -1;
		for (int b = 0; b < g->nbuf; b++)
			for (size_t off = 0; off < g->pat.size; off += WL_BLOCK) {
				size_t n = g->pat.size - off < WL_BLOCK ? g->pat.size - off : WL_BLOCK;

				wl_expect(&g->pat, d, b, off, g->host, n);
				CU_TRY(g, g->cu.MemcpyHtoD(g->buf[d][b] + off, g->host, n), "cuMemcpyHtoD (fill)");
			}
	}
	return 0;
}

/* reads [off, off+len) of (d, b) and compares; len <= WL_BLOCK */
static int check_range(struct wl_gpu *g, int d, int b, size_t off, size_t len)
{
	ssize_t bad;

	CU_TRY(g, g->cu.MemcpyDtoH(g->host, g->buf[d][b] + off, len), "cuMemcpyDtoH (verify)");
	bad = wl_check(&g->pat, d, b, off, g->host, len, g->want);
	if (bad < 0)
		return 0;
	snprintf(g->fail, sizeof(g->fail),
		 "FAIL: device %d buffer %d offset %zu: expected 0x%02x found 0x%02x", d, b,
		 off + (size_t)bad, g->want[bad], g->host[bad]);
	return -1;
}

static int scratch_roundtrip(struct wl_gpu *g, int d)
{
	uint64_t *w = (uint64_t *)g->host, *r = (uint64_t *)g->want;
	size_t n = WL_SCRATCH / sizeof(uint64_t);

	for (size_t i = 0; i < n; i++)
		w[i] = g->iter * 0x100000001b3ULL + i;
	CU_TRY(g, g->cu.MemcpyHtoD(g->scratch[d], w, WL_SCRATCH), "cuMemcpyHtoD (scratch)");
	CU_TRY(g, g->cu.MemcpyDtoH(r, g->scratch[d], WL_SCRATCH), "cuMemcpyDtoH (scratch)");
	for (size_t i = 0; i < n; i++)
		if (r[i] != w[i]) {
			snprintf(g->fail, sizeof(g->fail), "FAIL: device %d scratch word %zu: expected %#llx found %#llx",
				 d, i, (unsigned long long)w[i], (unsigned long long)r[i]);
			return -1;
		}
	return 0;
}

int wl_gpu_step(struct wl_gpu *g, bool check_window)
{
	int d = (int)(g->iter % (uint64_t)g->ndev);
	size_t per_buf = (g->pat.size + WL_BLOCK - 1) / WL_BLOCK, total = per_buf * (size_t)g->nbuf * (size_t)g->ndev;
	size_t w, off;
	int b;

	g->iter++;
	if (use_dev(g, d) || scratch_roundtrip(g, d))
		return -1;
	if (!check_window)
		return 0;
	/* the rolling window walks every 1 MiB block of every buffer in turn */
	w = g->cursor++ % total;
	d = (int)(w / (per_buf * (size_t)g->nbuf));
	b = (int)(w / per_buf % (size_t)g->nbuf);
	off = w % per_buf * WL_BLOCK;
	if (use_dev(g, d))
		return -1;
	return check_range(g, d, b, off, g->pat.size - off < WL_BLOCK ? g->pat.size - off : WL_BLOCK);
}

int wl_gpu_verify_all(struct wl_gpu *g)
{
	for (int d = 0; d < g->ndev; d++) {
		if (use_dev(g, d))
			return -1;
		for (int b = 0; b < g->nbuf; b++)
			for (size_t off = 0; off < g->pat.size; off += WL_BLOCK)
				if (check_range(g, d, b, off, g->pat.size - off < WL_BLOCK ? g->pat.size - off : WL_BLOCK))
					return -1;
	}
	return 0;
}

void wl_gpu_close(struct wl_gpu *g)
{
	free(g->host);
	free(g->want);
	g->host = g->want = NULL;
}
