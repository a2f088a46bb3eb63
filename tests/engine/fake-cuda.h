/* SPDX-License-Identifier: MIT */
/*
 * fake-cuda.h - a host-memory stand-in for libcuda, for the copy engine's unit tests.
 *
 * Device pointers are host addresses of calloc'ed "device" buffers, each owned by one of a
 * few dummy contexts. Async copies and memsets are queued on their stream and only executed
 * when the stream or an event recorded after them is synchronised - so an engine that reads a
 * buffer before waiting, or reuses a buffer whose copy is still queued, copies wrong bytes and
 * the round-trip tests fail. Every call checks what the real driver would: a current context,
 * device ranges inside one allocation of the stream's context, host ranges inside a pinned
 * allocation. Counters expose live/maximum pinned bytes, live streams/events and violations.
 * Fault injection: the Nth call of a kind fails with a given CUresult (or every call from the
 * Nth on). fake_cuda_ckpt_init adds the checkpoint API over a table of fake processes and a
 * few GPUs, for the helper's unit tests.
 * Test-only code: one global fake device per process.
 */
#ifndef CUDASTORE_TESTS_FAKE_CUDA_H
#define CUDASTORE_TESTS_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "cudastore/cuda_ops.h"

enum fake_call {
	FAKE_DTOH,	   /* cuMemcpyDtoHAsync */
	FAKE_HTOD,	   /* cuMemcpyHtoDAsync */
	FAKE_MEMSET,	   /* cuMemsetD8Async */
	FAKE_HOSTALLOC,	   /* cuMemHostAlloc */
	FAKE_STREAM_NEW,   /* cuStreamCreate */
	FAKE_CKPT_STATE,   /* cuCheckpointProcessGetState */
	FAKE_CKPT_LOCK,	   /* cuCheckpointProcessLock */
	FAKE_CKPT_CKPT,	   /* cuCheckpointProcessCheckpoint */
	FAKE_CKPT_RESTORE, /* cuCheckpointProcessRestore */
	FAKE_CKPT_UNLOCK,  /* cuCheckpointProcessUnlock */
	FAKE_NCALLS
};

struct fake_stats {
	uint64_t live_pinned, max_pinned; /* bytes */
	long live_streams, live_events;
	unsigned long calls[FAKE_NCALLS];
	unsigned long violations; /* wrong context, out-of-range or unpinned copy, ... */
};

/* Reset the fake (no live objects may remain) and fill ops. */
void fake_cuda_init(struct cs_cuda_ops *ops);
CUcontext fake_ctx(unsigned i); /* i < 8 */
/* calloc'ed device buffer of ctx; 0 on failure */
CUdeviceptr fake_dev_alloc(CUcontext ctx, size_t bytes);
void fake_dev_free(CUdeviceptr p);
static inline void *fake_host(CUdeviceptr p)
{
	return (void *)(uintptr_t)p;
}

/* The nth call (1-based) of kind fails with res; n = 0 disables. Counts from now. */
void fake_fail_at(enum fake_call kind, unsigned long n, CUresult res);
/* Every call of kind from the nth on (1-based, counted from now) fails with res; 0 disables. */
void fake_fail_from(enum fake_call kind, unsigned long n, CUresult res);
/* Each copy (D2H, H2D) takes at least us microseconds more when it runs (0 = none). */
void fake_set_copy_delay_us(unsigned us);
/* Pinned buffers start misalign bytes past a page boundary (0 = page-aligned). */
void fake_set_misalign(size_t misalign);
void fake_get_stats(struct fake_stats *st);
/*
 * cuMemsetD8 on device memory as the real driver runs it: queued on the legacy stream, done at
 * the next fake_legacy_sync() (cuCtxSynchronize, a synchronous copy); work queued meanwhile on a
 * non-blocking stream over the same bytes is a violation (fake-cuda.c).
 */
void fake_legacy_memset(CUdeviceptr dst, unsigned char v, size_t bytes);
void fake_legacy_sync(void);
/*
 * The checkpoint API and cuInit / device calls (FAKE_NGPU GPUs, UUID byte 0 = 0xf0 + ordinal),
 * added to ops after fake_cuda_init. The process table starts empty: fake_proc_set adds a pid
 * (or changes its state). A call on an unknown pid answers CUDA_ERROR_NOT_FOUND; a call from a
 * state the driver refuses it in, CUDA_ERROR_ILLEGAL_STATE; an injected failure leaves the state
 * as it was. Lock: RUNNING -> LOCKED; Checkpoint: LOCKED -> CHECKPOINTED; Restore:
 * CHECKPOINTED -> LOCKED; Unlock: LOCKED -> RUNNING.
 */
#define FAKE_NGPU 2
void fake_cuda_ckpt_init(struct cs_cuda_ops *ops);
void fake_proc_set(int pid, CUprocessState state);
/* pid's state; CU_PROCESS_STATE_FAILED for an unknown pid */
CUprocessState fake_proc_state(int pid);

/* the last violation, for diagnostics */
const char *fake_last_violation(void);

#endif /* CUDASTORE_TESTS_FAKE_CUDA_H */
