/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the copy engine: GPU memory <-> extent files, at the storage/PCIe limit.
 *
 * Used by dump and restore alike and testable without CRIU. Per region (one per GPU) it
 * allocates a bounded ring of pinned host buffers once, runs several copy threads, each with
 * its own stream in the region's context, and overlaps D2H -> hash -> write (dump) or
 * read -> verify -> H2D (restore). Extents are written with O_DIRECT where the filesystem
 * allows it (buffered otherwise; on tmpfs, with map_tmpfs, through a shared mapping of the file),
 * fallocated to full size before the first byte moves, and fdatasync'ed at the end.
 *
 * Chunk metadata: every chunk of chunk_size bytes (the last may be shorter) has an XXH3-64
 * hash of its bytes and a zero flag. All-zero chunks are not written (the file keeps a hole
 * there, punched after the fallocate) and on restore are cleared with a memset on the device.
 * Restore verifies every hash before the chunk reaches the device; a mismatch stops the copy
 * with -EBADMSG and names the file, chunk and offset.
 *
 * Invariants: pinned memory per region never exceeds opts->pinned_max, except on a restore of
 * images whose chunk is larger than that bound: the images decide the chunk size and the bound
 * is a local tuning option, so that region gets exactly one chunk buffer (and one thread), with
 * a warning, instead of failing (docs/design.md, "Copy engine"); the extent file size
 * is exactly region->size after a successful dump; restore never writes to the images.
 */
#ifndef CUDASTORE_ENGINE_H
#define CUDASTORE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_ops.h"
#include "imgdir.h"
#include "imglimits.h"
#include "manifest.h"
#include "options.h"

struct cs_prefetch;
struct cs_pinned_pool;
struct cs_chunk_sink;

/* The weight of a note (cs_engine_opts.note): the numbers of log.h's CS_LOG_WARN, _INFO, _DEBUG. */
#define CS_ENGINE_NOTE_WARN  2
#define CS_ENGINE_NOTE_INFO  3
#define CS_ENGINE_NOTE_DEBUG 4

struct cs_engine_opts {
	uint32_t chunk_size; /* power of two in [CHUNK_MIN, CHUNK_MAX] */
	unsigned threads;    /* copy threads (= streams) per device, 1..32; a restore, and a dump into a
			      * memory filesystem, use one per CPU they may run on where the pinned bound
			      * holds the buffers (engine.c, plan_counts) */
	size_t pinned_max;   /* pinned bytes per device; >= 2 * CPUs * chunk_size is ideal */
	bool direct_io;	     /* try O_DIRECT, fall back to buffered I/O when refused */
	bool map_tmpfs;	     /* dump into tmpfs through a shared mapping (engine_io.c); default off */
	bool tmpfs_readback; /* dump into a memory filesystem: read each piece back right after
			      * writing it, so the first restore's reads are not the kernel's first
			      * touch of the pages (engine_io.c); default off */
	enum cs_tristate tmpfs_restore_map; /* restore from a memory filesystem through a mapping:
					     * CS_AUTO (default) when its pages were not read since
					     * written, CS_YES always, CS_NO never (engine_mapread.c) */
	unsigned stripes;    /* dump: extent files per device, 1..CS_MAX_STRIPES; 0 = auto: one
			      * per copy thread on a memory filesystem (tmpfs, ramfs), else 1 */
	bool skip_zero;	     /* detect and skip all-zero chunks */
	bool no_reserve;     /* dump: do not fallocate the extents first: zero chunks then take no
			      * space, and a full filesystem fails the copy midway (ENOSPC) */
	/* called from engine threads at most every ~0.5 s per region (numbered as first_region says);
	 * may be NULL */
	void (*progress)(void *arg, unsigned region, uint64_t done, uint64_t total);
	void *progress_arg;
	/*
	 * The engine never logs. What it notices on the way (a file falling back to buffered I/O,
	 * images whose chunks exceed the pinned bound, an incomplete extent it cannot remove, a
	 * second failure after the first) and each region's summary after a successful copy come
	 * here as one line, without prefix or newline, for the caller to log at level (a
	 * CS_ENGINE_NOTE_*). Called from any engine thread during the call; may be NULL.
	 */
	void (*note)(unsigned level, const char *line);
	/* restore: chunks already read and verified by cs_prefetch_start() (settled), or NULL */
	struct cs_prefetch *prefetch;
	/* pinned buffers made ahead (cs_pinned_pool_create), lent to the copy threads; or NULL */
	struct cs_pinned_pool *pool;
	/*
	 * Engine calls running at the same time that share one budget (the GPU memory of several
	 * processes copied at once): each gets 1/sharers of threads, of pinned_max and, for a dump
	 * into a memory filesystem, of the CPUs, keeping at least one thread and one chunk buffer.
	 * 0 or 1: this call is alone.
	 */
	unsigned sharers;
	/*
	 * This call's part of that budget in 1/CS_ENGINE_PART_WHOLE, when the calls that run at once
	 * copy different amounts: a part in proportion to its bytes lets them all end together,
	 * where an even split leaves the largest copy on its share alone once the small ones are
	 * done. 0 (or CS_ENGINE_PART_WHOLE and more): 1/sharers.
	 */
	unsigned part;
	/*
	 * What the caller does, for the region summary note: NULL, "dumped" or "restored" as the call
	 * is; an offline check that runs a restore without a GPU (cudastore verify) says "verified".
	 */
	const char *note_verb;
	/*
	 * The number of regions[0] in notes, messages and progress calls: a caller that copies the
	 * regions of one process in several calls (cudastore verify, one device each) numbers them
	 * as a single call would. 0: regions are numbered from 0.
	 */
	unsigned first_region;
};
#define CS_ENGINE_PART_WHOLE 1024u
/* opts.part for a copy of bytes among copies of total bytes that run at once (at least 1) */
unsigned cs_engine_part_of(uint64_t bytes, uint64_t total);

