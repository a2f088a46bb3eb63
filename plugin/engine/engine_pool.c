// SPDX-License-Identifier: MIT
/*
 * engine_pool.c - pinned host buffers pinned once and lent to every engine call (engine.h).
 *
 * Pinning is the engine's largest fixed cost: the kernel allocates, zeroes and locks every page,
 * and cuMemFreeHost undoes it. A copy thread that finds a free pool buffer at least as large as its
 * region's chunk buffer takes it instead of pinning its own, and gives it back when it ends; any
 * buffer the pool cannot serve is pinned and freed by the thread as before. Buffers are pinned
 * CU_MEMHOSTALLOC_PORTABLE, so one pool serves every context and every GPU.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"
#include "errmsg.h"

#define POOL_PIN_THREADS 16 /* buffers pinned in parallel when the pool is made */

struct cs_pinned_pool {
	const struct cs_cuda_ops *ops;
	pthread_mutex_t lock;
	size_t buf_size;
	unsigned n;
	double seconds; /* pinning all n buffers took this long */
	void **buf;
	bool *lent;
};

struct pin_job {
	struct cs_pinned_pool *p;
	CUcontext ctx;
	unsigned first, step;
	CUresult res;
	pthread_t tid;
};

static void *pin_some(void *arg)
{
	struct pin_job *j = arg;
	struct cs_pinned_pool *p = j->p;
	unsigned i;

	j->res = p->ops->CtxSetCurrent(j->ctx);
	for (i = j->first; j->res == CUDA_SUCCESS && i < p->n; i += j->step) {
		j->res = p->ops->MemHostAlloc(&p->buf[i], p->buf_size, CU_MEMHOSTALLOC_PORTABLE);
		if (j->res != CUDA_SUCCESS)
			p->buf[i] = NULL;
	}
	return NULL;
}

/* pin every buffer, POOL_PIN_THREADS at a time; the first failure is the result */
static CUresult pin_all(struct cs_pinned_pool *p, CUcontext ctx)
{
	struct pin_job jobs[POOL_PIN_THREADS];
	unsigned i, nt = p->n < POOL_PIN_THREADS ? p->n : POOL_PIN_THREADS;
	CUresult res = CUDA_SUCCESS;

	for (i = 0; i < nt; i++) {
		jobs[i] = (struct pin_job){ .p = p, .ctx = ctx, .first = i, .step = nt };
		if (pthread_create(&jobs[i].tid, NULL, pin_some, &jobs[i])) {
			pin_some(&jobs[i]); /* no thread: pin this share here */
			jobs[i].tid = 0;
		}
	}
	for (i = 0; i < nt; i++) {
		if (jobs[i].tid)
			pthread_join(jobs[i].tid, NULL);
		if (res == CUDA_SUCCESS)
			res = jobs[i].res;
	}
	return res;
}

int cs_pinned_pool_create(struct cs_pinned_pool **out, const struct cs_cuda_ops *ops, CUcontext ctx,
			  size_t buf_size, unsigned nbufs, char *err, size_t errlen)
{
	struct cs_pinned_pool *p;
	uint64_t t0 = cs_now_ns();
	CUresult res;

	*out = NULL;
	if (!nbufs || !buf_size || buf_size % ENG_ALIGN) {
		cs_seterr(err, errlen,
			  "pinned pool: %u buffers of %zu bytes (need at least one, a multiple of %u)", nbufs,
			  buf_size, ENG_ALIGN);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto err_nomem;
	p->buf = calloc(nbufs, sizeof(*p->buf));
	p->lent = calloc(nbufs, sizeof(*p->lent));
	if (!p->buf || !p->lent)
		goto err_free;
	p->ops = ops;
	p->buf_size = buf_size;
	p->n = nbufs;
	pthread_mutex_init(&p->lock, NULL);
	res = pin_all(p, ctx);
	if (res != CUDA_SUCCESS) {
		cs_seterr(err, errlen, "pinned pool: cuMemHostAlloc of %zu bytes failed: %s", buf_size,
			  cs_cuda_errname(ops, res));
		cs_pinned_pool_destroy(p);
		return res == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	}
	p->seconds = (double)(cs_now_ns() - t0) / 1e9;
	*out = p;
	return 0;

err_free:
	free(p->buf);
	free(p->lent);
	free(p);
err_nomem:
	cs_seterr(err, errlen, "pinned pool: out of memory");
	return -ENOMEM;
}

void cs_pinned_pool_destroy(struct cs_pinned_pool *p)
{
	unsigned i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		if (p->buf[i])
			p->ops->MemFreeHost(p->buf[i]);
	pthread_mutex_destroy(&p->lock);
	free(p->buf);
	free(p->lent);
	free(p);
}

size_t cs_pinned_pool_bytes(const struct cs_pinned_pool *p)
{
	return p ? p->buf_size * p->n : 0;
}

double cs_pinned_pool_seconds(const struct cs_pinned_pool *p)
{
	return p ? p->seconds : 0;
}

void *eng_pool_take(struct cs_pinned_pool *p, size_t len)
{
	void *buf = NULL;
	unsigned i;

	if (!p || len > p->buf_size)
		return NULL;
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n && !buf; i++)
		if (!p->lent[i]) {
			p->lent[i] = true;
			buf = p->buf[i];
		}
	pthread_mutex_unlock(&p->lock);
	return buf;
}

void eng_pool_give(struct cs_pinned_pool *p, void *buf)
{
	unsigned i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n; i++)
		if (p->buf[i] == buf)
			p->lent[i] = false;
	pthread_mutex_unlock(&p->lock);
}
