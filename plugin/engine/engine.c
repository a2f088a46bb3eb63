// SPDX-License-Identifier: MIT
/*
 * engine.c - the copy engine's frame: options, region planning, the copy threads started and
 * joined. The per-chunk work lives in engine_dump.c / engine_restore.c, file access in
 * engine_io.c, what the threads call back (first error, chunk claims, progress) in
 * engine_job.c (see engine_priv.h for the map).
 *
 * Threads: every region gets its own threads (opts->threads, fewer if it has fewer chunks or
 * the pinned bound allows fewer buffers), and all regions run at once, because each GPU has
 * its own PCIe link and storage bandwidth grows with the number of writers
 * (docs/performance.md). Chunks are handed out by an atomic counter, so fast threads take more.
 * Pinned buffers are allocated by the threads themselves after they made the region's context
 * current: that parallelises the pinning, far slower than a copy, and leaves the caller's
 * current context untouched.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "chunkstore.h"
#include "engine_priv.h"
#include "manifest.h"
#include "imgdir.h"

#define ENG_THREADS_MAX 32u
#define ENG_PINNED_MAX	(16ull << 30)

void cs_engine_opts_default(struct cs_engine_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->chunk_size = CS_ENGINE_CHUNK_DEF;
	o->threads = CS_ENGINE_THREADS_DEF;
	o->pinned_max = CS_ENGINE_PINNED_DEF;
	o->direct_io = true;
	/* pwrite into stripes is faster: performance.md, "tmpfs dumps through a mapping" */
	o->map_tmpfs = false;
	o->tmpfs_readback = false;
	o->tmpfs_restore_map = CS_AUTO;
	o->skip_zero = true;
	o->stripes = 0; /* auto: one per copy thread on a memory filesystem */
}

int cs_engine_opts_check(const struct cs_engine_opts *o, char *err, size_t errlen)
{
	if (!eng_chunk_size_ok(o->chunk_size)) {
		cs_seterr(err, errlen, "chunk size %u is not a power of two between %u and %u bytes",
			  o->chunk_size, CS_CHUNK_MIN, CS_CHUNK_MAX);
		return -EINVAL;
	}
	if (o->threads < 1 || o->threads > ENG_THREADS_MAX) {
		cs_seterr(err, errlen, "copy threads per device %u is out of range 1..%u", o->threads,
			  ENG_THREADS_MAX);
		return -EINVAL;
	}
	if (o->stripes > CS_MAX_STRIPES) {
		cs_seterr(err, errlen, "extent files per device %u is out of range 0..%u (0 = auto)",
			  o->stripes, CS_MAX_STRIPES);
		return -EINVAL;
	}
	if (o->pinned_max < o->chunk_size || o->pinned_max > ENG_PINNED_MAX) {
		cs_seterr(err, errlen,
			  "pinned memory per device %zu bytes is out of range %u..%llu (one chunk .. 16 GiB)",
			  o->pinned_max, o->chunk_size, ENG_PINNED_MAX);
		return -EINVAL;
	}
	return 0;
}

void cs_engine_region_from_manifest(struct cs_engine_region *r, const struct cs_manifest_dev *d, int dirfd)
{
	*r = (struct cs_engine_region){ .size = d->size,
					.dirfd = dirfd,
					.name = d->extent,
					.chunk_size = d->chunk_size,
					.nchunks = d->nchunks,
					.hash = d->hash,
					.zero = d->zero,
					.ids = d->ids,
					.nstripes = d->nstripes };
	memcpy(r->stripe_name, d->stripe, sizeof(r->stripe_name));
}

void cs_engine_region_free_meta(struct cs_engine_region *r)
{
	if (!r)
		return;
	free(r->hash);
	free(r->zero);
	if (r->sink) /* a chunked dump's ids are the engine's; a restore's are the caller's */
		free(r->ids);
	r->hash = NULL;
	r->zero = NULL;
	if (r->sink)
		r->ids = NULL;
	r->nchunks = 0;
}

/* ---- threads ------------------------------------------------------------------------------ */

