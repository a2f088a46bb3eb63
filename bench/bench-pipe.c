// SPDX-License-Identifier: MIT
/*
 * bench-pipe.c - the restore pipeline without the engine: what reading the extents and copying
 * them to the GPU costs on this machine, with nothing else (docs/performance.md).
 *
 * The engine restore's thread count reads the engine's own extent files (its stripe layout,
 * engine.h) in RAW_PIECE preads into one pinned chunk buffer per thread, copies each chunk to the
 * device (cuMemcpyHtoDAsync, then waits for it) and takes the next: the restore's data path
 * without the hashing, the prefetch, zero chunks and error handling. Buffers are pinned and
 * streams made before the timer, as the pool does for the plugin.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "engine.h"

#define PIPE_THREADS_MAX 64

struct pipe_job {
	const struct bench *b;
	const struct cs_engine_region *reg;
	CUdeviceptr dev;
	int fd[CS_MAX_STRIPES];
	unsigned nfiles;
	atomic_uint_fast64_t next;
	atomic_int err;
};

struct pipe_thread {
	struct pipe_job *job;
	void *buf;
	CUstream stream;
	pthread_t tid;
};

static int pipe_chunk(struct pipe_thread *t, uint64_t idx)
{
	struct pipe_job *j = t->job;
	uint64_t chunk = j->reg->chunk_size, off = idx / j->nfiles * chunk, done, p;
	uint64_t len = j->reg->size - idx * chunk < chunk ? j->reg->size - idx * chunk : chunk;
	int fd = j->fd[idx % j->nfiles];
	ssize_t n;

	for (done = 0; done < len; done += (uint64_t)n) {
		p = len - done < RAW_PIECE ? len - done : RAW_PIECE;
		n = pread(fd, (char *)t->buf + done, p, (off_t)(off + done));
		if (n <= 0)
			return n < 0 ? errno : EIO;
	}
	if (j->b->ops->MemcpyHtoDAsync(j->dev + idx * chunk, t->buf, len, t->stream) != CUDA_SUCCESS ||
	    j->b->ops->StreamSynchronize(t->stream) != CUDA_SUCCESS)
		return EIO;
	return 0;
}

static void *pipe_worker(void *arg)
{
	struct pipe_thread *t = arg;
	struct pipe_job *j = t->job;
	uint64_t idx;
	int ret;

	if (j->b->ops->CtxSetCurrent(j->b->ctx) != CUDA_SUCCESS) {
		atomic_store(&j->err, EIO);
		return NULL;
	}
	while (!atomic_load(&j->err) && (idx = atomic_fetch_add(&j->next, 1)) < j->reg->nchunks) {
		ret = pipe_chunk(t, idx);
		if (ret)
			atomic_store(&j->err, ret);
	}
	return NULL;
}

static int pipe_open(struct pipe_job *j)
{
	const struct cs_engine_region *r = j->reg;
	unsigned k;

	j->nfiles = r->nstripes > 1 ? r->nstripes : 1;
	for (k = 0; k < j->nfiles; k++) {
		j->fd[k] = openat(j->b->dirfd, k ? r->stripe_name[k] : r->name, O_RDONLY | O_CLOEXEC);
		if (j->fd[k] < 0) {
			fprintf(stderr, "cs-bench: pipeline: cannot open %s: %s\n",
				k ? r->stripe_name[k] : r->name, strerror(errno));
			while (k--)
				close(j->fd[k]);
			return -1;
		}
	}
	return 0;
}

/* make n threads' pinned buffers and streams (before the timer); returns how many were made */
static unsigned pipe_threads(struct pipe_job *j, struct pipe_thread *t, unsigned n)
{
	const struct cs_cuda_ops *ops = j->b->ops;
	unsigned i;

	for (i = 0; i < n; i++) {
		t[i] = (struct pipe_thread){ .job = j };
		if (ops->MemHostAlloc(&t[i].buf, j->reg->chunk_size, CU_MEMHOSTALLOC_PORTABLE) !=
		    CUDA_SUCCESS)
			break;
		memset(t[i].buf, 0, j->reg->chunk_size);
		if (ops->StreamCreate(&t[i].stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
			ops->MemFreeHost(t[i].buf);
			break;
		}
	}
	return i;
}

int bench_pipeline(const struct bench *b, CUdeviceptr dev, const struct cs_engine_region *reg, double *gbps)
{
	struct pipe_job j = { .b = b, .reg = reg, .dev = dev };
	struct pipe_thread t[PIPE_THREADS_MAX];
	unsigned n = b->read_threads < PIPE_THREADS_MAX ? b->read_threads : PIPE_THREADS_MAX, i, made;
	double t0;

	if (!reg->nchunks || pipe_open(&j))
		return -1;
	made = pipe_threads(&j, t, n ? n : 1);
	t0 = cs_now();
	for (i = 0; i < made; i++)
		if (pthread_create(&t[i].tid, NULL, pipe_worker, &t[i]))
			break;
	for (unsigned k = 0; k < i; k++)
		pthread_join(t[k].tid, NULL);
	*gbps = (double)reg->size / (cs_now() - t0) / 1e9;
	for (i = 0; i < made; i++) {
		b->ops->StreamDestroy(t[i].stream);
		b->ops->MemFreeHost(t[i].buf);
	}
	for (i = 0; i < j.nfiles; i++)
		close(j.fd[i]);
	if (!made || atomic_load(&j.err)) {
		fprintf(stderr, "cs-bench: pipeline read + H2D failed: %s\n",
			made ? strerror(atomic_load(&j.err)) : "no pinned buffer or stream");
		return -1;
	}
	return 0;
}
