// SPDX-License-Identifier: MIT
/*
 * bench-procs.c - cs-bench --procs N: the GPU memory of N processes copied at once, as the helper
 * does for a process tree (docs/performance.md).
 *
 * Every size row of SIZE bytes is split into N copies of SIZE / N bytes (rounded down to 4 KiB),
 * each its own device buffer with its own pattern (b->seed) and its own extent files, named as N
 * processes' would be. N threads each call cs_engine_dump (later cs_engine_restore) on their
 * copy, with opts.sharers = N and one pinned pool for all N, released together; the wall runs
 * from the release until the last call returned. The limit beside the aggregate is, as for the
 * single rows, the lower of the PCIe link (the pinned D2H or H2D the size's rows measured: all N
 * copies share it) and the storage measured with the same parallelism: N copies at once, each
 * with the writers, readers and files cs_engine_plan gives one call of SIZE / N bytes with these
 * options (bench_storage_procs).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "engine.h"

#define PROCS_TARGET 0.8 /* aggregate / N-writer (N-reader) storage limit */

/* one of the N copies: its buffer, its region and its call's result */
struct proc_copy {
	struct bench b;				/* b.seed: this copy's pattern */
	struct cs_engine_opts eo;		/* the row's, with this copy's part (--procs-split size) */
	uint64_t size;				/* its bytes (--procs-weights) */
	unsigned dump_threads, restore_threads; /* what its calls ran */
	double dump_s, restore_s;		/* its calls' own times */
	/* its restore's slowest thread's setup and teardown, and its threads' time in the files and
	 * checks and waiting for the GPU, as shares of threads x seconds */
	double rsetup, rteardown, rio, rgpu;
	CUdeviceptr dev;
	struct cs_engine_region reg;
	char name[64];
	pthread_rwlock_t *go; /* write-locked by the caller until every copy's thread exists */
	bool dump;
	int ret;
	double seconds;
	char err[512];
	pthread_t tid;
};

/* what one size and kind measured, over all copies */
struct procs_row {
	uint64_t size, per; /* all copies, one copy */
	enum bench_kind kind;
	unsigned wthreads, rthreads, files; /* per copy */
	double dump, restore;		    /* aggregate GB/s */
	double dwall, dsum, rwall, rsum;    /* seconds: wall of all, sum of the copies' own */
	double wr, rd, rd_piece;	    /* N-copy storage limits, 0 = not measured */
	double d2h, h2d;		    /* the PCIe link, from the size's rows; 0 = not measured */
	uint64_t moved;			    /* the copies' bytes together (--procs-weights: about size) */
	double rd_first;		    /* the read limit's first pass: pages just written */
	uint64_t image_bytes, pinned, pooled;
	bool dropped, verified;
};

int bench_procs_init(struct bench_procs *p, const struct bench *b, const struct cs_engine_opts *eo,
		     unsigned n)
{
	unsigned nbufs = (unsigned)(eo->pinned_max / eo->chunk_size);
	char err[256];

	p->n = n;
	p->eo = *eo;
	p->eo.sharers = n;
	/* the copies split pinned_max, each keeping at least one chunk buffer (engine.h) */
	if (nbufs < n)
		nbufs = n;
	if (cs_pinned_pool_create(&p->pool, b->ops, b->ctx, eo->chunk_size, nbufs, err, sizeof(err))) {
		fprintf(stderr, "cs-bench: --procs: %s\n", err);
		return -1;
	}
	p->eo.pool = p->pool;
	printf("# --procs %u: each size row also runs %u concurrent copies of size/%u bytes each "
	       "(sharers %u), sharing one pinned pool of %u x %u bytes (pinned in %.3f s, untimed)\n",
	       n, n, n, n, nbufs, eo->chunk_size, cs_pinned_pool_seconds(p->pool));
	return 0;
}

void bench_procs_fini(struct bench_procs *p)
{
	cs_pinned_pool_destroy(p->pool);
	p->pool = NULL;
}

static void *copy_main(void *arg)
{
	struct proc_copy *cp = arg;
	const struct cs_cuda_ops *ops = cp->b.ops;
	double t0;

	pthread_rwlock_rdlock(cp->go);
	pthread_rwlock_unlock(cp->go);
	ops->CtxSetCurrent(cp->b.ctx);
	t0 = cs_now();
	if (cp->dump)
		cp->ret = cs_engine_dump(ops, &cp->reg, 1, &cp->eo, cp->err, sizeof(cp->err));
	else
		cp->ret = cs_engine_restore(ops, &cp->reg, 1, &cp->eo, cp->err, sizeof(cp->err));
	cp->seconds = cs_now() - t0;
	return NULL;
}

