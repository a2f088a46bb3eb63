// SPDX-License-Identifier: MIT
/*
 * engine_restore.c - one restore thread: pread -> verify XXH3 -> H2D, double-buffered.
 * (Buffered reads are hashed piece by piece as they come in, engine_io.c.)
 *
 * A chunk reaches the device only after its hash matched the manifest, so a corrupt image
 * never overwrites GPU memory with wrong bytes unnoticed. With two buffers the pread of the
 * next chunk runs while the H2D of the previous one is in flight; before a buffer is reused
 * the thread waits for that buffer's event. All-zero chunks are cleared with a memset on the
 * device and their bytes in the file (a hole) are never read.
 */
#include <errno.h>
#include <inttypes.h>

#include "chunkstore.h"
#include "engine_priv.h"

/* The manifest must describe this region's size; a chunk flagged zero must carry the hash of zeros. */
int eng_restore_check_meta(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	uint64_t i, want, n;

	if (!eng_chunk_size_ok(r->chunk_size)) {
		eng_fail(reg->job, -EINVAL,
			 "restore: region %u (%s): chunk size %u is not a power of two between %u and %u",
			 reg->index, r->name, r->chunk_size, CS_CHUNK_MIN, CS_CHUNK_MAX);
		return -EINVAL;
	}
	n = (r->size + r->chunk_size - 1) / r->chunk_size;
	if (r->nchunks != n || (n && (!r->hash || !r->zero))) {
		eng_fail(reg->job, -EINVAL,
			 "restore: region %u (%s): %llu bytes in chunks of %u need %llu chunk records, found "
			 "%llu%s",
			 reg->index, r->name, (unsigned long long)r->size, r->chunk_size,
			 (unsigned long long)n, (unsigned long long)r->nchunks,
			 r->hash && r->zero ? "" : " (no hash/zero arrays)");
		return -EINVAL;
	}
	for (i = 0; i < n && !r->zero[i]; i++)
		;
	if (i == n)
		return 0;
	reg->zero_hash_full = eng_hash_zeros(r->chunk_size);
	reg->zero_hash_tail = eng_hash_zeros(r->size - (n - 1) * r->chunk_size);
	for (; i < n; i++) {
		size_t len =
		    r->size - i * r->chunk_size < r->chunk_size ? r->size - i * r->chunk_size : r->chunk_size;

		want = len == r->chunk_size ? reg->zero_hash_full : reg->zero_hash_tail;
		if (r->zero[i] && r->hash[i] != want) {
			eng_fail(reg->job, -EBADMSG,
				 "restore: %s: chunk %llu is marked all-zero but its hash %016" PRIx64
				 " is not that of zeros (%016" PRIx64 "); manifest corrupt",
				 r->name, (unsigned long long)i, r->hash[i], want);
			return -EBADMSG;
		}
	}
	return 0;
}

static int clear_chunk(struct eng_thread *t, uint64_t idx)
{
	struct eng_region *reg = t->reg;
	CUresult res;

	res = reg->job->ops->MemsetD8Async(reg->r->ptr + eng_chunk_off(reg, idx), 0, eng_chunk_len(reg, idx),
					   t->stream);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuMemsetD8Async", idx);
	eng_progress(reg, eng_chunk_len(reg, idx));
	return 0;
}

static int verify(struct eng_region *reg, uint64_t found, size_t len, uint64_t idx)
{
	const struct eng_file *f = eng_chunk_file(reg, idx);

	if (found == reg->r->hash[idx])
		return 0;
	if (eng_chunked(reg)) {
		char rel[CS_CHUNK_REL];

		cs_chunk_rel(reg->r->ids + idx * CS_CHUNK_ID_LEN, rel);
		eng_fail(reg->job, -EBADMSG,
			 "restore: checksum mismatch in %s/%s, chunk %llu (%llu on the device, %zu bytes): "
			 "expected XXH3 %016" PRIx64 ", found %016" PRIx64 ": the chunk file was changed",
			 CS_CHUNKS_DIR, rel, (unsigned long long)idx,
			 (unsigned long long)eng_chunk_off(reg, idx), len, reg->r->hash[idx], found);
		return -EBADMSG;
	}
	eng_fail(reg->job, -EBADMSG,
		 "restore: checksum mismatch in %s, chunk %llu (offset %llu in the file, %llu on the "
		 "device, %zu bytes): expected XXH3 %016" PRIx64 ", found %016" PRIx64,
		 f->name, (unsigned long long)idx, (unsigned long long)eng_file_off(reg, idx),
		 (unsigned long long)eng_chunk_off(reg, idx), len, reg->r->hash[idx], found);
	return -EBADMSG;
}

