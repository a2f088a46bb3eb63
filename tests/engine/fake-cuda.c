// SPDX-License-Identifier: MIT
/* fake-cuda.c - host-memory libcuda stand-in for the engine tests (see fake-cuda.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-cuda.h"

#define FAKE_MAX_PROCS 32
#define MAX_ALLOCS 256
#define MAX_CTX	   8

struct alloc {
	uintptr_t base;
	size_t bytes;
	CUcontext ctx; /* device allocations */
	void *raw;     /* pinned: what to free */
	bool pinned, used;
};

struct op {
	enum { OP_COPY, OP_SET } kind;
	void *dst;
	const void *src;
	size_t len;
	unsigned char val;
};

struct CUstream_st {
	CUcontext ctx;
	pthread_mutex_t lock;
	struct op *ops;
	size_t n, cap;
	uint64_t base; /* ops executed and dropped before ops[0] */
};

struct CUevent_st {
	CUstream stream;
	uint64_t seq; /* ops of stream to run before this event is complete */
};

static struct {
	pthread_mutex_t lock;
	struct alloc allocs[MAX_ALLOCS];
	char ctxs[MAX_CTX];
	struct fake_stats st;
	unsigned long fail_at[FAKE_NCALLS];
	bool fail_on[FAKE_NCALLS]; /* every call from fail_at on fails */
	CUresult fail_res[FAKE_NCALLS];
	struct fake_proc {
		int pid;
		CUprocessState state;
	} procs[FAKE_MAX_PROCS];
	unsigned nprocs;
	size_t misalign;
	unsigned copy_delay_us;
	char violation[256];
} F = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread CUcontext cur_ctx;

static void violation(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&F.lock);
	F.st.violations++;
	va_start(ap, fmt);
	vsnprintf(F.violation, sizeof(F.violation), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&F.lock);
}

/* count a call of kind; the injected failure if this is the chosen one */
static CUresult count_call(enum fake_call kind)
{
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&F.lock);
	F.st.calls[kind]++;
	if (F.fail_at[kind] &&
	    (F.st.calls[kind] == F.fail_at[kind] || (F.fail_on[kind] && F.st.calls[kind] > F.fail_at[kind])))
		res = F.fail_res[kind];
	pthread_mutex_unlock(&F.lock);
	return res;
}

CUcontext fake_ctx(unsigned i)
{
	return (CUcontext)(void *)&F.ctxs[i % MAX_CTX];
}

static struct alloc *find_locked(uintptr_t p, size_t len, bool pinned)
{
	for (int i = 0; i < MAX_ALLOCS; i++) {
		struct alloc *a = &F.allocs[i];

		if (a->used && a->pinned == pinned && p >= a->base && p + len <= a->base + a->bytes &&
		    p + len >= p)
			return a;
	}
	return NULL;
}

static struct alloc *new_alloc_locked(void)
{
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (!F.allocs[i].used)
			return &F.allocs[i];
	return NULL;
}

CUdeviceptr fake_dev_alloc(CUcontext ctx, size_t bytes)
{
	struct alloc *a;
	void *p = malloc(bytes ? bytes : 1);

	if (!p)
		return 0;
	memset(p, 0, bytes); /* resident from the start, like device memory (no first-touch costs later) */
	pthread_mutex_lock(&F.lock);
	a = new_alloc_locked();
	if (a)
		*a = (struct alloc){.base = (uintptr_t)p, .bytes = bytes, .ctx = ctx, .raw = p, .used = true};
	pthread_mutex_unlock(&F.lock);
	if (!a)
		free(p);
	return a ? (CUdeviceptr)(uintptr_t)p : 0;
}

void fake_dev_free(CUdeviceptr p)
{
	struct alloc *a;

	pthread_mutex_lock(&F.lock);
	a = find_locked((uintptr_t)p, 0, false);
	if (a && a->base == (uintptr_t)p) {
		free(a->raw);
		a->used = false;
	}
	pthread_mutex_unlock(&F.lock);
}

/* ---- checks the real driver makes ---- */