/* every copy's dump (or restore) at once; *wall from the release to the last return */
static int procs_phase(struct proc_copy *cp, unsigned n, bool dump, double *wall, double *sum)
{
	pthread_rwlock_t go = PTHREAD_RWLOCK_INITIALIZER;
	unsigned i, started;
	double t0;
	int ret = 0;

	pthread_rwlock_wrlock(&go);
	for (started = 0; started < n; started++) {
		cp[started].go = &go;
		cp[started].dump = dump;
		cp[started].ret = -EAGAIN;
		snprintf(cp[started].err, sizeof(cp[started].err), "no thread");
		if (pthread_create(&cp[started].tid, NULL, copy_main, &cp[started]))
			break;
	}
	t0 = cs_now();
	pthread_rwlock_unlock(&go);
	for (i = 0; i < started; i++)
		pthread_join(cp[i].tid, NULL);
	*wall = cs_now() - t0;
	*sum = 0;
	for (i = 0; i < n; i++) {
		*sum += cp[i].seconds;
		if (cp[i].ret) {
			fprintf(stderr, "cs-bench: --procs: copy %u: engine %s failed: %s\n", i,
				dump ? "dump" : "restore", cp[i].err);
			ret = -1;
		}
	}
	pthread_rwlock_destroy(&go);
	return ret;
}

/* the chunk tables; the extents too, unless --keep */
static void copies_clean(struct proc_copy *cp, unsigned n, bool keep)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		cs_engine_region_free_meta(&cp[i].reg);
		if (!keep && cp[i].name[0])
			bench_remove_extents(&cp[i].b, cp[i].name);
	}
}

static void copies_free(struct proc_copy *cp, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (cp[i].dev)
			cp[i].b.ops->MemFree(cp[i].dev);
	free(cp);
}

/* copy i's bytes of a row of size bytes: an even share, or by --procs-weights (4 KiB multiples) */
static uint64_t copy_size(const struct bench_procs *p, uint64_t size, unsigned i)
{
	uint64_t sum = 0;
	unsigned k;

	for (k = 0; k < p->n; k++)
		sum += p->weight[k];
	if (!sum)
		return size / p->n & ~4095ull;
	return (uint64_t)((double)size * p->weight[i] / sum) & ~4095ull;
}

static struct proc_copy *copies_alloc(const struct bench *b, const struct bench_procs *p, uint64_t size)
{
	struct proc_copy *cp = calloc(p->n, sizeof(*cp));
	uint64_t total = 0;
	unsigned i;

	for (i = 0; cp && i < p->n; i++)
		total += copy_size(p, size, i);
	for (i = 0; cp && i < p->n; i++) {
		cp[i].b = *b;
		cp[i].b.seed = i + 1;
		cp[i].size = copy_size(p, size, i);
		cp[i].eo = p->eo;
		if (p->by_size && total)
			cp[i].eo.part = cs_engine_part_of(cp[i].size, total);
		if (b->ops->MemAlloc(&cp[i].dev, cp[i].size) != CUDA_SUCCESS) {
			fprintf(stderr,
				"cs-bench: --procs: cannot allocate %llu bytes of device memory (copy %u)\n",
				(unsigned long long)cp[i].size, i);
			cp[i].dev = 0;
			copies_free(cp, p->n);
			return NULL;
		}
	}
	return cp;
}

/* fill every copy with its own pattern; fresh regions named as N processes' extents would be */
static int copies_fill(struct proc_copy *cp, unsigned n, const struct procs_row *r)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		cs_engine_region_free_meta(&cp[i].reg);
		snprintf(cp[i].name, sizeof(cp[i].name), "cs-bench-proc%u-%lluM-%s.ext", i + 1,
			 (unsigned long long)(r->size >> 20), r->kind == BENCH_DENSE ? "dense" : "zero75");
		bench_remove_extents(&cp[i].b, cp[i].name);
		cp[i].reg = (struct cs_engine_region){
			.ptr = cp[i].dev,
			.size = cp[i].size,
			.ctx = cp[i].b.ctx,
			.dirfd = cp[i].b.dirfd,
			.name = cp[i].name,
		};
		if (bench_fill(&cp[i].b, cp[i].dev, cp[i].size, r->kind))
			return -1;
	}
	return 0;
}

