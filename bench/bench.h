/* SPDX-License-Identifier: MIT */
/*
 * bench.h - cs-bench internals: the device side (fill, verify, raw PCIe, naive copy) in
 * bench-gpu.c, the storage side (raw parallel I/O, cache dropping) in bench-io.c, N engine
 * calls at once (--procs) in bench-procs.c, the command line, the engine runs and the report in
 * cs-bench.c. See docs/performance.md.
 */
#ifndef CUDASTORE_BENCH_H
#define CUDASTORE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "cuda_ops.h"
#include "engine.h"

enum bench_kind { BENCH_DENSE, BENCH_ZERO75 };

/* bytes in s seconds as GB/s (1e9 bytes/s); 0 for no time */
static inline double bench_gbps(uint64_t bytes, double s)
{
	return s > 0 ? bytes / s / 1e9 : 0;
}

struct bench {
	const struct cs_cuda_ops *ops;
	CUcontext ctx;
	int dirfd;
	const char *dir;
	unsigned threads;      /* engine dump threads = writers of the raw write measurement */
	unsigned read_threads; /* engine restore threads = readers of the raw read measurement */
	unsigned files;	       /* extent files (stripes) the engine writes: the raw I/O uses as many */
	uint32_t chunk;
	bool direct;
	bool map_tmpfs; /* the engine dumps into tmpfs through a shared mapping: measure that way */
	uint64_t seed;	/* fill/verify pattern seed (bench-gpu.c); 0 but for the copies of --procs */
};

/* bench-gpu.c: all 0 or -1 with a message on stderr */
int bench_fill(const struct bench *b, CUdeviceptr dev, uint64_t size, enum bench_kind kind);
int bench_verify(const struct bench *b, CUdeviceptr dev, uint64_t size, enum bench_kind kind, bool *same);
int bench_scramble(const struct bench *b, CUdeviceptr dev, uint64_t size);
/* pinned D2H (d2h) or H2D bandwidth in GB/s over size bytes of dev: several streams, 64 MiB copies */
int bench_pcie(const struct bench *b, CUdeviceptr dev, uint64_t size, bool d2h, double *gbps);
/* one pinned chunk buffer, synchronous copy then write (dump) / read then copy (restore) */
int bench_naive(const struct bench *b, CUdeviceptr dev, uint64_t size, bool drop, double *dump_gbps,
		double *restore_gbps);

/* bench-hash.c: cs-bench --hash over size bytes (b->chunk chunks), the CPUs hashing the first
 * cpu_bytes; 0, or -1 with a message */
int bench_hash(const struct bench *b, uint64_t size, uint64_t cpu_bytes);

/* bench-chunked.c: cs-bench --chunked over size bytes of each kind asked: the extent dump, a
 * first and a second (child) chunked dump, the two restores, all verified; 0, or -1 with a
 * message. keep: leave the extents and the two images directories in b->dir. */
int bench_chunked(const struct bench *b, const struct cs_engine_opts *eo, uint64_t size, const bool kinds[2],
		  bool keep);

/* bench-io.c */
/* parallel write (then fdatasync) and read of size bytes of scratch files (b->files of them, chunk i
 * in file i % files as the engine's stripes) with b->threads writers and b->read_threads readers;
 * on tmpfs with b->map_tmpfs the writers copy into shared mappings. The read runs twice, with one
 * pread per chunk and per RAW_PIECE (the engine's buffered piece): *read_gbps is the faster,
 * *read_piece_gbps (may be NULL) the piece-sized one, *read_first_gbps (may be NULL) the first
 * (chunk-sized) one, the only read of pages just written as a restore right after a dump reads
 * them. Buffers are written before the timer. */
#define RAW_PIECE (256u << 10)
int bench_storage(const struct bench *b, uint64_t size, bool drop, double *write_gbps, double *read_gbps,
		  double *read_piece_gbps, double *read_first_gbps);
/* the same for nprocs copies at once, each of size bytes with its own files (b->files) and its own
 * b->threads writers / b->read_threads readers, timed together: GB/s over nprocs * size bytes */
int bench_storage_procs(const struct bench *b, unsigned nprocs, uint64_t size, bool drop, double *write_gbps,
			double *read_gbps, double *read_piece_gbps, double *read_first_gbps);
/* bench-pipe.c: the restore's data path alone (RAW_PIECE preads of reg's extent files into pinned
 * chunk buffers, H2D into dev; no hashing) with b->read_threads threads, in GB/s */
int bench_pipeline(const struct bench *b, CUdeviceptr dev, const struct cs_engine_region *reg, double *gbps);
/* can the page cache of this directory be dropped meaningfully (not tmpfs/ramfs)? */
bool bench_dir_is_disk(int dirfd);
/* sync + echo 3 > /proc/sys/vm/drop_caches; true if that worked */
bool bench_drop_caches(void);
/* open name for the naive baseline and raw I/O: O_DIRECT when asked and allowed; sets *direct */
int bench_open(const struct bench *b, const char *name, bool create, bool *direct);

/* cs-bench.c: the extent files of the engine region named name (every stripe) */
void bench_remove_extents(const struct bench *b, const char *name);
uint64_t bench_image_bytes(const struct bench *b, const struct cs_engine_region *reg); /* st_blocks x 512 */

/* bench-procs.c: --procs N, N engine calls at once sharing one budget (sharers) and one pool */
#define BENCH_PROCS_MAX 32
struct bench_procs {
	unsigned n;
	struct cs_engine_opts eo; /* every copy's: the command line's, sharers = n, pool */
	struct cs_pinned_pool *pool;
	bool limits, keep; /* measure the N-copy storage limits; leave the extents */
	/* --procs-weights: copy i moves size * weight[i] / the weights' sum (all 0: size / n each);
	 * --procs-split size: each copy's part of the budget in proportion to its bytes, as the
	 * helper gives a tree's copies (engine opts.part); even: 1/n each */
	unsigned weight[BENCH_PROCS_MAX];
	bool by_size;
};
/* pin the shared pool (untimed) and say so; 0 or -1 with a message */
int bench_procs_init(struct bench_procs *p, const struct bench *b, const struct cs_engine_opts *eo,
		     unsigned n);
void bench_procs_fini(struct bench_procs *p);
/* the N copies of size / N bytes each (4 KiB multiple) for every kind asked, against the lower of
 * the N-copy storage limits and the PCIe link the size's rows measured (d2h, h2d; 0: not measured);
 * 0 all verified, else -1 */
int bench_procs_size(const struct bench *b, const struct bench_procs *p, uint64_t size, const bool kinds[2],
		     double d2h, double h2d);

#endif /* CUDASTORE_BENCH_H */