static int thread_setup(struct eng_thread *t)
{
	struct eng_region *reg = t->reg;
	const struct cs_cuda_ops *ops = reg->job->ops;
	CUresult res;
	unsigned i;

	res = ops->CtxSetCurrent(reg->r->ctx);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuCtxSetCurrent", UINT64_MAX);
	res = ops->StreamCreate(&t->stream, CU_STREAM_NON_BLOCKING);
	if (res != CUDA_SUCCESS)
		return eng_cuda_fail(reg, res, "cuStreamCreate", UINT64_MAX);
	t->have_stream = true;
	for (i = 0; i < t->nbuf; i++) {
		res = ops->EventCreate(&t->ev[i], CU_EVENT_DISABLE_TIMING);
		if (res != CUDA_SUCCESS)
			return eng_cuda_fail(reg, res, "cuEventCreate", UINT64_MAX);
		t->buf[i] = eng_pool_take(reg->job->opts->pool, reg->buf_size);
		if (t->buf[i]) {
			t->pooled[i] = true;
			atomic_fetch_add(&reg->pooled, reg->buf_size);
			atomic_fetch_add(&reg->pinned, reg->buf_size);
			continue;
		}
		res = ops->MemHostAlloc(&t->buf[i], reg->buf_size, CU_MEMHOSTALLOC_PORTABLE);
		if (res != CUDA_SUCCESS) {
			t->buf[i] = NULL;
			eng_fail(reg->job, res == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO,
				 "%s: region %u (%s): cuMemHostAlloc of %zu pinned bytes failed: %s",
				 reg->job->dump ? "dump" : "restore", reg->index, reg->r->name, reg->buf_size,
				 cs_cuda_errname(ops, res));
			return -ENOMEM;
		}
		atomic_fetch_add(&reg->pinned, reg->buf_size);
	}
	return 0;
}

/* Wait for whatever is still queued (on failure paths; errors no longer matter), free all. */
static void thread_teardown(struct eng_thread *t)
{
	const struct cs_cuda_ops *ops = t->reg->job->ops;
	unsigned i;

	if (t->have_stream)
		ops->StreamSynchronize(t->stream);
	for (i = 0; i < 2; i++) {
		if (t->buf[i] && t->pooled[i])
			eng_pool_give(t->reg->job->opts->pool, t->buf[i]);
		else if (t->buf[i])
			ops->MemFreeHost(t->buf[i]);
		if (t->ev[i])
			ops->EventDestroy(t->ev[i]);
		t->buf[i] = NULL;
		t->ev[i] = NULL;
	}
	if (t->have_stream)
		ops->StreamDestroy(t->stream);
	t->have_stream = false;
	eng_mapread_window_free(t);
}

static void region_finish(struct eng_region *reg)
{
	if (reg->job->dump && !eng_stopped(reg->job) && !eng_chunked(reg))
		eng_io_finish_dump(reg);
	reg->r->seconds = (double)(cs_now_ns() - reg->t0_ns) / 1e9;
	reg->r->setup_seconds = (double)atomic_load(&reg->setup_ns) / 1e9;
	reg->r->teardown_seconds = (double)atomic_load(&reg->teardown_ns) / 1e9;
	reg->r->io_seconds = (double)atomic_load(&reg->io_ns) / 1e9;
	reg->r->gpu_wait_seconds = (double)atomic_load(&reg->gpu_wait_ns) / 1e9;
	reg->r->threads = reg->nthreads;
}

/* *slowest = max(*slowest, now - t0) */
static void note_slowest(atomic_uint_fast64_t *slowest, uint64_t t0)
{
	uint64_t d = cs_now_ns() - t0, cur = atomic_load(slowest);

	while (d > cur && !atomic_compare_exchange_weak(slowest, &cur, d))
		;
}

static void *thread_main(void *arg)
{
	struct eng_thread *t = arg;
	struct eng_region *reg = t->reg;
	uint64_t t0 = cs_now_ns();
	int ret = thread_setup(t);

	note_slowest(&reg->setup_ns, t0);
	if (!ret) {
		if (reg->job->dump)
			eng_dump_loop(t);
		else
			eng_restore_loop(t);
	}
	atomic_fetch_add(&reg->io_ns, t->io_ns);
	atomic_fetch_add(&reg->gpu_wait_ns, t->gpu_wait_ns);
	t0 = cs_now_ns();
	thread_teardown(t);
	note_slowest(&reg->teardown_ns, t0);
	if (atomic_fetch_sub(&reg->live, 1) == 1)
		region_finish(reg);
	return NULL;
}

