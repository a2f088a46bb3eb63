/* SPDX-License-Identifier: MIT */
/*
 * engine_priv.h - internals shared by the copy engine's files (not an interface).
 *
 *   engine.c          the frame: options, region planning, threads started and joined
 *   engine_job.c      what the threads call back: first error, stop flag, chunk claims, progress,
 *                     clock, a thread's last stream sync
 *   engine_io.c       the extent files: open (O_DIRECT, buffered or mapped), reserve, read/write, finish
 *   engine_mapread.c  a restore's reads through mappings of memory-filesystem extents
 *   engine_chunk.c    per-chunk data checks: zero detection, XXH3-64
 *   engine_hash_avx2.c  the same XXH3-64 built for AVX2, used where the CPU has it
 *   engine_dump.c     the dump worker loop (D2H -> zero check -> hash -> pwrite)
 *   engine_restore.c  the restore worker loop (pread -> verify -> H2D / memset)
 *   engine_prefetch.c the restore prefetch: chunks read and verified ahead, while criu restores
 *   engine_pool.c     pinned buffers pinned once and lent to the copy threads of every call
 *
 * One struct eng_job per cs_engine_dump()/restore() call; it owns the first error and the
 * stop flag every thread of every region polls. One struct eng_region per cs_engine_region;
 * one struct eng_thread per copy thread with its own stream, events and 1-2 pinned buffers.
 */
#ifndef CUDASTORE_ENGINE_PRIV_H
#define CUDASTORE_ENGINE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "engine.h"

#define ENG_ALIGN 4096u /* largest O_DIRECT alignment served; pinned buffers are page-aligned */

struct eng_job {
	const struct cs_cuda_ops *ops;
	const struct cs_engine_opts *opts;
	bool dump;
	atomic_bool stop; /* set with the first error: every thread stops at its next chunk */
	pthread_mutex_t lock;
	int err; /* first error (0 or -errno) */
	/* dumps into a memory filesystem: its free bytes at the first region, bytes claimed since */
	unsigned long fsid_memfs;
	uint64_t memfs_free, memfs_claimed;
	char *errbuf;
	size_t errlen;
};

struct eng_thread;

/* One extent file of a region (a stripe); see cs_engine_region for the layout. */
struct eng_file {
	struct eng_region *reg;
	unsigned index;
	const char *name;
	uint64_t size; /* bytes of this stripe */
	int fd;
	bool created;	       /* dump: we created the file (removed again on failure) */
	bool reserved;	       /* dump: fallocate succeeded (zero chunks need hole punching) */
	atomic_bool no_punch;  /* dump: the filesystem cannot punch holes (said once) */
	atomic_bool direct;    /* fd currently has O_DIRECT */
	atomic_bool direct_ok; /* an O_DIRECT transfer succeeded: EINVAL is then a real error */
	uint32_t align;	       /* O_DIRECT alignment of the file (engine_io.c), <= ENG_ALIGN */
	char *map;	       /* tmpfs: the file mapped shared (dump: reserved, written; restore:
				* read, engine_mapread.c), or NULL */
	atomic_bool map_off;   /* process_vm_writev refused: pwrite after all */
	int err;	       /* dump: result of this file's reservation (parallel fallocate) */
	pthread_t tid;
};

struct eng_region {
	struct eng_job *job;
	struct cs_engine_region *r;
	unsigned index;
	bool memfs;	      /* the images directory is a memory filesystem (tmpfs, ramfs) */
	pthread_mutex_t lock; /* serialises the O_DIRECT -> buffered and mapping -> pwrite switches */
	unsigned nfiles;      /* stripes */
	bool space_checked;   /* memfs: free space checked, nothing reserved (engine_io.c) */
	struct eng_file files[CS_MAX_STRIPES];