static int load_chunk(struct eng_thread *t, uint64_t idx, unsigned b)
{
	struct eng_region *reg = t->reg;
	const struct cs_cuda_ops *ops = reg->job->ops;
	size_t len = eng_chunk_len(reg, idx);
	uint64_t found = 0, t0 = cs_now_ns(), t1;
	CUresult res;
	int ret;

	if (t->busy[b]) {
		res = ops->EventSynchronize(t->ev[b]);
		t->gpu_wait_ns += cs_now_ns() - t0;
		if (res != CUDA_SUCCESS)
			return eng_cuda_fail(reg, res, "cuMemcpyHtoDAsync (completion)", UINT64_MAX);
		t->busy[b] = false;
	}
	t1 = cs_now_ns();
	if (reg->pf &&
	    eng_prefetch_take(reg->job->opts->prefetch, reg->pf, idx, t->buf[b], len, reg->r->hash[idx])) {
		atomic_fetch_add(&reg->prefetched, len); /* read and verified before (engine_prefetch.c) */
	} else {
		/* hashes what it read */
		ret = eng_chunked(reg) ? eng_chunk_read(t, t->buf[b], len, idx, &found)
				       : eng_io_read(t, t->buf[b], len, idx, &found);
		if (!ret)
			ret = verify(reg, found, len, idx);
		if (ret)
			return ret;
	}
	t->io_ns += cs_now_ns() - t1;
	if (eng_stopped(reg->job))
		return -ECANCELED;
	res = ops->MemcpyHtoDAsync(reg->r->ptr + eng_chunk_off(reg, idx), t->buf[b], len, t->stream);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuMemcpyHtoDAsync", idx);
	res = ops->EventRecord(t->ev[b], t->stream);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuEventRecord", idx);
	t->busy[b] = true;
	atomic_fetch_add(&reg->stored, len);
	eng_progress(reg, len);
	return 0;
}

uint64_t eng_run_length(uint64_t unclaimed, unsigned nthreads, uint32_t group, uint64_t file_left)
{
	uint64_t n = unclaimed / (2 * (uint64_t)(nthreads ? nthreads : 1));

	if (n > group)
		n = group;
	if (n > file_left)
		n = file_left;
	return n ? n : 1;
}

/* rows of file k: its chunks k, k + nfiles, ... (its stripe's size, files_init, in chunks) */
static uint64_t file_rows(const struct eng_region *reg, unsigned k)
{
	return (reg->files[k].size + reg->chunk - 1) / reg->chunk;
}

/*
 * Claim the next run: rows of one file, back to back. The files are taken in turn (reg->next),
 * then, once a file is done, searched in order for one with rows left. A run is reg->group rows
 * (ENG_MAP_DROP bytes) while much is left and shorter towards the end (eng_run_length), so the
 * threads end together: with runs of one length, the thread that claimed the last one copied it
 * alone, up to a whole run's copy after the others, a large share of a small restore
 * (docs/performance.md, "The first read of a tmpfs page").
 */
static bool claim_run(struct eng_thread *t)
{
	struct eng_region *reg = t->reg;
	uint64_t rows, cur, n = 0;
	unsigned tries, k;

	for (tries = 0; tries < 2 * reg->nfiles; tries++) {
		k = tries < reg->nfiles ? (unsigned)(atomic_fetch_add(&reg->next, 1) % reg->nfiles)
					: tries - reg->nfiles;
		rows = file_rows(reg, k);
		cur = atomic_load(&reg->run_next[k]);
		do {
			if (cur >= rows)
				break;
			n = eng_run_length(atomic_load(&reg->unclaimed), reg->nthreads, reg->group,
					   rows - cur);
		} while (!atomic_compare_exchange_weak(&reg->run_next[k], &cur, cur + n));
		if (cur < rows) {
			atomic_fetch_sub(&reg->unclaimed, n);
			t->grp_file = k;
			t->grp_first = t->grp_row = cur;
			t->grp_end = cur + n;
			return true;
		}
	}
	return false;
}

/*
 * The next chunk for this thread. Reading through mappings (reg->group, engine_mapread.c), a
 * thread claims a run of chunks that lie back to back in one file (claim_run), and drops the run
 * from the mapping once it has copied all of it: one call per ENG_MAP_DROP bytes at most, not
 * one per chunk. Otherwise one chunk.
 */
static bool claim(struct eng_thread *t, uint64_t *idx)
{
	struct eng_region *reg = t->reg;

	if (!reg->group)
		return eng_claim(reg, idx);
	for (;;) {
		if (t->grp_row < t->grp_end) {
			*idx = t->grp_file + (uint64_t)reg->nfiles * t->grp_row++;
			return !eng_stopped(reg->job);
		}
		if (t->grp_end > t->grp_first)
			eng_mapread_drop(reg, t->grp_file, t->grp_first, t->grp_end);
		t->grp_first = t->grp_row = t->grp_end = 0;
		if (eng_stopped(reg->job) || !claim_run(t))
			return false;
	}
}

void eng_restore_loop(struct eng_thread *t)
{
	struct eng_region *reg = t->reg;
	unsigned b = 0;
	uint64_t idx;

	while (claim(t, &idx)) {
		if (reg->r->zero[idx]) {
			if (clear_chunk(t, idx))
				return;
			continue;
		}
		if (load_chunk(t, idx, b))
			return;
		b = (b + 1) % t->nbuf;
	}
	eng_thread_sync(t);
}