/* ---- regions ------------------------------------------------------------------------------ */

/* the CPUs this thread may run on (a container's cpuset, taskset), else the online ones */
static uint64_t usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (uint64_t)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (uint64_t)n : 1;
}

unsigned cs_engine_part_of(uint64_t bytes, uint64_t total)
{
	unsigned part = total ? (unsigned)((double)CS_ENGINE_PART_WHOLE * bytes / total) : 0;

	return part ? part : 1;
}

/* this call's part of a budget shared with the copies that run at once (engine.h: part, sharers) */
static uint64_t my_part(const struct cs_engine_opts *o, uint64_t whole)
{
	if (o->part && o->part < CS_ENGINE_PART_WHOLE)
		return whole * o->part / CS_ENGINE_PART_WHOLE;
	return whole / (o->sharers > 1 ? o->sharers : 1);
}

/*
 * Buffers: as many chunk buffers as pinned_max holds, split among the copies that run at once
 * (my_part). Threads: the option's count; a restore, and a dump into a memory filesystem, are
 * bound by the CPUs' work (read + verify; the copy into the page cache), so they run one thread
 * per CPU the process may use (its affinity: a container's cpuset counts, not the host's CPUs)
 * where the buffers allow (never more: the copies are bound by the host's memory, and more threads
 * only add buffers that no longer stay in the CPUs' caches; performance.md, "Why 4 MiB chunks and
 * no more buffers than that"). Each thread then gets two buffers (one is copied to or from the GPU
 * while the thread works on the other), except a dump into a memory filesystem: one buffer each,
 * whose smaller set stays in the CPUs' caches (its D2H takes a fraction of the thread's write).
 * Never more threads than buffers or chunks. Thread i gets buffers i and i + nthreads (when that
 * exists).
 */
static void plan_counts(const struct cs_engine_opts *o, size_t pinned_max, uint64_t nchunks, size_t buf_size,
			bool dump, bool memfs, uint64_t *nthreads_out, uint64_t *nbufs_out)
{
	uint64_t cpus = my_part(o, usable_cpus());
	uint64_t nbufs, nthreads, cap, per_thread = dump && memfs ? 1 : 2;

	/* copies that run at once split the budget; each keeps one thread and one buffer */
	nbufs = buf_size ? my_part(o, pinned_max) / buf_size : 0;
	if (!nbufs && buf_size && pinned_max >= buf_size)
		nbufs = 1;
	nthreads = my_part(o, o->threads);
	if (!nthreads)
		nthreads = 1;
	cap = cpus > nthreads ? cpus : nthreads;
	if (cap > ENG_THREADS_MAX)
		cap = ENG_THREADS_MAX;
	if ((!dump || memfs) && nbufs > nthreads)
		nthreads = nbufs < cap ? nbufs : cap;
	if (nthreads > nchunks)
		nthreads = nchunks ? nchunks : 1;
	if (nbufs && nthreads > nbufs)
		nthreads = nbufs;
	if (nbufs > per_thread * nthreads)
		nbufs = per_thread * nthreads;
	if (nbufs > nchunks)
		nbufs = nchunks;
	*nthreads_out = nthreads;
	*nbufs_out = nbufs;
}

static size_t plan_buf_size(uint64_t size, uint32_t chunk)
{
	return size < chunk ? (size_t)((size + ENG_ALIGN - 1) & ~(uint64_t)(ENG_ALIGN - 1)) : chunk;
}

static unsigned plan_stripes(const struct cs_engine_opts *o, uint64_t nchunks, uint64_t nthreads, bool memfs)
{
	uint64_t n = o->stripes;

	if (!n)
		n = memfs ? nthreads : 1;
	if (n > CS_MAX_STRIPES)
		n = CS_MAX_STRIPES;
	if (n > nchunks)
		n = nchunks ? nchunks : 1;
	return (unsigned)n;
}