	uint32_t chunk;
	uint64_t nchunks;
	uint32_t group; /* restore through mappings: the most chunks a thread claims at once in one
			 * file (a run, engine_restore.c), or 0 */
	atomic_uint_fast64_t run_next[CS_MAX_STRIPES]; /* runs: file k's next unclaimed row */
	atomic_uint_fast64_t unclaimed;		       /* runs: chunks no thread has claimed yet */
	size_t buf_size; /* bytes per pinned buffer: min(chunk, size rounded to ENG_ALIGN) */
	unsigned nbufs;	 /* pinned buffers of the region, all threads together */
	unsigned nthreads;
	uint64_t zero_hash_full; /* XXH3 of chunk zero bytes */
	uint64_t zero_hash_tail; /* XXH3 of the last chunk's length of zero bytes */

	atomic_uint_fast64_t next;   /* next chunk index to hand out (runs: next file in turn) */
	atomic_uint_fast64_t done;   /* bytes finished (progress) */
	atomic_uint_fast64_t stored; /* bytes written to the file */
	atomic_uint_fast64_t fresh;  /* chunked dump: bytes of chunks written, not linked */
	atomic_uint_fast64_t skipped; /* chunked dump: bytes known before the copy, not copied */
	atomic_uint_fast64_t gpu_ids; /* chunked dump: chunks copied under the id the GPU hashed */
	int chunks_fd;		     /* chunked restore: the images directory's cudastore-chunks */
	bool chunk_map;		     /* chunked restore: chunk files read through mappings */
	atomic_uint_fast64_t pinned; /* pinned bytes allocated */
	atomic_uint_fast64_t pooled; /* of them, lent by the pool */
	atomic_uint_fast64_t setup_ns, teardown_ns; /* slowest thread's */
	atomic_uint_fast64_t io_ns, gpu_wait_ns;     /* summed over the threads (struct eng_thread) */
	atomic_uint_fast64_t last_progress_ns;
	struct pf_region *pf; /* restore: this region's prefetched chunks (engine_prefetch.c), or NULL */
	atomic_uint_fast64_t prefetched; /* bytes taken from it */
	atomic_uint live; /* threads still running; the last one finishes the region */
	uint64_t t0_ns;
	struct eng_thread *threads;
};

struct eng_thread {
	struct eng_region *reg;
	pthread_t tid;
	bool started;
	unsigned nbuf; /* 1 or 2 pinned buffers (2 = double buffering) */
	void *buf[2];
	bool pooled[2]; /* buf[i] is lent by the pool: give it back, do not free it */
	CUevent ev[2];
	bool busy[2]; /* restore: an H2D from buf[i] may still be running */
	CUstream stream;
	bool have_stream;
	/* restore through mappings: the run of chunks of one file this thread claimed
	 * (engine_restore.c), rows grp_first..grp_end of file grp_file, next grp_row */
	uint64_t grp_first, grp_row, grp_end;
	unsigned grp_file;
	/* chunked restore through mappings: a reserved window of chunk slots (ENG_MAP_DROP bytes)
	 * whose first win_used hold chunk files mapped since its last drop (engine_mapread.c) */
	char *win;
	unsigned win_used;
	/* buffered dump: the previous chunk this thread wrote, for write-behind */
	struct eng_file *prev_file;
	uint64_t prev_off, prev_len;
	/* where the loop's time went: the files and the chunk checks (zero test, hash), and waiting
	 * for the GPU's copies (events, the last stream sync); added to the region at the end */
	uint64_t io_ns, gpu_wait_ns;
};

