// SPDX-License-Identifier: MIT
/*
 * engine_job.c - what the copy threads of one job call back: the first error and the stop flag,
 * chunk claims, progress reports, the clock (map in engine_priv.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "engine_priv.h"
#include "errmsg.h"

#define ENG_PROGRESS_NS 500000000ull

bool eng_chunk_size_ok(uint64_t c)
{
	return c >= CS_CHUNK_MIN && c <= CS_CHUNK_MAX && !(c & (c - 1));
}

/* One line for the caller to log, when it asked for them (cs_engine_opts.note). */
void eng_note(const struct eng_job *job, unsigned level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!job->opts->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	job->opts->note(level, line);
}

/* Record err if it is the first one (its message goes to the caller), stop everybody. */
void eng_fail(struct eng_job *job, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&job->lock);
	if (!job->err) {
		job->err = err;
		cs_seterr(job->errbuf, job->errlen, "%s", msg);
	} else {
		eng_note(job, CS_ENGINE_NOTE_DEBUG, "engine: also failed after the first error: %s", msg);
	}
	atomic_store(&job->stop, true);
	pthread_mutex_unlock(&job->lock);
}

int eng_cuda_fail(struct eng_region *reg, CUresult res, const char *call, uint64_t chunk)
{
	int err = res == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO;

	if (chunk == UINT64_MAX)
		eng_fail(reg->job, err, "%s: region %u (%s): %s failed: %s",
			 reg->job->dump ? "dump" : "restore", reg->index, reg->r->name, call,
			 cs_cuda_errname(reg->job->ops, res));
	else
		eng_fail(reg->job, err,
			 "%s: region %u (%s): %s of chunk %llu (offset %llu, %zu bytes) failed: %s",
			 reg->job->dump ? "dump" : "restore", reg->index, reg->r->name, call,
			 (unsigned long long)chunk, (unsigned long long)eng_chunk_off(reg, chunk),
			 eng_chunk_len(reg, chunk), cs_cuda_errname(reg->job->ops, res));
	return err;
}

bool eng_stopped(const struct eng_job *job)
{
	return atomic_load_explicit(&job->stop, memory_order_relaxed);
}

bool eng_claim(struct eng_region *reg, uint64_t *idx)
{
	if (eng_stopped(reg->job))
		return false;
	*idx = atomic_fetch_add(&reg->next, 1);
	return *idx < reg->nchunks;
}

void eng_thread_sync(struct eng_thread *t)
{
	struct eng_region *reg = t->reg;
	uint64_t t0;
	CUresult res;

	if (eng_stopped(reg->job))
		return;
	t0 = cs_now_ns();
	res = reg->job->ops->StreamSynchronize(t->stream);
	t->gpu_wait_ns += cs_now_ns() - t0;
	if (res != CUDA_SUCCESS)
		eng_cuda_fail(reg, res, "cuStreamSynchronize", UINT64_MAX);
}

void eng_progress(struct eng_region *reg, uint64_t bytes)
{
	const struct cs_engine_opts *o = reg->job->opts;
	uint64_t done = atomic_fetch_add(&reg->done, bytes) + bytes;
	uint64_t now, last;

	if (!o->progress)
		return;
	now = cs_now_ns();
	last = atomic_load(&reg->last_progress_ns);
	/* exactly one thread sees done == size; elsewhere at most one report per interval */
	if (done != reg->r->size && (now - last < ENG_PROGRESS_NS ||
				     !atomic_compare_exchange_strong(&reg->last_progress_ns, &last, now)))
		return;
	o->progress(o->progress_arg, reg->index, done, reg->r->size);
}

uint64_t eng_zero_hash_for(const struct eng_region *reg, size_t len)
{
	return len == reg->chunk ? reg->zero_hash_full : reg->zero_hash_tail;
}