void cs_engine_plan(const struct cs_engine_opts *o, uint64_t size, bool dump, int dirfd, unsigned *threads,
		    unsigned *stripes)
{
	uint64_t nchunks = (size + o->chunk_size - 1) / o->chunk_size, nt, nb;
	bool memfs = eng_dir_is_memfs(dirfd);

	plan_counts(o, o->pinned_max, nchunks, plan_buf_size(size, o->chunk_size), dump, memfs, &nt, &nb);
	*threads = (unsigned)nt;
	*stripes = plan_stripes(o, nchunks, nt, memfs);
}

unsigned cs_engine_plan_buffers(const struct cs_engine_opts *o, uint64_t size, uint32_t chunk, bool dump,
				int dirfd)
{
	struct cs_engine_opts alone = *o;
	uint64_t nt, nb;

	if (!chunk)
		return 0;
	alone.sharers = 1;
	alone.part = 0;
	plan_counts(&alone, o->pinned_max, (size + chunk - 1) / chunk, plan_buf_size(size, chunk), dump,
		    dump && eng_dir_is_memfs(dirfd), &nt, &nb);
	return (unsigned)nb;
}

/* the region's threads and buffers (plan_counts) */
static int region_plan(struct eng_region *reg)
{
	const struct cs_engine_opts *o = reg->job->opts;
	uint64_t size = reg->r->size;
	uint64_t nbufs, nthreads;
	size_t pinned_max = o->pinned_max;
	unsigned i;

	reg->nchunks = (size + reg->chunk - 1) / reg->chunk;
	reg->buf_size = plan_buf_size(size, reg->chunk);
	if (reg->buf_size > pinned_max && reg->job->dump) {
		eng_fail(reg->job, -EINVAL,
			 "region %u (%s): chunk size %u needs more pinned memory than the bound of %zu bytes",
			 reg->index, reg->r->name, reg->chunk, pinned_max);
		return -EINVAL;
	}
	if (reg->buf_size > pinned_max) {
		/*
		 * The images were dumped with chunks larger than this host's pinned bound. The bound is
		 * a local tuning option and must never make good images unrestorable: use one
		 * chunk-sized buffer (one copy thread) for this region instead (engine.h).
		 */
		eng_note(reg->job, CS_ENGINE_NOTE_WARN,
			 "engine: %s: the images use %u-byte chunks, more than the pinned bound of %zu bytes "
			 "(pinned_mb); restoring this GPU with one %zu-byte pinned buffer",
			 reg->r->name, reg->chunk, pinned_max, reg->buf_size);
		pinned_max = reg->buf_size;
	}
	plan_counts(o, pinned_max, reg->nchunks, reg->buf_size, reg->job->dump, reg->memfs, &nthreads,
		    &nbufs);
	reg->nthreads = (unsigned)nthreads;
	reg->nbufs = (unsigned)nbufs;
	reg->threads = calloc(nthreads, sizeof(*reg->threads));
	if (!reg->threads) {
		eng_fail(reg->job, -ENOMEM, "region %u (%s): out of memory", reg->index, reg->r->name);
		return -ENOMEM;
	}
	for (i = 0; i < nthreads; i++) {
		reg->threads[i].reg = reg;
		reg->threads[i].nbuf = (i < nbufs) + (i + nthreads < nbufs);
	}
	return 0;
}

static void files_init(struct eng_region *reg)
{
	const struct cs_engine_region *r = reg->r;
	unsigned k;

	for (k = 0; k < reg->nfiles; k++) {
		struct eng_file *f = &reg->files[k];

		f->reg = reg;
		f->index = k;
		f->name = k ? r->stripe_name[k] : r->name;
		f->size = cs_stripe_size(r->size, reg->chunk, reg->nfiles, k);
	}
}