static int copies_scramble(struct proc_copy *cp, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (bench_scramble(&cp[i].b, cp[i].dev, cp[i].size))
			return -1;
	return 0;
}

/* every byte of every copy; false on the first copy that differs */
static int copies_verify(struct proc_copy *cp, unsigned n, const struct procs_row *r, bool *same)
{
	unsigned i;

	*same = true;
	for (i = 0; i < n && *same; i++) {
		if (bench_verify(&cp[i].b, cp[i].dev, cp[i].size, r->kind, same))
			return -1;
		if (!*same)
			fprintf(stderr, "cs-bench: --procs: copy %u: device bytes differ after the restore\n",
				i);
	}
	return 0;
}

static const char *target_word(double v, double limit)
{
	if (limit <= 0)
		return "n/a (no limit measured)";
	return v >= PROCS_TARGET * limit ? "met" : "missed";
}

static double share(double v, double limit)
{
	return limit > 0 ? v / limit : 0;
}

/* the lower of two limits, either of which may be missing (0) */
static double lower(double a, double b)
{
	return a > 0 && (b <= 0 || a < b) ? a : b;
}

static double dump_limit(const struct procs_row *r)
{
	return lower(r->d2h, r->wr);
}

static double restore_limit(const struct procs_row *r)
{
	return lower(r->h2d, r->rd);
}

static void print_human(const struct bench_procs *p, const struct procs_row *r)
{
	const char *kind = r->kind == BENCH_DENSE ? "dense" : "zero75";
	unsigned long long mib = (unsigned long long)(r->size >> 20);
	/* "of N bytes" each, or "moving N bytes" in all (--procs-weights) */
	const char *of = p->weight[0] ? "moving" : "of";
	unsigned long long each = p->weight[0] ? (unsigned long long)r->moved : (unsigned long long)r->per;

	printf(
	    "# procs %lluM %s dump:    %u copies %s %llu bytes: %.2f GB/s aggregate; wall %.3f s, sum of "
	    "copies %.3f s (%.2f x wall); limit %.2f GB/s = min(pinned D2H %.2f, N-writer storage %.2f: %u x "
	    "%u writers, %u x %u files); ratio %.2f; target >= %.1f: %s\n",
	    mib, kind, p->n, of, each, r->dump, r->dwall, r->dsum, share(r->dsum, r->dwall), dump_limit(r),
	    r->d2h, r->wr, p->n, r->wthreads, p->n, r->files, share(r->dump, dump_limit(r)), PROCS_TARGET,
	    target_word(r->dump, dump_limit(r)));
	printf("# procs %lluM %s restore: %u copies %s %llu bytes: %.2f GB/s aggregate; wall %.3f s, sum of "
	       "copies %.3f s (%.2f x wall); limit %.2f GB/s = min(pinned H2D %.2f, N-reader storage %.2f: "
	       "%u x %u readers); ratio %.2f; target >= %.1f: %s\n",
	       mib, kind, p->n, of, each, r->restore, r->rwall, r->rsum, share(r->rsum, r->rwall),
	       restore_limit(r), r->h2d, r->rd, p->n, r->rthreads, share(r->restore, restore_limit(r)),
	       PROCS_TARGET, target_word(r->restore, restore_limit(r)));
	if (r->rd_first > 0)
		printf("# procs %lluM %s restore: first read of pages just written %.2f GB/s (the N-reader "
		       "limit's first pass): the restore %.2f of it\n",
		       mib, kind, r->rd_first, share(r->restore, r->rd_first));
	printf("# procs %lluM %s: %s %u x %llu bytes; image bytes %llu; pinned %llu bytes (%llu from the "
	       "pool); caches dropped: %s\n",
	       mib, kind, r->verified ? "verified" : "NOT verified", p->n, (unsigned long long)r->per,
	       (unsigned long long)r->image_bytes, (unsigned long long)r->pinned,
	       (unsigned long long)r->pooled, r->dropped ? "yes" : "no");
}