/* Defaults above; returns 0 or -EINVAL with a message naming the bad value in err. */
void cs_engine_opts_default(struct cs_engine_opts *o);
int cs_engine_opts_check(const struct cs_engine_opts *o, char *err, size_t errlen);

struct cs_engine_region {
	/* in */
	CUdeviceptr ptr;  /* device address (the driver's mapping or a cuMemAlloc'ed buffer) */
	uint64_t size;	  /* bytes */
	CUcontext ctx;	  /* context the pointer belongs to (made current in every thread) */
	int dirfd;	  /* images directory */
	const char *name; /* extent file name in dirfd (dump: must not exist; created 0600) = stripe 0 */
	/*
	 * Stripes: chunk i lives in file i % nstripes at offset (i / nstripes) * chunk_size, so
	 * writers of neighbouring chunks use different files (tmpfs serialises writers of one file).
	 * Dump: out (the engine names stripe k > 0 with cs_name_stripe(name, k)); restore:
	 * in, 0 or 1 = the single file name, else stripe_name[0..nstripes) (stripe_name[0] == name).
	 */
	unsigned nstripes;
	char stripe_name[CS_MAX_STRIPES][CS_NAME_MAX];

	/* chunk metadata: dump allocates and fills (free with cs_engine_region_free_meta);
	 * restore reads it (the caller fills it from the manifest) */
	uint32_t chunk_size;
	uint64_t nchunks;
	uint64_t *hash; /* nchunks XXH3-64 values */
	uint8_t *zero;	/* nchunks flags, 1 = all-zero chunk, not stored */

	/*
	 * Chunked images (format 1.5, chunkstore.h), chunks of CS_DEDUP_CHUNK bytes. Dump: with sink,
	 * every non-zero chunk goes to it by id (cs_chunk_put, hashed on the copy thread) and no extent
	 * file is made; ids is then allocated and filled (nchunks ids, zero chunks all-zero; freed by
	 * cs_engine_region_free_meta) and new_bytes says what was written rather than linked. Restore:
	 * with ids (the manifest's), chunk i is read from dirfd's cudastore-chunks/ instead of an extent.
	 */
	const struct cs_chunk_sink *sink;
	uint8_t *ids;
	uint64_t new_bytes;
	/*
	 * Chunked dump, optional (in; NULL: every chunk is copied): ids hashed on the GPU before the
	 * copy (engine/gpu_hash.h). Chunk i with known[i] != 0 is not copied: known[i] == 1 an
	 * all-zero chunk, 2 a chunk whose id pre_ids[i] the store or parent holds with XXH3
	 * pre_hash[i] (from the parent's manifest), linked by id. A chunk that cannot be linked after
	 * all (removed meanwhile) is copied as usual. Every chunk copied takes its id from pre_ids
	 * (not hashed again on the CPU). skipped_bytes (out) counts what was not copied.
	 */
	const uint8_t *known;
	const uint8_t *pre_ids;
	const uint64_t *pre_hash;
	uint64_t skipped_bytes;