/* Dump: as many stripes as asked for (auto: one per thread on a memory filesystem), named. */
static int dump_stripes(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	unsigned n = plan_stripes(reg->job->opts, reg->nchunks, reg->nthreads, reg->memfs), k;

	for (k = 0; k < n; k++) {
		if (cs_name_stripe(r->stripe_name[k], r->name, k)) {
			eng_fail(reg->job, -ENAMETOOLONG,
				 "dump: region %u: extent name %s leaves no room for stripe names",
				 reg->index, r->name);
			return -ENAMETOOLONG;
		}
	}
	r->nstripes = n;
	reg->nfiles = n;
	files_init(reg);
	return 0;
}

/* Restore: the stripes the caller (the manifest) names; each must be a safe name. */
static int restore_stripes(struct eng_region *reg)
{
	const struct cs_engine_region *r = reg->r;
	unsigned n = r->nstripes ? r->nstripes : 1, k;

	if (n > CS_MAX_STRIPES || (n > 1 && n > reg->nchunks)) {
		eng_fail(reg->job, -EINVAL,
			 "restore: region %u (%s): %u extent files for %llu chunks (at most %u, and no more "
			 "than chunks)",
			 reg->index, r->name, n, (unsigned long long)reg->nchunks, CS_MAX_STRIPES);
		return -EINVAL;
	}
	reg->nfiles = n;
	files_init(reg);
	for (k = 0; k < n; k++) {
		if (!cs_name_is_safe(reg->files[k].name)) {
			eng_fail(reg->job, -EINVAL, "restore: region %u: extent file %u has an unsafe name",
				 reg->index, k);
			return -EINVAL;
		}
	}
	return 0;
}

static int region_prepare_dump(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	int ret;

	reg->chunk = r->sink ? CS_DEDUP_CHUNK : reg->job->opts->chunk_size;
	reg->memfs = eng_dir_is_memfs(r->dirfd);
	ret = region_plan(reg);
	if (!ret && r->sink) { /* chunks, not extent files: one nominal file, never created */
		r->nstripes = reg->nfiles = 1;
		files_init(reg);
	} else if (!ret) {
		ret = dump_stripes(reg);
	}
	if (ret)
		return ret;
	r->chunk_size = reg->chunk;
	r->nchunks = reg->nchunks;
	r->hash = calloc(reg->nchunks ? reg->nchunks : 1, sizeof(*r->hash));
	r->zero = calloc(reg->nchunks ? reg->nchunks : 1, sizeof(*r->zero));
	if (r->sink)
		r->ids = calloc(reg->nchunks ? reg->nchunks : 1, CS_CHUNK_ID_LEN);
	if (!r->hash || !r->zero || (r->sink && !r->ids)) {
		eng_fail(reg->job, -ENOMEM, "region %u (%s): no memory for metadata of %llu chunks",
			 reg->index, r->name, (unsigned long long)reg->nchunks);
		return -ENOMEM;
	}
	if (reg->job->opts->skip_zero) {
		reg->zero_hash_full = eng_hash_zeros(reg->chunk);
		reg->zero_hash_tail =
		    eng_hash_zeros(r->size - (reg->nchunks ? (reg->nchunks - 1) * reg->chunk : 0));
	}
	if (r->sink)
		return 0;
	ret = eng_io_create(reg);
	if (!ret && !reg->job->opts->no_reserve)
		ret = eng_io_reserve(reg);
	if (!ret)
		eng_io_map(reg);
	return ret;
}

static int region_prepare_restore(struct eng_region *reg)
{
	int ret;

	reg->chunk = reg->r->chunk_size;
	ret = eng_restore_check_meta(reg);
	if (ret)
		return ret;
	reg->memfs = eng_dir_is_memfs(reg->r->dirfd);
	ret = region_plan(reg);
	if (!ret)
		ret = restore_stripes(reg);
	if (ret)
		return ret;
	if (reg->r->ids) { /* chunk files, opened one by one (engine_chunks.c) */
		reg->chunks_fd = cs_chunks_dir_open(reg->r->dirfd, false);
		if (reg->chunks_fd < 0) {
			ret = reg->chunks_fd;
			eng_fail(reg->job, ret,
				 "restore: region %u: %s cannot be opened in the images "
				 "directory: %s",
				 reg->index, CS_CHUNKS_DIR, strerror(-ret));
			return ret;
		}
		eng_mapread_plan_chunks(reg);
		return 0;
	}
	reg->pf = eng_prefetch_find(reg->job->opts->prefetch, reg->r);
	ret = eng_io_open_ro(reg);
	if (!ret)
		eng_mapread_plan(reg);
	return ret;
}

