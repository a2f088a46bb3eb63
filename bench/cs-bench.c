// SPDX-License-Identifier: MIT
/*
 * cs-bench - measure the copy engine against the machine's limits (docs/performance.md).
 *
 * For every size: device memory from cuMemAlloc stands in for the driver's CustomStorage
 * mapping. The limits are measured first (raw pinned D2H/H2D over several streams, raw
 * parallel write+fdatasync / read of the target directory with the engine's thread count),
 * then for every data kind: fill, naive baseline, engine dump, drop caches, scramble the
 * device, engine restore, verify every byte. One human table row and one JSON line per row.
 * --hash measures chunk ids computed on the GPU instead (bench-hash.c); --chunked, chunked dumps
 * (a first one and its child) against the extent dump (bench-chunked.c).
 * Exit: 0 all verified, 1 a failure, 2 usage, 77 no libcuda / no device.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "chunkstore.h"
#include "engine.h"
#include "log.h"
#include "procfs.h"

#define MAX_SIZES 16
#define PROCS_MAX BENCH_PROCS_MAX /* --procs */

struct cli {
	const char *dir;
	uint64_t sizes[MAX_SIZES];
	unsigned nsizes;
	bool kinds[2];
	struct cs_engine_opts eo;
	bool keep, naive, limits;
	bool limits_after; /* measure the storage limits again after each row's engine runs */
	int device;
	double overlap; /* > 0: also a restore after a prefetch of this many seconds */
	bool pool;	/* also a dump and a restore with the buffers pinned ahead (cs_pinned_pool) */
	struct cs_pinned_pool *pinned_pool;
	uint64_t prefetch_max; /* the prefetch's memory bound */
	unsigned procs;	       /* > 1: also N engine calls at once per row (bench-procs.c) */
	bool hash;	       /* --hash: chunk ids on the GPU instead of the copy rows (bench-hash.c) */
	bool chunked;	       /* --chunked: chunked dumps against the extent dump (bench-chunked.c) */
	uint64_t hash_cpu;     /* --hash-cpu: the bytes the CPUs hash (every id of theirs checked) */
	unsigned nweights;     /* --procs-weights given: into bp.weight; --procs-split: bp.by_size */
	struct bench_procs bp;
};

/* where an engine call's copy threads spent their time (cs_engine_region), summed over them */
struct thread_times {
	double io, gpu_wait, total; /* files and chunk checks; waiting for the GPU; threads x seconds */
};

struct row {
	uint64_t size;
	enum bench_kind kind;
	double dump, restore, naive_dump, naive_restore;
	double restore_pool;			     /* --pool: the same restore with the pool's buffers */
	double dump_pool;			     /* --pool: the same dump with the pool's buffers */
	double dsetup, dteardown, rsetup, rteardown; /* slowest thread's, seconds */
	double d2h, h2d, wr, rd;		     /* limits */
	double rd_piece; /* the read limit's 256 KiB-pread pass (rd is the faster pass) */
	double rd_first; /* its first pass: the first read of the pages just written */
	double wr_after, rd_after; /* --limits-after: the storage limits again, after the engine runs */
	struct thread_times t_dump, t_restore, t_dump_pool, t_restore_pool;
	double pipe;	 /* dense rows: read + H2D without the engine (bench-pipe.c), 0 if not run */
	uint64_t image_bytes, pinned;
	/* --pool: pages the kernel promoted (pgactivate) during the pooled dump and restore */
	uint64_t dump_pool_promoted, restore_pool_promoted;
	/* the restore, and the one with the pool, read the extents through mappings (engine_mapread.c) */
	bool restore_mapped, restore_pool_mapped;
	unsigned files, wthreads, rthreads;
	bool direct, mapped, verified, dropped;
};

static const char *kind_name(enum bench_kind k)
{
	return k == BENCH_DENSE ? "dense" : "zero75";
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K':
	case 'k':
		v <<= 10, end++;
		break;
	case 'M':
	case 'm':
		v <<= 20, end++;
		break;
	case 'G':
	case 'g':
		v <<= 30, end++;
		break;
	case 'T':
	case 't':
		v <<= 40, end++;
		break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	*out = v;
	return *end || !v ? -1 : 0;
}