	/* out */
	uint64_t stored_bytes; /* bytes of data in the file (non-zero chunks) */
	uint64_t pinned_bytes; /* pinned memory used for this region */
	bool used_direct_io;
	bool used_mapping; /* written (dump) or read (restore) through a shared mapping (tmpfs) */
	uint64_t prefetched_bytes; /* restore: bytes taken from the prefetch instead of the files */
	uint64_t pooled_bytes;	   /* pinned bytes lent by opts->pool (not pinned by this call) */
	double seconds;		   /* wall time of this region's copy */
	double setup_seconds;	   /* of it, the slowest thread's setup: stream, events, pinning */
	double teardown_seconds;   /* of it, the slowest thread's teardown: sync, unpinning */
	/* the copy threads' time, summed over them: in the files and the chunk checks (zero test,
	 * hash), and waiting for the GPU's copies. Beside threads x seconds they say what bound the
	 * copy: the CPU and storage, or the GPU */
	double io_seconds, gpu_wait_seconds;
	unsigned threads; /* copy threads this region ran */
};

/*
 * Pinned host buffers made once and lent to every engine call that names the pool in
 * opts->pool (engine_pool.c): the pinning and unpinning leave the timed copy. nbufs buffers of
 * buf_size bytes (a multiple of 4096), pinned CU_MEMHOSTALLOC_PORTABLE in parallel with ctx
 * current. A thread whose region needs larger buffers than buf_size, or that finds none free,
 * pins its own as before. Destroy only when no engine call uses the pool.
 */
int cs_pinned_pool_create(struct cs_pinned_pool **out, const struct cs_cuda_ops *ops, CUcontext ctx,
			  size_t buf_size, unsigned nbufs, char *err, size_t errlen);
void cs_pinned_pool_destroy(struct cs_pinned_pool *p);
size_t cs_pinned_pool_bytes(const struct cs_pinned_pool *p);
double cs_pinned_pool_seconds(const struct cs_pinned_pool *p); /* the pinning took this long */

/* Copy every region out of the GPU into its extent file (all regions in parallel). */
int cs_engine_dump(const struct cs_cuda_ops *ops, struct cs_engine_region *regions, unsigned n,
		   const struct cs_engine_opts *opts, char *err, size_t errlen);

/* Copy every region's extent into the GPU, verifying each chunk's hash first. */
int cs_engine_restore(const struct cs_cuda_ops *ops, struct cs_engine_region *regions, unsigned n,
		      const struct cs_engine_opts *opts, char *err, size_t errlen);

void cs_engine_region_free_meta(struct cs_engine_region *r);

struct cs_manifest_dev;
/* A region to restore or verify from a manifest device (no GPU pointer or context yet). */
void cs_engine_region_from_manifest(struct cs_engine_region *r, const struct cs_manifest_dev *d, int dirfd);

/*
 * Restore prefetch (engine_prefetch.c): read and verify the extents of regions (their names,
 * stripes, size, chunk table and dirfd; ptr and ctx are not used) into at most max_bytes of
 * private host memory with threads background threads, before the GPU can take them. The
 * regions' tables are copied; the caller may free them. cs_prefetch_settle() stops it (the
 * chunk in flight in each thread completes) and waits; cs_engine_restore() with opts->prefetch
 * then takes every chunk that was read, whose bytes hashed to the value its own chunk table
 * holds, from memory, and reads the rest as usual. Nothing a prefetch does can fail a restore:
 * a chunk it could not read or verify is simply read again.
 */
int cs_prefetch_start(struct cs_prefetch **out, const struct cs_engine_region *regions, unsigned n,
		      unsigned threads, uint64_t max_bytes, char *err, size_t errlen);
void cs_prefetch_settle(struct cs_prefetch *pf);
/* like settle, but lets it read everything (up to max_bytes) first */
void cs_prefetch_wait(struct cs_prefetch *pf);
void cs_prefetch_free(struct cs_prefetch *pf);
struct cs_prefetch_stats {
	uint64_t ready_bytes; /* read and verified */
	uint64_t taken_bytes; /* used by restores so far */
	uint64_t bad_chunks;  /* read but not matching their hash, or unreadable */
	double seconds;	      /* from start until the last thread ended */
	bool full;	      /* stopped at max_bytes */
};
void cs_prefetch_get_stats(struct cs_prefetch *pf, struct cs_prefetch_stats *st);

/* The copy threads and extent files one region of size bytes in dirfd would get (cs-bench
 * measures its storage limits with the same parallelism). */
void cs_engine_plan(const struct cs_engine_opts *o, uint64_t size, bool dump, int dirfd, unsigned *threads,
		    unsigned *stripes);
/* The chunk buffers a dump (or restore) of one region of size bytes in chunks of chunk bytes into
 * (from) dirfd pins when it runs alone on its GPU; the helper's pool pins no more per GPU. */
unsigned cs_engine_plan_buffers(const struct cs_engine_opts *o, uint64_t size, uint32_t chunk, bool dump,
				int dirfd);

#endif /* CUDASTORE_ENGINE_H */