static CUresult need_ctx(void)
{
	if (cur_ctx)
		return CUDA_SUCCESS;
	violation("call without a current context");
	return CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult check_dev(CUstream s, CUdeviceptr p, size_t len)
{
	struct alloc *a;
	bool ok;

	pthread_mutex_lock(&F.lock);
	a = find_locked((uintptr_t)p, len, false);
	ok = a && a->ctx == s->ctx && s->ctx == cur_ctx;
	pthread_mutex_unlock(&F.lock);
	if (ok)
		return CUDA_SUCCESS;
	violation("device range %#llx+%zu: %s", (unsigned long long)p, len,
		  a ? "context differs from the stream's or the current one" : "not inside one allocation");
	return a ? CUDA_ERROR_INVALID_CONTEXT : CUDA_ERROR_INVALID_VALUE;
}

static CUresult check_host(const void *p, size_t len)
{
	struct alloc *a;

	pthread_mutex_lock(&F.lock);
	a = find_locked((uintptr_t)p, len, true);
	pthread_mutex_unlock(&F.lock);
	if (a)
		return CUDA_SUCCESS;
	violation("host range %p+%zu is not pinned memory", p, len);
	return CUDA_ERROR_INVALID_VALUE;
}

/* ---- streams: queued ops run when someone waits ---- */

/*
 * The legacy stream: where the real driver queues cuMemsetD8 on device memory, which returns
 * before the memset is done. Streams made CU_STREAM_NON_BLOCKING do not wait for it, so work
 * queued on one of them over the same bytes races with it: a violation here, and the memset
 * then really runs after that work (at fake_legacy_sync), as it may on the real device.
 */
static struct CUstream_st legacy = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return a && b && x < y + blen && y < x + alen;
}

/* work for stream s over op's bytes while a legacy memset over them is still queued */
static void check_legacy(CUstream s, const struct op *op)
{
	bool raced = false;
	size_t i;

	if (s == &legacy)
		return;
	pthread_mutex_lock(&legacy.lock);
	for (i = 0; i < legacy.n && !raced; i++)
		raced = overlaps(legacy.ops[i].dst, legacy.ops[i].len, op->dst, op->len) ||
			(op->kind == OP_COPY && overlaps(legacy.ops[i].dst, legacy.ops[i].len, op->src, op->len));
	pthread_mutex_unlock(&legacy.lock);
	if (raced)
		violation("work on a non-blocking stream over %p+%zu while a cuMemsetD8 of those bytes is still "
			  "queued on the legacy stream (nothing synchronised the context in between)",
			  op->dst, op->len);
}

static CUresult enqueue(CUstream s, struct op op)
{
	check_legacy(s, &op);
	pthread_mutex_lock(&s->lock);
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct op *ops = realloc(s->ops, cap * sizeof(*ops));

		if (!ops) {
			pthread_mutex_unlock(&s->lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		s->ops = ops;
		s->cap = cap;
	}
	s->ops[s->n++] = op;
	pthread_mutex_unlock(&s->lock);
	return CUDA_SUCCESS;
}

static void run_until(CUstream s, uint64_t seq)
{
	size_t i, k;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n && s->base + i < seq; i++) {
		struct op *o = &s->ops[i];

		if (o->kind == OP_COPY) {
			memcpy(o->dst, o->src, o->len);
			if (F.copy_delay_us)
				usleep(F.copy_delay_us);
		} else
			memset(o->dst, o->val, o->len);
	}
	for (k = 0; i + k < s->n; k++)
		s->ops[k] = s->ops[i + k];
	s->n = k;
	s->base += i;
	pthread_mutex_unlock(&s->lock);
}