static int parse_list(char *arg, struct cli *c, bool sizes)
{
	char *save = NULL, *tok;

	if (sizes)
		c->nsizes = 0;
	else
		c->kinds[0] = c->kinds[1] = false;
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!sizes && (!strcmp(tok, "dense") || !strcmp(tok, "zero75")))
			c->kinds[!strcmp(tok, "zero75")] = true;
		else if (!sizes || c->nsizes == MAX_SIZES || parse_size(tok, &c->sizes[c->nsizes++]))
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: cs-bench [--dir DIR] [--sizes 1G,8G,32G] [--kinds dense,zero75] [--threads N]\n"
	    "                [--chunk SIZE] [--pinned SIZE] [--no-direct] [--no-naive] [--no-limits]\n"
	    "                [--tmpfs-map] [--stripes N] [--overlap SECONDS] [--prefetch-max SIZE]\n"
	    "                [--tmpfs-readback] [--tmpfs-restore-map auto|yes|no] [--pool] [--procs N]\n"
	    "                [--limits-after] [--procs-weights W1,W2,...] [--procs-split size|even]\n"
	    "                [--device N] [--keep]\n"
	    "       cs-bench --hash [--size SIZE | --sizes 1G,8G,32G] [--chunk SIZE] [--hash-cpu SIZE]\n"
	    "                [--device N]\n"
	    "       cs-bench --chunked [--dir DIR] [--size SIZE | --sizes 1G,8G] [--kinds dense,zero75]\n"
	    "                [--threads N] [--chunk SIZE] [--pinned SIZE] [--no-direct] [--device N] "
	    "[--keep]\n"
	    "Sizes are binary (K, M, G = KiB, MiB, GiB); rates are GB/s (1e9 bytes/s).\n"
	    "--procs N (2..%u): after each size's rows, N concurrent engine calls (one thread each, as the\n"
	    "  helper copies N processes) of SIZE/N bytes each (rounded down to 4 KiB: the row's size is\n"
	    "  the total), opts.sharers = N, one shared pinned pool; aggregate GB/s against the storage\n"
	    "  limit of N copies with each call's writers/readers/files (cs_engine_plan), target >= 0.8.\n"
	    "--procs-weights W1,..,WN (1..1000 each, N = --procs): copy i moves SIZE * Wi / (W1 + .. + WN)\n"
	    "  bytes instead of SIZE/N; each copy's bytes, threads and time are printed.\n"
	    "--procs-split size (default, as the plugin shares a tree's copies) or even: each copy's part "
	    "of\n"
	    "  the threads, pinned memory and CPUs in proportion to its bytes, or 1/N.\n"
	    "--pool: each row also dumps and restores with buffers pinned once ahead, as the plugin does.\n"
	    "--limits-after: the storage limits are measured again after each row's engine runs, and the\n"
	    "  row's ratios are also given against them (the limit moves with other work on the host).\n"
	    "--hash: chunk ids (sha256-tree-4k) computed on the GPU over SIZE bytes of device memory, in "
	    "GB/s,\n"
	    "  beside the device-to-device copy rate and the CPU's cs_chunk_id rate of the same bytes; the\n"
	    "  ids are checked against the CPU's (exit 1 on a difference). --size SIZE: one size.\n"
	    "  --hash-cpu SIZE (default 4G): the CPUs hash the first SIZE bytes, all their ids are\n"
	    "  checked, and 32 chunks spread over the rest.\n"
	    "--chunked: per size and kind, an extent dump, a first chunked dump (4 MiB chunks, ids hashed "
	    "on\n"
	    "  the GPU before the copy) and a second one of the same memory with the first as its parent,\n"
	    "  into DIR with the same options; then the restores of the extent dump and of the second,\n"
	    "  verified. Result lines: the first's GB/s beside the extent dump's (target >= 0.9), the\n"
	    "  second's bytes moved device-to-host (target <= 5 %%) and written (<= 1 %%), the second's\n"
	    "  restore beside the extent restore (target >= 0.9). Under the driver emulator the rates say\n"
	    "  nothing about a GPU (its kernels run on the CPU).\n"
	    "libcuda: $CUDASTORE_LIBCUDA, else libcuda.so.1 (exit 77 if it cannot be loaded).\n",
	    PROCS_MAX);
}

/* --procs-weights W1,W2,...: each 1..1000 */
static int parse_weights(const char *list, struct cli *c)
{
	const char *s = list;
	char *end;

	c->nweights = 0;
	while (*s && c->nweights < PROCS_MAX) {
		unsigned long w = strtoul(s, &end, 10);

		if (end == s || !w || w > 1000 || (*end && *end != ','))
			return -1;
		c->bp.weight[c->nweights++] = (unsigned)w;
		s = *end ? end + 1 : end;
	}
	return *s ? -1 : 0;
}