/* each copy's bytes, threads and own times, and where its restore's time went */
static void print_copies(const struct bench_procs *p, const struct proc_copy *cp, const struct procs_row *r)
{
	unsigned i;

	printf("# procs %lluM %s: %s split; copy: bytes, dump threads / s, restore threads / s (setup s, "
	       "teardown s, files and checks, GPU wait):",
	       (unsigned long long)(r->size >> 20), r->kind == BENCH_DENSE ? "dense" : "zero75",
	       p->by_size ? "by-size" : "even");
	for (i = 0; i < p->n; i++)
		printf(" %u: %llu, %u / %.3f, %u / %.3f (%.3f, %.3f, %.0f %%, %.0f %%);", i + 1,
		       (unsigned long long)cp[i].size, cp[i].dump_threads, cp[i].dump_s,
		       cp[i].restore_threads, cp[i].restore_s, cp[i].rsetup, cp[i].rteardown, 100 * cp[i].rio,
		       100 * cp[i].rgpu);
	printf("\n");
}

/* the JSON copies array: each copy's bytes, threads and own times */
static void json_copies(const struct bench_procs *p, const struct proc_copy *cp)
{
	unsigned i;

	printf(",\"split\":\"%s\",\"copies\":[", p->by_size ? "size" : "even");
	for (i = 0; i < p->n; i++)
		printf("%s{\"bytes\":%llu,\"dump_threads\":%u,\"dump_s\":%.4f,\"restore_threads\":%u,"
		       "\"restore_s\":%.4f,\"restore_setup_s\":%.4f,\"restore_teardown_s\":%.4f,"
		       "\"restore_io_share\":%.3f,\"restore_gpu_wait_share\":%.3f}",
		       i ? "," : "", (unsigned long long)cp[i].size, cp[i].dump_threads, cp[i].dump_s,
		       cp[i].restore_threads, cp[i].restore_s, cp[i].rsetup, cp[i].rteardown, cp[i].rio,
		       cp[i].rgpu);
	printf("]");
}

static void print_json(const struct bench *b, const struct bench_procs *p, const struct proc_copy *cp,
		       const struct procs_row *r)
{
	printf(
	    "{\"bench\":\"cs-bench-procs\",\"dir\":\"%s\",\"size\":%llu,\"procs\":%u,\"size_per_proc\":%llu,"
	    "\"kind\":\"%s\",\"threads\":%u,\"chunk\":%u,\"pinned_max\":%zu,\"sharers\":%u,"
	    "\"dump_threads\":%u,\"restore_threads\":%u,\"files\":%u,\"dump_gbps\":%.3f,"
	    "\"restore_gbps\":%.3f,\"dump_wall_s\":%.4f,\"dump_sum_s\":%.4f,\"restore_wall_s\":%.4f,"
	    "\"restore_sum_s\":%.4f,\"storage_write_gbps\":%.3f,\"storage_read_gbps\":%.3f,"
	    "\"storage_read_piece_gbps\":%.3f,\"dump_ratio\":%.3f,\"restore_ratio\":%.3f,\"target\":%.2f,"
	    "\"dump_target_met\":%s,\"restore_target_met\":%s,\"image_bytes\":%llu,\"pinned_bytes\":%llu,"
	    "\"pooled_bytes\":%llu,\"caches_dropped\":%s,\"verified\":%s,\"storage_read_first_gbps\":%.3f,"
	    "\"restore_first_ratio\":%.3f,\"pcie_d2h_gbps\":%.3f,\"pcie_h2d_gbps\":%.3f,"
	    "\"limit_dump_gbps\":%.3f,\"limit_restore_gbps\":%.3f,\"moved_bytes\":%llu",
	    b->dir, (unsigned long long)r->size, p->n, (unsigned long long)r->per,
	    r->kind == BENCH_DENSE ? "dense" : "zero75", p->eo.threads, p->eo.chunk_size, p->eo.pinned_max,
	    p->n, r->wthreads, r->rthreads, r->files, r->dump, r->restore, r->dwall, r->dsum, r->rwall,
	    r->rsum, r->wr, r->rd, r->rd_piece, share(r->dump, dump_limit(r)),
	    share(r->restore, restore_limit(r)), PROCS_TARGET,
	    dump_limit(r) > 0 && r->dump >= PROCS_TARGET * dump_limit(r) ? "true" : "false",
	    restore_limit(r) > 0 && r->restore >= PROCS_TARGET * restore_limit(r) ? "true" : "false",
	    (unsigned long long)r->image_bytes, (unsigned long long)r->pinned, (unsigned long long)r->pooled,
	    r->dropped ? "true" : "false", r->verified ? "true" : "false", r->rd_first,
	    share(r->restore, r->rd_first), r->d2h, r->h2d, dump_limit(r), restore_limit(r),
	    (unsigned long long)r->moved);
	json_copies(p, cp);
	printf("}\n");
	fflush(stdout);
}