static CUresult f_StreamCreate(CUstream *ps, unsigned int flags)
{
	CUresult res = count_call(FAKE_STREAM_NEW);
	CUstream s;

	if (res || (res = need_ctx()))
		return res;
	if (!(flags & CU_STREAM_NON_BLOCKING))
		violation("stream created without CU_STREAM_NON_BLOCKING");
	s = calloc(1, sizeof(*s));
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->ctx = cur_ctx;
	pthread_mutex_init(&s->lock, NULL);
	*ps = s;
	__atomic_add_fetch(&F.st.live_streams, 1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

static CUresult f_StreamDestroy(CUstream s)
{
	/* the real driver lets queued work finish some time after: whoever relied on it raced */
	if (s->n)
		violation("stream destroyed with %zu operations never waited for", s->n);
	run_until(s, UINT64_MAX);
	pthread_mutex_destroy(&s->lock);
	free(s->ops);
	free(s);
	__atomic_sub_fetch(&F.st.live_streams, 1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

static CUresult f_StreamSynchronize(CUstream s)
{
	run_until(s, UINT64_MAX);
	return CUDA_SUCCESS;
}

static CUresult f_EventCreate(CUevent *pe, unsigned int flags)
{
	CUresult res = need_ctx();

	if (res)
		return res;
	*pe = calloc(1, sizeof(**pe));
	if (!*pe)
		return CUDA_ERROR_OUT_OF_MEMORY;
	__atomic_add_fetch(&F.st.live_events, 1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

static CUresult f_EventDestroy(CUevent e)
{
	free(e);
	__atomic_sub_fetch(&F.st.live_events, 1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

static CUresult f_EventRecord(CUevent e, CUstream s)
{
	pthread_mutex_lock(&s->lock);
	e->stream = s;
	e->seq = s->base + s->n;
	pthread_mutex_unlock(&s->lock);
	return CUDA_SUCCESS;
}

static CUresult f_EventSynchronize(CUevent e)
{
	if (e->stream)
		run_until(e->stream, e->seq);
	return CUDA_SUCCESS;
}

static CUresult f_EventQuery(CUevent e)
{
	return f_EventSynchronize(e);
}

/* ---- memory ---- */

static CUresult f_MemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	CUresult res = count_call(FAKE_HOSTALLOC);
	size_t total;
	struct alloc *a;
	void *raw;

	if (res || (res = need_ctx()))
		return res;
	total = ((bytes + F.misalign + 4095) & ~(size_t)4095) + 4096;
	raw = aligned_alloc(4096, total);
	if (!raw)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&F.lock);
	a = new_alloc_locked();
	if (a) {
		*a = (struct alloc){.base = (uintptr_t)raw + F.misalign,
				    .bytes = bytes,
				    .raw = raw,
				    .pinned = true,
				    .used = true};
		F.st.live_pinned += bytes;
		if (F.st.live_pinned > F.st.max_pinned)
			F.st.max_pinned = F.st.live_pinned;
	}
	pthread_mutex_unlock(&F.lock);
	if (!a) {
		free(raw);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pp = (void *)a->base;
	return CUDA_SUCCESS;
}

static CUresult f_MemFreeHost(void *p)
{
	struct alloc *a;

	pthread_mutex_lock(&F.lock);
	a = find_locked((uintptr_t)p, 0, true);
	if (a && a->base == (uintptr_t)p) {
		F.st.live_pinned -= a->bytes;
		free(a->raw);
		a->used = false;
	}
	pthread_mutex_unlock(&F.lock);
	if (!a)
		violation("cuMemFreeHost(%p): not a pinned allocation", p);
	return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult f_MemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	CUresult res = count_call(FAKE_DTOH);

	if (res || (res = need_ctx()) || (res = check_dev(s, src, bytes)) || (res = check_host(dst, bytes)))
		return res;
	return enqueue(s, (struct op){OP_COPY, dst, fake_host(src), bytes, 0});
}

static CUresult f_MemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	CUresult res = count_call(FAKE_HTOD);

	if (res || (res = need_ctx()) || (res = check_dev(s, dst, bytes)) || (res = check_host(src, bytes)))
		return res;
	return enqueue(s, (struct op){OP_COPY, fake_host(dst), src, bytes, 0});
}

static CUresult f_MemsetD8Async(CUdeviceptr dst, unsigned char v, size_t bytes, CUstream s)
{
	CUresult res = count_call(FAKE_MEMSET);

	if (res || (res = need_ctx()) || (res = check_dev(s, dst, bytes)))
		return res;
	return enqueue(s, (struct op){OP_SET, fake_host(dst), NULL, bytes, v});
}

void fake_legacy_memset(CUdeviceptr dst, unsigned char v, size_t bytes)
{
	enqueue(&legacy, (struct op){ OP_SET, fake_host(dst), NULL, bytes, v });
}

void fake_legacy_sync(void)
{
	run_until(&legacy, UINT64_MAX);
}

static CUresult f_CtxSetCurrent(CUcontext ctx)
{
	cur_ctx = ctx;
	return CUDA_SUCCESS;
}

static CUresult f_CtxGetCurrent(CUcontext *ctx)
{
	*ctx = cur_ctx;
	return CUDA_SUCCESS;
}

static CUresult f_GetErrorName(CUresult err, const char **name)
{
	switch (err) {
	case CUDA_SUCCESS:
		*name = "CUDA_SUCCESS";
		break;
	case CUDA_ERROR_INVALID_VALUE:
		*name = "CUDA_ERROR_INVALID_VALUE";
		break;
	case CUDA_ERROR_OUT_OF_MEMORY:
		*name = "CUDA_ERROR_OUT_OF_MEMORY";
		break;
	case CUDA_ERROR_INVALID_CONTEXT:
		*name = "CUDA_ERROR_INVALID_CONTEXT";
		break;
	case CUDA_ERROR_ILLEGAL_ADDRESS:
		*name = "CUDA_ERROR_ILLEGAL_ADDRESS";
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

void fake_cuda_init(struct cs_cuda_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	snprintf(ops->path, sizeof(ops->path), "fake-cuda");
	ops->driver_version = CUDASTORE_CUDA_13_4;
	ops->GetErrorName = f_GetErrorName;
	ops->CtxSetCurrent = f_CtxSetCurrent;
	ops->CtxGetCurrent = f_CtxGetCurrent;
	ops->StreamCreate = f_StreamCreate;
	ops->StreamDestroy = f_StreamDestroy;
	ops->StreamSynchronize = f_StreamSynchronize;
	ops->EventCreate = f_EventCreate;
	ops->EventDestroy = f_EventDestroy;
	ops->EventRecord = f_EventRecord;
	ops->EventSynchronize = f_EventSynchronize;
	ops->EventQuery = f_EventQuery;
	ops->MemHostAlloc = f_MemHostAlloc;
	ops->MemFreeHost = f_MemFreeHost;
	ops->MemcpyDtoHAsync = f_MemcpyDtoHAsync;
	ops->MemcpyHtoDAsync = f_MemcpyHtoDAsync;
	ops->MemsetD8Async = f_MemsetD8Async;

	pthread_mutex_lock(&F.lock);
	memset(&F.st, 0, sizeof(F.st));
	memset(F.fail_at, 0, sizeof(F.fail_at));
	memset(F.fail_on, 0, sizeof(F.fail_on));
	F.nprocs = 0;
	F.misalign = 0;
	F.copy_delay_us = 0;
	F.violation[0] = 0;
	for (int i = 0; i < MAX_ALLOCS; i++) /* pinned bytes still live count as a leak later */
		if (F.allocs[i].used && F.allocs[i].pinned)
			F.st.live_pinned += F.allocs[i].bytes;
	pthread_mutex_unlock(&F.lock);
}

void fake_fail_at(enum fake_call kind, unsigned long n, CUresult res)
{
	pthread_mutex_lock(&F.lock);
	F.fail_at[kind] = n ? F.st.calls[kind] + n : 0;
	F.fail_on[kind] = false;
	F.fail_res[kind] = res;
	pthread_mutex_unlock(&F.lock);
}

void fake_fail_from(enum fake_call kind, unsigned long n, CUresult res)
{
	fake_fail_at(kind, n, res);
	pthread_mutex_lock(&F.lock);
	F.fail_on[kind] = n != 0;
	pthread_mutex_unlock(&F.lock);
}

void fake_set_copy_delay_us(unsigned us)
{
	F.copy_delay_us = us;
}

void fake_set_misalign(size_t misalign)
{
	F.misalign = misalign;
}

void fake_get_stats(struct fake_stats *st)
{
	pthread_mutex_lock(&F.lock);
	*st = F.st;
	pthread_mutex_unlock(&F.lock);
}

const char *fake_last_violation(void)
{
	return F.violation;
}

/* ---- the checkpoint API over a table of fake processes, and the GPUs it names ---- */

static struct fake_proc *proc_locked(int pid)
{
	for (unsigned i = 0; i < F.nprocs; i++)
		if (F.procs[i].pid == pid)
			return &F.procs[i];
	return NULL;
}

void fake_proc_set(int pid, CUprocessState state)
{
	struct fake_proc *p;

	pthread_mutex_lock(&F.lock);
	p = proc_locked(pid);
	if (!p && F.nprocs < FAKE_MAX_PROCS)
		p = &F.procs[F.nprocs++];
	if (p)
		*p = (struct fake_proc){ .pid = pid, .state = state };
	pthread_mutex_unlock(&F.lock);
}

CUprocessState fake_proc_state(int pid)
{
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	struct fake_proc *p;

	pthread_mutex_lock(&F.lock);
	p = proc_locked(pid);
	if (p)
		st = p->state;
	pthread_mutex_unlock(&F.lock);
	return st;
}

/* one call of kind on pid: from state from to state to, unless injected or refused */
static CUresult proc_step(enum fake_call kind, int pid, CUprocessState from, CUprocessState to)
{
	CUresult res = count_call(kind);
	struct fake_proc *p;

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&F.lock);
	p = proc_locked(pid);
	if (!p)
		res = CUDA_ERROR_NOT_FOUND;
	else if (p->state != from)
		res = CUDA_ERROR_ILLEGAL_STATE;
	else
		p->state = to;
	pthread_mutex_unlock(&F.lock);
	return res;
}

static CUresult f_GetState(int pid, CUprocessState *state)
{
	CUresult res = count_call(FAKE_CKPT_STATE);
	struct fake_proc *p;

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&F.lock);
	p = proc_locked(pid);
	if (p)
		*state = p->state;
	pthread_mutex_unlock(&F.lock);
	return p ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

static CUresult f_Lock(int pid, CUcheckpointLockArgs *args)
{
	(void)args;
	return proc_step(FAKE_CKPT_LOCK, pid, CU_PROCESS_STATE_RUNNING, CU_PROCESS_STATE_LOCKED);
}

static CUresult f_Checkpoint(int pid, CUcheckpointCheckpointArgs *args)
{
	(void)args;
	return proc_step(FAKE_CKPT_CKPT, pid, CU_PROCESS_STATE_LOCKED, CU_PROCESS_STATE_CHECKPOINTED);
}

static CUresult f_Restore(int pid, CUcheckpointRestoreArgs *args)
{
	(void)args;
	return proc_step(FAKE_CKPT_RESTORE, pid, CU_PROCESS_STATE_CHECKPOINTED, CU_PROCESS_STATE_LOCKED);
}

static CUresult f_Unlock(int pid, CUcheckpointUnlockArgs *args)
{
	(void)args;
	return proc_step(FAKE_CKPT_UNLOCK, pid, CU_PROCESS_STATE_LOCKED, CU_PROCESS_STATE_RUNNING);
}

/* a fake process's restore thread is the process itself */
static CUresult f_RestoreThreadId(int pid, int *tid)
{
	bool known;

	pthread_mutex_lock(&F.lock);
	known = proc_locked(pid) != NULL;
	pthread_mutex_unlock(&F.lock);
	*tid = pid;
	return known ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

static CUresult f_Init(unsigned int flags)
{
	(void)flags;
	return CUDA_SUCCESS;
}

static CUresult f_DeviceGetCount(int *n)
{
	*n = FAKE_NGPU;
	return CUDA_SUCCESS;
}

static CUresult f_DeviceGet(CUdevice *dev, int ordinal)
{
	if (ordinal < 0 || ordinal >= FAKE_NGPU)
		return CUDA_ERROR_INVALID_DEVICE;
	*dev = ordinal;
	return CUDA_SUCCESS;
}

static CUresult f_DeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	memset(uuid, 0, sizeof(*uuid));
	uuid->bytes[0] = (char)(0xf0 + dev);
	return CUDA_SUCCESS;
}

void fake_cuda_ckpt_init(struct cs_cuda_ops *ops)
{
	ops->has_checkpoint = true;
	ops->Init = f_Init;
	ops->DeviceGetCount = f_DeviceGetCount;
	ops->DeviceGet = f_DeviceGet;
	ops->DeviceGetUuid = f_DeviceGetUuid;
	ops->CheckpointProcessGetRestoreThreadId = f_RestoreThreadId;
	ops->CheckpointProcessGetState = f_GetState;
	ops->CheckpointProcessLock = f_Lock;
	ops->CheckpointProcessCheckpoint = f_Checkpoint;
	ops->CheckpointProcessRestore = f_Restore;
	ops->CheckpointProcessUnlock = f_Unlock;
}