static int parse_cli(int argc, char **argv, struct cli *c)
{
	static const struct option lo[] = {
		{ "dir", 1, 0, 'd' },
		{ "sizes", 1, 0, 's' },
		{ "kinds", 1, 0, 'k' },
		{ "threads", 1, 0, 't' },
		{ "chunk", 1, 0, 'c' },
		{ "pinned", 1, 0, 'p' },
		{ "no-direct", 0, 0, 'D' },
		{ "tmpfs-map", 0, 0, 'M' },
		{ "tmpfs-readback", 0, 0, 'R' },
		{ "tmpfs-restore-map", 1, 0, 'm' },
		{ "no-naive", 0, 0, 'N' },
		{ "no-limits", 0, 0, 'L' },
		{ "limits-after", 0, 0, 'A' },
		{ "device", 1, 0, 'g' },
		{ "keep", 0, 0, 'K' },
		{ "stripes", 1, 0, 'S' },
		{ "overlap", 1, 0, 'O' },
		{ "prefetch-max", 1, 0, 'P' },
		{ "pool", 0, 0, 'o' },
		{ "procs", 1, 0, 'n' },
		{ "procs-weights", 1, 0, 'w' },
		{ "procs-split", 1, 0, 'x' },
		{ "hash", 0, 0, 'H' },
		{ "chunked", 0, 0, 'Q' },
		{ "size", 1, 0, 'z' },
		{ "hash-cpu", 1, 0, 'C' },
		{ "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	char sizes_def[] = "1G,8G,32G", err[256];
	uint64_t v;
	int o;

	memset(c, 0, sizeof(*c));
	c->dir = ".";
	c->kinds[0] = c->kinds[1] = true;
	c->naive = c->limits = true;
	c->prefetch_max = CS_PREFETCH_MAX_DEF;
	c->hash_cpu = 4ull << 30;
	c->bp.by_size = true;
	cs_engine_opts_default(&c->eo);
	c->eo.note = cs_log_text;
	parse_list(sizes_def, c, true);
	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'd':
			c->dir = optarg;
			break;
		case 's':
			if (parse_list(optarg, c, true) || !c->nsizes)
				goto bad;
			break;
		case 'k':
			if (parse_list(optarg, c, false) || !(c->kinds[0] || c->kinds[1]))
				goto bad;
			break;
		case 't':
			c->eo.threads = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			if (parse_size(optarg, &v) || v > UINT32_MAX)
				goto bad;
			c->eo.chunk_size = (uint32_t)v;
			break;
		case 'p':
			if (parse_size(optarg, &v))
				goto bad;
			c->eo.pinned_max = v;
			break;
		case 'D':
			c->eo.direct_io = false;
			break;
		case 'M':
			c->eo.map_tmpfs = true;
			break;
		case 'R':
			c->eo.tmpfs_readback = true;
			break;
		case 'm':
			if (cs_tristate_parse(optarg, &c->eo.tmpfs_restore_map))
				goto bad;
			break;
		case 'N':
			c->naive = false;
			break;
		case 'L':
			c->limits = false;
			break;
		case 'A':
			c->limits_after = true;
			break;
		case 'g':
			c->device = atoi(optarg);
			break;
		case 'K':
			c->keep = true;
			break;
		case 'S':
			c->eo.stripes = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'O':
			c->overlap = strtod(optarg, NULL);
			if (c->overlap <= 0 || c->overlap > 600)
				goto bad;
			break;
		case 'P':
			if (parse_size(optarg, &c->prefetch_max))
				goto bad;
			break;
		case 'o':
			c->pool = true;
			break;
		case 'n':
			c->procs = (unsigned)strtoul(optarg, NULL, 10);
			if (c->procs < 2 || c->procs > PROCS_MAX)
				goto bad;
			break;
		case 'w':
			if (parse_weights(optarg, c))
				goto bad;
			break;
		case 'x':
			if (strcmp(optarg, "even") && strcmp(optarg, "size"))
				goto bad;
			c->bp.by_size = !strcmp(optarg, "size");
			break;
		case 'H':
			c->hash = true;
			break;
		case 'Q':
			c->chunked = true;
			break;
		case 'C':
			if (parse_size(optarg, &c->hash_cpu) || !c->hash_cpu)
				goto bad;
			break;
		case 'z':
			if (parse_size(optarg, &c->sizes[0]) || !c->sizes[0])
				goto bad;
			c->nsizes = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind != argc || (c->nweights && c->nweights != c->procs) ||
	    (c->chunked && (c->hash || c->procs)))
		goto bad;
	if (cs_engine_opts_check(&c->eo, err, sizeof(err))) {
		fprintf(stderr, "cs-bench: %s\n", err);
		return -1;
	}
	return 0;
bad:
	usage(stderr);
	return -1;
}

static double ratio(double v, double limit)
{
	return limit > 0 ? v / limit : 0;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

static void print_header(void)
{
	printf("%-8s %-7s %9s %9s %9s %9s %6s %6s %9s %9s %14s %11s %-3s %-8s %s\n", "size", "kind", "dump",
	       "restore", "lim.dump", "lim.rest", "r.dump", "r.rest", "naive.d", "naive.r", "image bytes",
	       "pinned", "dio", "verified", "files/wr/rd");
	printf("%-8s %-7s %9s %9s %9s %9s %6s %6s %9s %9s %14s %11s\n", "", "", "GB/s", "GB/s", "GB/s",
	       "GB/s", "", "", "GB/s", "GB/s", "(st_blocks)", "bytes");
}

/* "; WHAT: dump A % in the files and checks, B % waiting for the GPU; restore C %, D %" */
static void print_times(const char *what, const struct thread_times *d, const struct thread_times *r)
{
	printf("; %s: dump %.0f %% in the files and checks, %.0f %% waiting for the GPU; restore %.0f %%, "
	       "%.0f %%",
	       what, 100 * ratio(d->io, d->total), 100 * ratio(d->gpu_wait, d->total), 100 * ratio(r->io, r->total),
	       100 * ratio(r->gpu_wait, r->total));
}

static void print_row(const struct cli *c, const struct row *r)
{
	double ld = min2(r->d2h, r->wr), lr = min2(r->h2d, r->rd), rf = min2(r->h2d, r->rd_first);
	/* --limits-after: the same limits from the storage measured again after the engine ran */
	double ld2 = r->wr_after > 0 ? min2(r->d2h, r->wr_after) : 0;
	double lr2 = r->rd_after > 0 ? min2(r->h2d, r->rd_after) : 0;
	char size[32];

	snprintf(size, sizeof(size), "%lluM", (unsigned long long)(r->size >> 20));
	printf("%-8s %-7s %9.2f %9.2f %9.2f %9.2f %6.2f %6.2f %9.2f %9.2f %14llu %11llu %-3s %-8s %u/%u/%u\n",
	       size, kind_name(r->kind), r->dump, r->restore, ld, lr, ratio(r->dump, ld),
	       ratio(r->restore, lr), r->naive_dump, r->naive_restore, (unsigned long long)r->image_bytes,
	       (unsigned long long)r->pinned,
	       r->mapped   ? "map"
	       : r->direct ? "yes"
			   : "no",
	       r->verified ? "yes" : "NO", r->files, r->wthreads, r->rthreads);
	printf(
	    "{\"bench\":\"cs-bench\",\"dir\":\"%s\",\"size\":%llu,\"kind\":\"%s\",\"threads\":%u,\"chunk\":%"
	    "u,"
	    "\"pinned_max\":%zu,\"direct_io\":%s,\"tmpfs_mapped\":%s,\"tmpfs_readback\":%s,"
	    "\"dump_gbps\":%.3f,\"restore_gbps\":%."
	    "3f,"
	    "\"pcie_d2h_gbps\":%.3f,\"pcie_h2d_gbps\":%.3f,\"storage_write_gbps\":%.3f,"
	    "\"storage_read_gbps\":%.3f,\"limit_dump_gbps\":%.3f,\"limit_restore_gbps\":%.3f,"
	    "\"dump_ratio\":%.3f,\"restore_ratio\":%.3f,\"naive_dump_gbps\":%.3f,\"naive_restore_gbps\":%.3f,"
	    "\"image_bytes\":%llu,\"pinned_bytes\":%llu,\"caches_dropped\":%s,\"verified\":%s,"
	    "\"files\":%u,\"dump_threads\":%u,\"restore_threads\":%u,\"dump_setup_s\":%.4f,"
	    "\"dump_teardown_s\":%.4f,\"restore_setup_s\":%.4f,\"restore_teardown_s\":%.4f,"
	    "\"restore_pool_gbps\":%.3f,\"restore_pool_ratio\":%.3f,\"storage_read_piece_gbps\":%.3f,"
	    "\"pipeline_gbps\":%.3f,\"dump_pool_gbps\":%.3f,\"dump_pool_ratio\":%.3f,"
	    "\"storage_read_first_gbps\":%.3f,\"restore_first_ratio\":%.3f,\"restore_pool_first_ratio\":%.3f,"
	    "\"dump_pool_pages_promoted\":%llu,\"restore_pool_pages_promoted\":%llu,"
	    "\"tmpfs_restore_map\":\"%s\",\"restore_mapped\":%s,\"restore_pool_mapped\":%s,"
	    "\"storage_write_after_gbps\":%.3f,\"storage_read_after_gbps\":%.3f,"
	    "\"limit_dump_after_gbps\":%.3f,\"limit_restore_after_gbps\":%.3f,\"dump_ratio_after\":%.3f,"
	    "\"restore_ratio_after\":%.3f,\"dump_pool_ratio_after\":%.3f,\"restore_pool_ratio_after\":%.3f,"
	    "\"dump_threads_s\":%.4f,\"dump_io_s\":%.4f,\"dump_gpu_wait_s\":%.4f,"
	    "\"restore_threads_s\":%.4f,\"restore_io_s\":%.4f,\"restore_gpu_wait_s\":%.4f,"
	    "\"dump_pool_threads_s\":%.4f,\"dump_pool_io_s\":%.4f,\"dump_pool_gpu_wait_s\":%.4f,"
	    "\"restore_pool_threads_s\":%.4f,\"restore_pool_io_s\":%.4f,\"restore_pool_gpu_wait_s\":%.4f}"
	    "\n",
	    c->dir, (unsigned long long)r->size, kind_name(r->kind), c->eo.threads, c->eo.chunk_size,
	    c->eo.pinned_max, r->direct ? "true" : "false", r->mapped ? "true" : "false",
	    c->eo.tmpfs_readback ? "true" : "false", r->dump, r->restore, r->d2h, r->h2d, r->wr, r->rd, ld,
	    lr, ratio(r->dump, ld), ratio(r->restore, lr), r->naive_dump, r->naive_restore,
	    (unsigned long long)r->image_bytes, (unsigned long long)r->pinned, r->dropped ? "true" : "false",
	    r->verified ? "true" : "false", r->files, r->wthreads, r->rthreads, r->dsetup, r->dteardown,
	    r->rsetup, r->rteardown, r->restore_pool, ratio(r->restore_pool, lr), r->rd_piece, r->pipe,
	    r->dump_pool, ratio(r->dump_pool, ld), r->rd_first, ratio(r->restore, rf),
	    ratio(r->restore_pool, rf), (unsigned long long)r->dump_pool_promoted,
	    (unsigned long long)r->restore_pool_promoted, cs_tristate_name(c->eo.tmpfs_restore_map),
	    r->restore_mapped ? "true" : "false", r->restore_pool_mapped ? "true" : "false", r->wr_after,
	    r->rd_after, ld2, lr2, ratio(r->dump, ld2), ratio(r->restore, lr2), ratio(r->dump_pool, ld2),
	    ratio(r->restore_pool, lr2), r->t_dump.total, r->t_dump.io, r->t_dump.gpu_wait, r->t_restore.total,
	    r->t_restore.io, r->t_restore.gpu_wait, r->t_dump_pool.total, r->t_dump_pool.io,
	    r->t_dump_pool.gpu_wait, r->t_restore_pool.total, r->t_restore_pool.io, r->t_restore_pool.gpu_wait);
	printf("# %s %s: dump thread setup %.3f s, teardown %.3f s; restore thread setup %.3f s, teardown "
	       "%.3f s",
	       size, kind_name(r->kind), r->dsetup, r->dteardown, r->rsetup, r->rteardown);
	print_times(c->pool ? "the threads' time with the pool" : "the threads' time",
		    c->pool ? &r->t_dump_pool : &r->t_dump, c->pool ? &r->t_restore_pool : &r->t_restore);
	if (c->pool)
		printf("; dump with the pool %.2f GB/s (%.2f of the limit %.2f); restore with the pool %.2f "
		       "GB/s (%.2f of the limit %.2f)",
		       r->dump_pool, ratio(r->dump_pool, ld), ld, r->restore_pool, ratio(r->restore_pool, lr),
		       lr);
	if (c->pool)
		printf("; pages the kernel promoted to its active list (pgactivate): %llu during the dump "
		       "with the pool, %llu during its restore%s",
		       (unsigned long long)r->dump_pool_promoted,
		       (unsigned long long)r->restore_pool_promoted,
		       r->restore_pool_mapped ? " (read through mappings)" : "");
	if (r->rd_first > 0)
		printf("; first read of pages just written %.2f GB/s: the restore %.2f of it%s", rf,
		       ratio(r->restore, rf), c->pool ? ", with the pool" : "");
	if (r->rd_first > 0 && c->pool)
		printf(" %.2f", ratio(r->restore_pool, rf));
	if (r->pipe > 0)
		printf("; read + H2D alone (%u threads, no hashing) %.2f GB/s: the restore %.2f of it%s",
		       r->rthreads, r->pipe, ratio(r->restore, r->pipe), c->pool ? ", with the pool" : "");
	if (r->pipe > 0 && c->pool)
		printf(" %.2f", ratio(r->restore_pool, r->pipe));
	if (lr2 > 0)
		printf("; limits measured again after the row: dump %.2f GB/s (was %.2f), restore %.2f GB/s "
		       "(was %.2f): the dump %.2f of it, the restore %.2f",
		       ld2, ld, lr2, lr, ratio(r->dump, ld2), ratio(r->restore, lr2));
	if (lr2 > 0 && c->pool)
		printf("; with the pool %.2f, %.2f", ratio(r->dump_pool, ld2), ratio(r->restore_pool, lr2));
	printf("\n");
	fflush(stdout);
}

/*
 * The overlap stand-in (docs/performance.md): the prefetch a restore starts at CRIU's
 * POST_FORKING runs for `window` seconds (CRIU restoring memory and files), then the GPU phase
 * (RESUME_DEVICES_LATE) runs the engine restore with what was read. Reported against the plain
 * restore of the same row: the share of the GPU phase, and of window + GPU phase, it hides.
 */
static int overlap_row(const struct bench *b, const struct cli *c, CUdeviceptr dev,
		       struct cs_engine_region *reg, const struct row *r)
{
	struct cs_engine_opts eo = c->eo;
	struct cs_prefetch_stats ps;
	struct cs_prefetch *pf;
	struct timespec ts;
	double t0, t_after, t_plain = (double)r->size / (r->restore * 1e9);
	char err[512];
	bool same = false;
	int ret;

	if (bench_scramble(b, dev, r->size))
		return -1;
	t0 = cs_now();
	ret = cs_prefetch_start(&pf, reg, 1, c->eo.threads, c->prefetch_max, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "cs-bench: prefetch failed: %s\n", err);
		return -1;
	}
	ts.tv_sec = (time_t)c->overlap;
	ts.tv_nsec = (long)((c->overlap - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	cs_prefetch_settle(pf);
	t0 = cs_now();
	eo.prefetch = pf;
	ret = cs_engine_restore(b->ops, reg, 1, &eo, err, sizeof(err));
	t_after = cs_now() - t0;
	cs_prefetch_get_stats(pf, &ps);
	cs_prefetch_free(pf);
	if (ret) {
		fprintf(stderr, "cs-bench: restore after the prefetch failed: %s\n", err);
		return -1;
	}
	if (bench_verify(b, dev, r->size, r->kind, &same) || !same) {
		fprintf(stderr, "cs-bench: restore after the prefetch: device bytes differ\n");
		return -1;
	}
	printf("# overlap %lluM %s: window %.2f s, prefetch read %llu bytes in %.2f s%s; GPU phase "
	       "%.3f s -> %.3f s (%.0f %% hidden); window + GPU phase %.3f s -> %.3f s (%.0f %% less); "
	       "verified\n",
	       (unsigned long long)(r->size >> 20), kind_name(r->kind), c->overlap,
	       (unsigned long long)ps.ready_bytes, ps.seconds, ps.full ? " (memory bound reached)" : "",
	       t_plain, t_after, 100.0 * (t_plain - t_after) / t_plain, c->overlap + t_plain,
	       c->overlap + t_after, 100.0 * (t_plain - t_after) / (c->overlap + t_plain));
	printf("{\"bench\":\"cs-bench-overlap\",\"dir\":\"%s\",\"size\":%llu,\"kind\":\"%s\","
	       "\"window_s\":%.3f,\"prefetch_max\":%llu,\"prefetch_bytes\":%llu,\"prefetch_s\":%.3f,"
	       "\"taken_bytes\":%llu,\"restore_plain_s\":%.4f,\"restore_after_s\":%.4f,"
	       "\"gpu_phase_hidden\":%.3f,\"total_hidden\":%.3f,\"verified\":true}\n",
	       c->dir, (unsigned long long)r->size, kind_name(r->kind), c->overlap,
	       (unsigned long long)c->prefetch_max, (unsigned long long)ps.ready_bytes, ps.seconds,
	       (unsigned long long)reg->prefetched_bytes, t_plain, t_after, (t_plain - t_after) / t_plain,
	       (t_plain - t_after) / (c->overlap + t_plain));
	fflush(stdout);
	return 0;
}

void bench_remove_extents(const struct bench *b, const char *name)
{
	char sname[CS_NAME_MAX];
	unsigned k;

	for (k = 0; k < CS_MAX_STRIPES; k++)
		if (!cs_name_stripe(sname, name, k))
			unlinkat(b->dirfd, sname, 0);
}

uint64_t bench_image_bytes(const struct bench *b, const struct cs_engine_region *reg)
{
	unsigned k, n = reg->nstripes ? reg->nstripes : 1;
	uint64_t sum = 0;
	struct stat st;

	for (k = 0; k < n; k++)
		if (!fstatat(b->dirfd, k ? reg->stripe_name[k] : reg->name, &st, 0))
			sum += (uint64_t)st.st_blocks * 512;
	return sum;
}

/* one engine call over reg, timed from call to return: its GB/s into *gbps; 0, or -1 (said on stderr) */
static int timed_copy(const struct bench *b, struct cs_engine_region *reg, const struct cs_engine_opts *eo,
		      bool dump, const char *what, double *gbps, struct thread_times *tt)
{
	char err[512];
	double t0 = cs_now();
	int ret = (dump ? cs_engine_dump : cs_engine_restore)(b->ops, reg, 1, eo, err, sizeof(err));

	*gbps = (double)reg->size / (cs_now() - t0) / 1e9;
	*tt = (struct thread_times){ reg->io_seconds, reg->gpu_wait_seconds, reg->seconds * reg->threads };
	if (ret)
		fprintf(stderr, "cs-bench: %s failed: %s\n", what, err);
	return ret ? -1 : 0;
}

/*
 * --pool: the same dump with the pool's buffers (as the plugin's dump, which pins them before
 * the process is locked), then drop caches, scramble, the same restore with the pool's buffers
 * from that dump's extents, verify
 */
static int pool_row(const struct bench *b, const struct cli *c, CUdeviceptr dev, struct cs_engine_region *reg,
		    struct row *r)
{
	struct cs_engine_opts eo = c->eo;
	bool same = false;
	uint64_t p0;

	eo.pool = c->pinned_pool;
	cs_engine_region_free_meta(reg);
	bench_remove_extents(b, reg->name);
	p0 = cs_procfs_vmstat("pgactivate");
	if (timed_copy(b, reg, &eo, true, "dump with the pool", &r->dump_pool, &r->t_dump_pool))
		return -1;
	r->dump_pool_promoted = cs_procfs_vmstat("pgactivate") - p0;
	if (r->dropped)
		bench_drop_caches();
	if (bench_scramble(b, dev, r->size))
		return -1;
	p0 = cs_procfs_vmstat("pgactivate");
	if (timed_copy(b, reg, &eo, false, "restore with the pool", &r->restore_pool, &r->t_restore_pool))
		return -1;
	r->restore_pool_mapped = reg->used_mapping;
	r->restore_pool_promoted = cs_procfs_vmstat("pgactivate") - p0;
	if (bench_verify(b, dev, r->size, r->kind, &same) || !same) {
		fprintf(stderr, "cs-bench: restore with the pool: device bytes differ\n");
		r->verified = false;
		return -1;
	}
	return 0;
}

/* engine dump, drop caches, scramble, engine restore, verify */
static int engine_row(const struct bench *b, const struct cli *c, CUdeviceptr dev, struct row *r)
{
	struct cs_engine_region reg = { .ptr = dev, .size = r->size, .ctx = b->ctx, .dirfd = b->dirfd };
	char name[64];
	int ret = -1; /* a failure before the verify */

	snprintf(name, sizeof(name), "cs-bench-%lluM-%s.ext", (unsigned long long)(r->size >> 20),
		 kind_name(r->kind));
	reg.name = name;
	bench_remove_extents(b, name);
	if (timed_copy(b, &reg, &c->eo, true, "engine dump", &r->dump, &r->t_dump))
		return -1;
	r->pinned = reg.pinned_bytes;
	r->dsetup = reg.setup_seconds;
	r->dteardown = reg.teardown_seconds;
	r->direct = reg.used_direct_io;
	r->mapped = reg.used_mapping;
	r->files = reg.nstripes;
	r->image_bytes = bench_image_bytes(b, &reg);
	if (c->limits && r->kind == BENCH_DENSE &&
	    ((bench_dir_is_disk(b->dirfd) && !bench_drop_caches()) || bench_pipeline(b, dev, &reg, &r->pipe)))
		goto err;
	r->dropped = bench_dir_is_disk(b->dirfd) && bench_drop_caches();
	if (bench_scramble(b, dev, r->size))
		goto err;
	if (timed_copy(b, &reg, &c->eo, false, "engine restore", &r->restore, &r->t_restore))
		goto err;
	r->pinned = reg.pinned_bytes > r->pinned ? reg.pinned_bytes : r->pinned;
	r->direct = r->direct && reg.used_direct_io;
	r->restore_mapped = reg.used_mapping;
	r->rsetup = reg.setup_seconds;
	r->rteardown = reg.teardown_seconds;
	ret = bench_verify(b, dev, r->size, r->kind, &r->verified);
	if (!ret && r->verified && c->pool)
		ret = pool_row(b, c, dev, &reg, r);
	if (!ret && r->verified && c->overlap)
		ret = overlap_row(b, c, dev, &reg, r);
err:
	cs_engine_region_free_meta(&reg);
	if (!c->keep)
		bench_remove_extents(b, name);
	return ret || !r->verified ? -1 : 0;
}

static int one_size(const struct bench *b0, const struct cli *c, uint64_t size)
{
	const struct cs_cuda_ops *ops = b0->ops;
	struct row lim = { .size = size };
	struct bench bb = *b0, *b = &bb;
	unsigned files;
	bool disk = bench_dir_is_disk(b->dirfd);
	double piece, first; /* --limits-after: not reported again */
	CUdeviceptr dev = 0;
	int k, ret = 0;

	if (ops->MemAlloc(&dev, size) != CUDA_SUCCESS) {
		fprintf(stderr, "cs-bench: cannot allocate %llu bytes of device memory\n",
			(unsigned long long)size);
		return -1;
	}
	/* the limits use the engine's own parallelism for this size and directory (engine.c) */
	cs_engine_plan(&c->eo, size, true, b->dirfd, &bb.threads, &bb.files);
	cs_engine_plan(&c->eo, size, false, b->dirfd, &bb.read_threads, &files);
	lim.wthreads = bb.threads;
	lim.rthreads = bb.read_threads;
	lim.files = bb.files;
	/* H2D first: it writes every page of the buffer, so D2H then reads memory that exists */
	if (c->limits &&
	    (bench_pcie(b, dev, size, false, &lim.h2d) || bench_pcie(b, dev, size, true, &lim.d2h) ||
	     bench_storage(b, size, disk, &lim.wr, &lim.rd, &lim.rd_piece, &lim.rd_first)))
		ret = -1;
	for (k = 0; !ret && k < 2; k++) {
		struct row r = lim;

		if (!c->kinds[k])
			continue;
		r.kind = (enum bench_kind)k;
		if (bench_fill(b, dev, size, r.kind) ||
		    (c->naive && bench_naive(b, dev, size, disk, &r.naive_dump, &r.naive_restore))) {
			ret = -1;
			break;
		}
		if (engine_row(b, c, dev, &r))
			ret = -1;
		else if (c->limits && c->limits_after &&
			 bench_storage(b, size, disk, &r.wr_after, &r.rd_after, &piece, &first))
			ret = -1;
		print_row(c, &r);
	}
	ops->MemFree(dev);
	if (!ret && c->procs && bench_procs_size(b0, &c->bp, size, c->kinds, lim.d2h, lim.h2d))
		ret = -1;
	return ret;
}

/* mkdir -p DIR (0700 for what it creates) */
static int make_dir(const char *dir)
{
	char path[4096], *p;

	if (strlen(dir) >= sizeof(path)) {
		fprintf(stderr, "cs-bench: directory name too long\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			fprintf(stderr, "cs-bench: cannot create %s: %s\n", path, strerror(errno));
			return -1;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST) {
		fprintf(stderr, "cs-bench: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --pool: the buffers the plugin pins while CRIU restores, pinned here before any timed step */
static int make_pool(const struct cs_cuda_ops *ops, CUcontext ctx, struct cli *c)
{
	unsigned n = (unsigned)(c->eo.pinned_max / c->eo.chunk_size);
	char err[256];

	if (cs_pinned_pool_create(&c->pinned_pool, ops, ctx, c->eo.chunk_size, n, err, sizeof(err))) {
		fprintf(stderr, "cs-bench: %s\n", err);
		return -1;
	}
	printf("# --pool: %u x %u bytes pinned once in %.3f s, before any timed step (the plugin pins them "
	       "while CRIU restores, at POST_FORKING)\n",
	       n, c->eo.chunk_size, cs_pinned_pool_seconds(c->pinned_pool));
	return 0;
}

static int cuda_start(struct cs_cuda_ops *ops, int device, CUcontext *ctx)
{
	char err[256];
	CUdevice dev;
	CUresult res;

	if (cs_cuda_load(ops, NULL, err, sizeof(err))) {
		printf("skipped: no libcuda (%s)\n", err);
		return 77;
	}
	res = ops->Init(0);
	if (res == CUDA_SUCCESS)
		res = ops->DeviceGet(&dev, device);
	if (res == CUDA_SUCCESS)
		res = ops->DevicePrimaryCtxRetain(ctx, dev);
	if (res == CUDA_SUCCESS)
		res = ops->CtxSetCurrent(*ctx);
	if (res != CUDA_SUCCESS) {
		printf("%s: CUDA device %d: %s\n", res == CUDA_ERROR_NO_DEVICE ? "skipped" : "error", device,
		       cs_cuda_errname(ops, res));
		return res == CUDA_ERROR_NO_DEVICE ? 77 : 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cs_cuda_ops ops;
	struct bench b = { 0 };
	struct cli c;
	unsigned i, files;
	int ret;

	if (parse_cli(argc, argv, &c))
		return 2;
	ret = cuda_start(&ops, c.device, &b.ctx);
	if (ret)
		return ret;
	b.ops = &ops;
	b.dir = c.dir;
	b.threads = c.eo.threads;
	b.chunk = c.eo.chunk_size;
	b.direct = c.eo.direct_io;
	b.map_tmpfs = c.eo.map_tmpfs;
	if (c.hash) {
		for (i = 0; i < c.nsizes; i++)
			if (bench_hash(&b, c.sizes[i], c.hash_cpu))
				ret = 1;
		return ret;
	}
	if (make_dir(c.dir))
		return 1;
	b.dirfd = open(c.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b.dirfd < 0) {
		fprintf(stderr, "cs-bench: cannot open %s: %s\n", c.dir, strerror(errno));
		return 1;
	}
	if (c.chunked) {
		printf("# cs-bench --chunked: %s, dir %s (%s), threads option %u, chunk %u (chunked: %u)\n",
		       ops.path, c.dir, bench_dir_is_disk(b.dirfd) ? "disk" : "tmpfs/ramfs", c.eo.threads,
		       c.eo.chunk_size, CS_DEDUP_CHUNK);
		for (i = 0; i < c.nsizes; i++)
			if (bench_chunked(&b, &c.eo, c.sizes[i], c.kinds, c.keep))
				ret = 1;
		close(b.dirfd);
		return ret;
	}
	/* the engine's restore threads for a large region (each row plans its own: cs_engine_plan) */
	cs_engine_plan(&c.eo, 1ull << 40, false, b.dirfd, &b.read_threads, &files);
	printf("# cs-bench: %s, driver %d, dir %s (%s), threads option %u (restore %u; per row: "
	       "files/wr/rd), chunk %u, pinned bound %zu, "
	       "O_DIRECT %s, tmpfs dumps %s\n",
	       ops.path, ops.driver_version, c.dir, bench_dir_is_disk(b.dirfd) ? "disk" : "tmpfs/ramfs",
	       c.eo.threads, b.read_threads, c.eo.chunk_size, c.eo.pinned_max,
	       c.eo.direct_io ? "requested" : "off",
	       c.eo.map_tmpfs ? "through a shared mapping" : "with pwrite");
	printf("# limits: dump = min(pinned D2H, storage write), restore = min(pinned H2D, storage read: the "
	       "faster of "
	       "chunk-sized and 256 KiB preads); "
	       "page cache dropped before reads: %s\n",
	       !bench_dir_is_disk(b.dirfd)		       ? "n/a (memory filesystem)"
	       : access("/proc/sys/vm/drop_caches", W_OK) == 0 ? "yes"
							       : "NO (not root?)");
	if (c.pool && make_pool(&ops, b.ctx, &c))
		return 1;
	if (c.procs && bench_procs_init(&c.bp, &b, &c.eo, c.procs))
		return 1;
	c.bp.limits = c.limits;
	c.bp.keep = c.keep;
	print_header();
	for (i = 0; i < c.nsizes; i++)
		if (one_size(&b, &c, c.sizes[i]))
			ret = 1;
	if (c.procs)
		bench_procs_fini(&c.bp);
	cs_pinned_pool_destroy(c.pinned_pool);
	close(b.dirfd);
	return ret;
}
