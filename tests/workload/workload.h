/* SPDX-License-Identifier: MIT */
/*
 * workload.h - cuda-workload: a CUDA application that proves its device memory survives.
 *
 * It reaches CUDA only through struct cs_cuda_ops (cuda_ops.h), so the same binary runs on the
 * emulator in make check and on a real libcuda. Device memory layout, per device, in
 * allocation order: --buffers buffers of --size bytes, then one scratch buffer. Buffer
 * contents are a pure function of (seed, device, buffer, offset) (pattern.c), so any process
 * (the workload itself, a test) can compute what a byte must be.
 */
#ifndef CUDASTORE_WORKLOAD_H
#define CUDASTORE_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuda_ops.h"

#define WL_MAXDEV     8
#define WL_MAXBUF     64
#define WL_BLOCK      (1UL << 20) /* zero-percent granularity and verify chunk */
#define WL_SCRATCH    (64UL << 10)

/* ---- pattern.c: the expected contents ---- */
struct wl_pattern {
	uint64_t seed;
	size_t size;	  /* bytes per buffer */
	int zero_percent; /* share of whole 1 MiB blocks left all-zero */
};

bool wl_block_is_zero(const struct wl_pattern *p, size_t block);
/* Expected bytes of [off, off+len) of (dev, buf). */
void wl_expect(const struct wl_pattern *p, int dev, int buf, size_t off, unsigned char *out, size_t len);
/* Index of the first byte of got[] that differs from the expectation at off, or -1. */
ssize_t wl_check(const struct wl_pattern *p, int dev, int buf, size_t off, const unsigned char *got,
		 size_t len, unsigned char *scratch);

/* ---- options.c ---- */
struct wl_opts {
	int devices, buffers;
	size_t size;
	size_t child_size; /* the --fork-cuda children's buffers; 0: size */
	uint64_t seed;
	int zero_percent;
	int child_zero_percent; /* the --fork-cuda children's; -1: zero_percent */
	bool gpu_each;		/* the root on device 0, --fork-cuda child k on device k */
	int first_device;	/* this process's devices are first_device .. + devices - 1 */
	int fork_cuda, fork_cpu;
	bool daemon;
	long itimer_us;		 /* hostile.c */
	bool seccomp_deny_yield; /* hostile.c */
	int host_mb;		 /* hostile.c */
	bool decoy_driver_thread; /* hostile.c */
	bool cuda_ipc_file;	  /* hostile.c */
	bool child_ipc_import;	  /* the CUDA children are IPC importers to the emulated driver */
	const char *pidfile, *ready, *outfile, *log;
};

/* 0, or -EINVAL after printing the reason and the usage to stderr */
int wl_parse(struct wl_opts *o, int argc, char **argv);

/* ---- hostile.c: interval timer and seccomp filter on request ---- */
int wl_hostile_start(const struct wl_opts *o);
/* after the memory verified: 0, or -1 with fail set */
int wl_hostile_check(const struct wl_opts *o, char *fail, size_t len);

/* ---- gpu.c: one CUDA worker ---- */
struct wl_gpu {
	struct cs_cuda_ops cu;
	struct wl_pattern pat;
	int ndev, nbuf;
	int first; /* device ordinal of ctx[0] */
	CUcontext ctx[WL_MAXDEV];
	CUdeviceptr buf[WL_MAXDEV][WL_MAXBUF];
	CUdeviceptr scratch[WL_MAXDEV];
	unsigned char *host, *want; /* WL_BLOCK each */
	uint64_t iter;
	size_t cursor; /* next window of the rolling verification */
	char fail[512];
};

int wl_gpu_open(struct wl_gpu *g, const struct wl_opts *o, uint64_t seed);
int wl_gpu_fill(struct wl_gpu *g);
/* One loop step: scratch round trip, and a window check when due. 0, or -1 with g->fail set. */
int wl_gpu_step(struct wl_gpu *g, bool check_window);
int wl_gpu_verify_all(struct wl_gpu *g);
void wl_gpu_close(struct wl_gpu *g);

/* ---- main.c ---- */
extern volatile sig_atomic_t wl_stop;
void wl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CUDASTORE_WORKLOAD_H */