/* pinned memory of all copies at once: the larger of the dump's and the restore's */
static void copies_account(struct proc_copy *cp, unsigned n, struct procs_row *r)
{
	uint64_t pinned = 0, pooled = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		pinned += cp[i].reg.pinned_bytes;
		pooled += cp[i].reg.pooled_bytes;
	}
	if (pinned > r->pinned) {
		r->pinned = pinned;
		r->pooled = pooled;
	}
}

/* one kind: fill, all dumps at once, drop caches, scramble, all restores at once, verify */
static int procs_kind(const struct bench *b, const struct bench_procs *p, struct proc_copy *cp,
		      struct procs_row *r)
{
	bool disk = bench_dir_is_disk(b->dirfd);
	unsigned i;

	if (copies_fill(cp, p->n, r) || procs_phase(cp, p->n, true, &r->dwall, &r->dsum))
		return -1;
	r->moved = 0;
	for (i = 0; i < p->n; i++) {
		r->moved += cp[i].size;
		r->image_bytes += bench_image_bytes(&cp[i].b, &cp[i].reg);
		cp[i].dump_threads = cp[i].reg.threads;
		cp[i].dump_s = cp[i].seconds;
	}
	r->dump = (double)r->moved / r->dwall / 1e9;
	copies_account(cp, p->n, r);
	r->dropped = disk && bench_drop_caches();
	if (copies_scramble(cp, p->n) || procs_phase(cp, p->n, false, &r->rwall, &r->rsum))
		return -1;
	r->restore = (double)r->moved / r->rwall / 1e9;
	for (i = 0; i < p->n; i++) {
		struct cs_engine_region *g = &cp[i].reg;
		double busy = g->seconds * g->threads;

		cp[i].restore_threads = g->threads;
		cp[i].restore_s = cp[i].seconds;
		cp[i].rsetup = g->setup_seconds;
		cp[i].rteardown = g->teardown_seconds;
		cp[i].rio = busy > 0 ? g->io_seconds / busy : 0;
		cp[i].rgpu = busy > 0 ? g->gpu_wait_seconds / busy : 0;
	}
	copies_account(cp, p->n, r);
	if (copies_verify(cp, p->n, r, &r->verified))
		return -1;
	print_human(p, r);
	print_copies(p, cp, r);
	print_json(b, p, cp, r);
	return r->verified ? 0 : -1;
}

/* each engine call's parallelism (cs_engine_plan, sharers = N), and the N-copy storage limits with it */
static int procs_limits(const struct bench *b, const struct bench_procs *p, struct procs_row *lim)
{
	struct bench bb = *b;
	unsigned files;

	cs_engine_plan(&p->eo, lim->per, true, b->dirfd, &lim->wthreads, &lim->files);
	cs_engine_plan(&p->eo, lim->per, false, b->dirfd, &lim->rthreads, &files);
	if (!p->limits)
		return 0;
	bb.threads = lim->wthreads;
	bb.read_threads = lim->rthreads;
	bb.files = lim->files;
	return bench_storage_procs(&bb, p->n, lim->per, bench_dir_is_disk(b->dirfd), &lim->wr, &lim->rd,
				   &lim->rd_piece, &lim->rd_first);
}

int bench_procs_size(const struct bench *b, const struct bench_procs *p, uint64_t size, const bool kinds[2],
		     double d2h, double h2d)
{
	struct procs_row lim = { .size = size, .per = size / p->n & ~4095ull, .d2h = d2h, .h2d = h2d };
	struct proc_copy *cp;
	int k, ret = 0;

	for (k = 0; k < (int)p->n; k++)
		if (!copy_size(p, size, (unsigned)k))
			lim.per = 0;
	if (!lim.per) {
		fprintf(stderr, "cs-bench: --procs %u: size %llu leaves less than 4 KiB for a copy\n", p->n,
			(unsigned long long)size);
		return -1;
	}
	if (procs_limits(b, p, &lim))
		return -1;
	cp = copies_alloc(b, p, size);
	if (!cp)
		return -1;
	for (k = 0; !ret && k < 2; k++) {
		struct procs_row r = lim;

		if (!kinds[k])
			continue;
		r.kind = (enum bench_kind)k;
		ret = procs_kind(b, p, cp, &r);
		copies_clean(cp, p->n, p->keep);
	}
	copies_free(cp, p->n);
	return ret;
}