static void region_close(struct eng_region *reg, bool failed)
{
	struct cs_engine_region *r = reg->r;
	bool direct = reg->nfiles > 0;
	unsigned k;

	eng_io_unmap(reg);
	if (reg->chunks_fd >= 0)
		close(reg->chunks_fd);
	reg->chunks_fd = -1;
	r->new_bytes = atomic_load(&reg->fresh);
	r->skipped_bytes = atomic_load(&reg->skipped);
	for (k = 0; k < reg->nfiles; k++) {
		struct eng_file *f = &reg->files[k];

		direct = direct && atomic_load(&f->direct);
		if (f->fd >= 0)
			close(f->fd);
		f->fd = -1;
		if (failed && f->created) {
			int ret = cs_imgdir_remove(r->dirfd, f->name);

			if (ret)
				eng_note(reg->job, CS_ENGINE_NOTE_WARN,
					 "engine: cannot remove the incomplete extent %s: %s", f->name,
					 strerror(-ret));
		}
	}
	if (failed && reg->job->dump) {
		cs_engine_region_free_meta(r);
		r->nstripes = 0;
	}
	r->stored_bytes = atomic_load(&reg->stored);
	r->pinned_bytes = atomic_load(&reg->pinned);
	r->pooled_bytes = atomic_load(&reg->pooled);
	r->used_direct_io = direct;
	r->prefetched_bytes = atomic_load(&reg->prefetched);
	eng_prefetch_release(reg->job->opts->prefetch, reg->pf);
	reg->pf = NULL;
	free(reg->threads);
	reg->threads = NULL;
	pthread_mutex_destroy(&reg->lock);
}

/*
 * Engine threads run in cudastore-helper (or the command, a benchmark) with every signal
 * blocked: a signal meant for the process must never run a handler on them nor interrupt a
 * copy. The mask is inherited from the creating thread, so it is set around pthread_create
 * and put back after.
 */
static int start_blocked(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	ret = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (ret)
		return ret;
	ret = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void start_threads(struct eng_region *regs, unsigned n)
{
	unsigned i, j;
	int ret;

	for (i = 0; i < n; i++) {
		regs[i].t0_ns = cs_now_ns();
		atomic_store(&regs[i].live, regs[i].nthreads);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < regs[i].nthreads; j++) {
			struct eng_thread *t = &regs[i].threads[j];

			ret = start_blocked(&t->tid, thread_main, t);
			if (ret) {
				eng_fail(regs[i].job, -ret, "region %u (%s): cannot start copy thread %u: %s",
					 i, regs[i].r->name, j, strerror(ret));
				return;
			}
			t->started = true;
		}
	}
}

static void join_threads(struct eng_region *regs, unsigned n)
{
	unsigned i, j;

	for (i = 0; i < n; i++)
		for (j = 0; regs[i].threads && j < regs[i].nthreads; j++)
			if (regs[i].threads[j].started)
				pthread_join(regs[i].threads[j].tid, NULL);
}

/* how the region's files were written or read, for note_region */
static const char *io_name(const struct eng_region *reg)
{
	if (reg->r->used_mapping)
		return reg->job->dump ? "mapped (tmpfs) I/O" : "buffered I/O, read through a mapping";
	if (reg->r->used_direct_io)
		return "O_DIRECT I/O";
	if (eng_reads_back(reg))
		return "buffered I/O, each step read back";
	return "buffered I/O";
}

