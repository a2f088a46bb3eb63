// SPDX-License-Identifier: MIT
/*
 * engine_dump.c - one dump thread: D2H -> zero check -> XXH3 -> pwrite, double-buffered.
 *
 * With two buffers, the thread queues the D2H of its next chunk before it waits for the
 * current one, so the copy engine moves chunk k+1 while the CPU checks, hashes and writes
 * chunk k. Each buffer has an event; waiting on the event (not the stream) leaves the next
 * copy running. With one buffer (tight pinned bound) the steps run one after the other.
 */
#include <errno.h>

#include "engine_priv.h"

static int issue(struct eng_thread *t, uint64_t idx, unsigned b)
{
	struct eng_region *reg = t->reg;
	const struct cs_cuda_ops *ops = reg->job->ops;
	CUresult res;

	res = ops->MemcpyDtoHAsync(t->buf[b], reg->r->ptr + eng_chunk_off(reg, idx), eng_chunk_len(reg, idx),
				   t->stream);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuMemcpyDtoHAsync", idx);
	res = ops->EventRecord(t->ev[b], t->stream);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuEventRecord", idx);
	return 0;
}

static int finish(struct eng_thread *t, uint64_t idx, unsigned b)
{
	struct eng_region *reg = t->reg;
	struct cs_engine_region *r = reg->r;
	size_t len = eng_chunk_len(reg, idx);
	uint64_t t0 = cs_now_ns(), t1;
	CUresult res;
	int ret;

	res = reg->job->ops->EventSynchronize(t->ev[b]);
	t1 = cs_now_ns();
	t->gpu_wait_ns += t1 - t0;
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuMemcpyDtoHAsync (completion)", idx);
	if (eng_stopped(reg->job))
		return -ECANCELED;
	if (reg->job->opts->skip_zero && eng_is_zero(t->buf[b], len)) {
		r->zero[idx] = 1;
		r->hash[idx] = eng_zero_hash_for(reg, len);
		ret = eng_chunked(reg) ? 0 : eng_io_skip(t, len, idx);
	} else if (eng_chunked(reg)) {
		ret = eng_chunk_put(t, t->buf[b], len, idx); /* XXH3, id, linked or written */
	} else {
		ret = eng_io_write(t, t->buf[b], len, idx, &r->hash[idx]); /* hashes it too */
	}
	t->io_ns += cs_now_ns() - t1;
	if (ret)
		return ret;
	eng_progress(reg, len);
	return 0;
}

/* The next chunk to copy: chunks known before the copy (engine.h) are recorded on the way. */
static bool claim_copy(struct eng_thread *t, uint64_t *idx)
{
	struct eng_region *reg = t->reg;
	int ret;

	while (eng_claim(reg, idx)) {
		if (!reg->r->known || !reg->r->known[*idx])
			return true;
		ret = eng_chunk_known(t, *idx);
		if (ret == -ENOENT)
			return true;
		if (ret)
			return false;
	}
	return false;
}

void eng_dump_loop(struct eng_thread *t)
{
	uint64_t cur, next = 0;
	bool have, have_next;
	unsigned b = 0;

	have = claim_copy(t, &cur);
	if (have && issue(t, cur, b))
		return;
	while (have) {
		have_next = t->nbuf > 1 && claim_copy(t, &next);
		if (have_next && issue(t, next, b ^ 1))
			return;
		if (finish(t, cur, b))
			return;
		if (t->nbuf > 1) {
			b ^= 1;
		} else {
			have_next = claim_copy(t, &next);
			if (have_next && issue(t, next, b))
				return;
		}
		cur = next;
		have = have_next;
	}
	eng_thread_sync(t);
}