/* engine_job.c */
bool eng_chunk_size_ok(uint64_t c);
void eng_fail(struct eng_job *job, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void eng_note(const struct eng_job *job, unsigned level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int eng_cuda_fail(struct eng_region *reg, CUresult res, const char *call, uint64_t chunk);
bool eng_stopped(const struct eng_job *job);
bool eng_claim(struct eng_region *reg, uint64_t *idx);
void eng_progress(struct eng_region *reg, uint64_t bytes);
/* A copy thread's end, once it claims no more chunks: unless the job stopped, wait for its
 * stream (its last copies), the wait counted as GPU time; a failure fails the job. */
void eng_thread_sync(struct eng_thread *t);
/* offset of chunk idx on the device */
static inline uint64_t eng_chunk_off(const struct eng_region *reg, uint64_t idx)
{
	return idx * reg->chunk;
}
/* the file holding chunk idx, and the chunk's offset in it */
static inline struct eng_file *eng_chunk_file(struct eng_region *reg, uint64_t idx)
{
	return &reg->files[idx % reg->nfiles];
}
static inline uint64_t eng_file_off(const struct eng_region *reg, uint64_t idx)
{
	return idx / reg->nfiles * reg->chunk;
}
static inline size_t eng_chunk_len(const struct eng_region *reg, uint64_t idx)
{
	uint64_t off = eng_chunk_off(reg, idx);
	uint64_t left = reg->r->size - off;

	return left < reg->chunk ? (size_t)left : reg->chunk;
}
uint64_t eng_zero_hash_for(const struct eng_region *reg, size_t len);

/* engine_chunk.c */
bool eng_is_zero(const void *buf, size_t len);
uint64_t eng_hash(const void *buf, size_t len);
uint64_t eng_hash_sse2(const void *buf, size_t len);
#if defined(__x86_64__) && defined(__GNUC__)
uint64_t eng_hash_avx2(const void *buf, size_t len); /* engine_hash_avx2.c */
#endif
uint64_t eng_hash_zeros(uint64_t len);
/* streaming XXH3-64 (same value as eng_hash over the concatenation), AVX2 build where possible */
struct eng_hstate {
	_Alignas(64) unsigned char opaque[640];
};
void eng_hstate_reset(struct eng_hstate *h);
void eng_hstate_update(struct eng_hstate *h, const void *buf, size_t len);
uint64_t eng_hstate_digest(struct eng_hstate *h);
#if defined(__x86_64__) && defined(__GNUC__)
void eng_hstate_update_avx2(struct eng_hstate *h, const void *buf, size_t len);
#endif
#define ENG_PIECE    (256u << 10) /* buffered I/O moves a chunk in pieces this size, hashed while cached */
#define ENG_READBACK (32u << 10)  /* tmpfs_readback: written and read back in steps this size */
/*
 * Move len bytes of a chunk at buf in ENG_PIECE pieces, move(arg, at, n) for the n bytes at offset
 * at; *hash (when not NULL) gets the XXH3 of buf, fed piece by piece while the piece is in the
 * CPU's cache: before its move when buf is the source (hash_first: a write), after it when buf
 * is the destination (a read). The first failure of move is the result, and no hash then.
 */
int eng_pieces(const char *buf, size_t len, bool hash_first, int (*move)(void *arg, size_t at, size_t n),
	       void *arg, uint64_t *hash);

bool eng_dir_is_memfs(int dirfd); /* tmpfs or ramfs */
/* a dump whose buffered writes are read back at once (opts->tmpfs_readback; engine_io.c) */
static inline bool eng_reads_back(const struct eng_region *reg)
{
	return reg->job->dump && reg->memfs && reg->job->opts->tmpfs_readback;
}
/* engine_io.c: each reports its own error through eng_fail() and returns 0 or -errno */
int eng_io_create(struct eng_region *reg);
int eng_io_reserve(struct eng_region *reg); /* all stripes in parallel; memfs: space checked */
void eng_io_map(struct eng_region *reg);
void eng_io_unmap(struct eng_region *reg);
int eng_copy_to_mapping(void *dst, const void *src, size_t len); /* also cs-bench's raw write */
int eng_io_open_ro(struct eng_region *reg);
/* write chunk idx from buf; *hash (when not NULL) gets its XXH3, computed here (see engine_io.c) */
int eng_io_write(struct eng_thread *t, void *buf, size_t len, uint64_t idx, uint64_t *hash);
/* Dump: chunk idx of len bytes is all zero: give its reserved blocks back now (a hole). */
int eng_io_skip(struct eng_thread *t, size_t len, uint64_t idx);
/* read chunk idx into buf; *hash (when not NULL) gets the XXH3 of what was read */
int eng_io_read(struct eng_thread *t, void *buf, size_t len, uint64_t idx, uint64_t *hash);
int eng_io_finish_dump(struct eng_region *reg);

/* engine_chunks.c: chunked images (cs_engine_region.sink, .ids); report their own errors */
int eng_chunk_put(struct eng_thread *t, const void *buf, size_t len, uint64_t idx);
/* Chunk idx known before its copy (cs_engine_region.known): recorded without a copy. 0, or -ENOENT:
 * copy it after all; other -errno: the job failed. */
int eng_chunk_known(struct eng_thread *t, uint64_t idx);
int eng_chunk_read(struct eng_thread *t, void *buf, size_t len, uint64_t idx, uint64_t *hash);
static inline bool eng_chunked(const struct eng_region *reg)
{
	return reg->job->dump ? reg->r->sink != NULL : reg->r->ids != NULL;
}

/* engine_mapread.c: restore from tmpfs through a mapping (opts->tmpfs_restore_map) */
void eng_mapread_plan(struct eng_region *reg); /* after eng_io_open_ro: maps the files, or not */
/* read len bytes at off of f (mapped by the plan) into buf, hashed as read(2)'s; reports errors */
int eng_mapread(struct eng_region *reg, struct eng_file *f, char *buf, size_t len, uint64_t off,
		uint64_t *hash);
/* chunked restore, once chunks_fd is open: reg->chunk_map set where the chunk files are read
 * through mappings, by the same choice */
void eng_mapread_plan_chunks(struct eng_region *reg);
/* a chunk file (len bytes, open as fd, named rel) through a mapping in t's window into buf,
 * hashed as read(2)'s; 1 where it cannot be mapped (the caller reads it), else 0 or a reported
 * error */
int eng_mapread_chunk(struct eng_thread *t, int fd, const char *rel, char *buf, size_t len, uint64_t *hash);
/* t's window given back (the thread's end) */
void eng_mapread_window_free(struct eng_thread *t);
/* drop rows first..end (chunks) of file k from its mapping, once they were copied */
void eng_mapread_drop(struct eng_region *reg, unsigned k, uint64_t first, uint64_t end);
#define ENG_MAP_DROP (64u << 20) /* bytes of one file a thread reads, then drops, at a time */

/* engine_pool.c: a free pool buffer of at least len bytes, or NULL; give it back when done */
void *eng_pool_take(struct cs_pinned_pool *p, size_t len);
void eng_pool_give(struct cs_pinned_pool *p, void *buf);

/* engine_prefetch.c */
struct pf_region;
struct pf_region *eng_prefetch_find(struct cs_prefetch *pf, const struct cs_engine_region *r);
bool eng_prefetch_take(struct cs_prefetch *pf, struct pf_region *p, uint64_t idx, void *buf, size_t len,
		       uint64_t want);
void eng_prefetch_release(struct cs_prefetch *pf, struct pf_region *p);

/* engine_restore.c: the length of the next run a thread claims, in chunks (rows of one file):
 * group while much is left, then the unclaimed chunks over twice the threads, at least 1, at
 * most the rows file_left the file still has */
uint64_t eng_run_length(uint64_t unclaimed, unsigned nthreads, uint32_t group, uint64_t file_left);

/* engine_dump.c / engine_restore.c: the worker loops; errors go through eng_fail() */
void eng_dump_loop(struct eng_thread *t);
void eng_restore_loop(struct eng_thread *t);
int eng_restore_check_meta(struct eng_region *reg);

#endif /* CUDASTORE_ENGINE_PRIV_H */