static void note_region(const struct eng_region *reg)
{
	const struct cs_engine_region *r = reg->r;
	double s = r->seconds > 0 ? r->seconds : 1e-9;
	uint64_t i, zero = 0;
	char pf[64] = "", pool[48] = "";

	if (r->pooled_bytes)
		snprintf(pool, sizeof(pool), " (%llu from the pool)", (unsigned long long)r->pooled_bytes);
	if (r->prefetched_bytes)
		snprintf(pf, sizeof(pf), "; %llu bytes from the prefetch",
			 (unsigned long long)r->prefetched_bytes);
	for (i = 0; r->zero && i < r->nchunks; i++)
		zero += r->zero[i] != 0;
	eng_note(reg->job, CS_ENGINE_NOTE_INFO,
		 "%s region %u (%s): %llu bytes in %.3f s (%.2f GB/s); %llu chunks, %llu zero; %llu bytes in "
		 "%u file%s; %s; %u threads, %llu pinned bytes%s; thread setup %.3f s, teardown %.3f s%s; "
		 "the threads' %.3f s: %.3f in the files and checks, %.3f waiting for the GPU",
		 reg->job->opts->note_verb ? reg->job->opts->note_verb
		 : reg->job->dump	   ? "dumped"
					   : "restored",
		 reg->index, r->name, (unsigned long long)r->size, r->seconds, (double)r->size / s / 1e9,
		 (unsigned long long)reg->nchunks, (unsigned long long)zero,
		 (unsigned long long)r->stored_bytes, reg->nfiles, reg->nfiles > 1 ? "s" : "", io_name(reg),
		 reg->nthreads, (unsigned long long)r->pinned_bytes, pool, r->setup_seconds,
		 r->teardown_seconds, pf, r->seconds * reg->nthreads, r->io_seconds, r->gpu_wait_seconds);
}

static int run(const struct cs_cuda_ops *ops, struct cs_engine_region *regions, unsigned n,
	       const struct cs_engine_opts *opts, bool dump, char *err, size_t errlen)
{
	struct eng_job job = { .ops = ops, .opts = opts, .dump = dump, .errbuf = err, .errlen = errlen };
	struct eng_region *regs;
	unsigned i, ready = 0;
	int ret;

	ret = cs_engine_opts_check(opts, err, errlen);
	if (ret)
		return ret;
	regs = calloc(n ? n : 1, sizeof(*regs));
	if (!regs) {
		cs_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&job.lock, NULL);
	for (i = 0; i < n; i++, ready++) {
		regs[i] =
		    (struct eng_region){ .job = &job, .r = &regions[i], .index = opts->first_region + i };
		for (unsigned k = 0; k < CS_MAX_STRIPES; k++)
			regs[i].files[k].fd = -1;
		regs[i].chunks_fd = -1;
		pthread_mutex_init(&regs[i].lock, NULL);
		regions[i].stored_bytes = regions[i].pinned_bytes = regions[i].prefetched_bytes = 0;
		regions[i].used_direct_io = regions[i].used_mapping = false;
		regions[i].pooled_bytes = 0;
		regions[i].seconds = regions[i].setup_seconds = regions[i].teardown_seconds = 0;
		regions[i].io_seconds = regions[i].gpu_wait_seconds = 0;
		regions[i].threads = 0;
		ret = (dump ? region_prepare_dump : region_prepare_restore)(&regs[i]);
		if (ret) {
			if (!job.err)
				eng_fail(&job, ret, "region %u (%s): setup failed: %s", regs[i].index,
					 regions[i].name, strerror(-ret));
			ready++;
			break;
		}
	}
	if (!job.err) {
		start_threads(regs, n);
		join_threads(regs, n);
	}
	for (i = 0; i < ready; i++) {
		region_close(&regs[i], job.err != 0);
		if (!job.err)
			note_region(&regs[i]);
	}
	ret = job.err;
	pthread_mutex_destroy(&job.lock);
	free(regs);
	return ret;
}

int cs_engine_dump(const struct cs_cuda_ops *ops, struct cs_engine_region *regions, unsigned n,
		   const struct cs_engine_opts *opts, char *err, size_t errlen)
{
	return run(ops, regions, n, opts, true, err, errlen);
}

int cs_engine_restore(const struct cs_cuda_ops *ops, struct cs_engine_region *regions, unsigned n,
		      const struct cs_engine_opts *opts, char *err, size_t errlen)
{
	return run(ops, regions, n, opts, false, err, errlen);
}
