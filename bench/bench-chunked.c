// SPDX-License-Identifier: MIT
/*
 * bench-chunked.c - cs-bench --chunked: what an incremental (chunked) dump costs against the
 * extent dump of the same device memory, measured in the same run, into the same directory, with
 * the same engine options:
 *   - the extent dump (DIR/cs-bench-chunked-SIZE.ext);
 *   - a first chunked dump (DIR/cs-bench-chunked-parent/): chunk ids hashed on the GPU before the
 *     copy (engine/gpu_hash.h), all-zero chunks marked known, every other chunk copied and written;
 *   - a second chunked dump of the same, unchanged memory (DIR/cs-bench-chunked-child/) with the
 *     first as its parent: chunks whose id the parent lists are linked, not copied;
 *   - the restores of the extent dump and of the child (reading its chunk files), each verified.
 * Moved device-to-host = GPU bytes - the engine's skipped_bytes; written = its new_bytes. The
 * kernels are loaded once before the timed dumps (their JIT is not a per-dump cost). One JSON line
 * per size and kind follows the result lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "chunk_id.h"
#include "chunkstore.h"
#include "gpu_hash.h"

#define PARENT_DIR "cs-bench-chunked-parent"
#define CHILD_DIR  "cs-bench-chunked-child"

/* one chunked dump: its images directory, sink and what the GPU hashed before the copy */
struct cdump {
	int dirfd;
	struct cs_chunk_sink sink;
	struct cs_engine_region reg;
	uint8_t *known, *ids;
	uint64_t *hash;
	double seconds, hash_seconds;
};

struct known_id {
	uint8_t id[CS_CHUNK_ID_LEN];
	uint64_t hash;
};

static int cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, CS_CHUNK_ID_LEN);
}

static uint64_t nchunks_of(uint64_t size)
{
	return (size + CS_DEDUP_CHUNK - 1) / CS_DEDUP_CHUNK;
}

/* a fresh images directory name in b->dir: emptied (chunk links removed) and made again */
static int open_imgdir(const struct bench *b, const char *name)
{
	int fd = openat(b->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0) {
		cs_chunks_dir_clear(fd, NULL);
		close(fd);
		unlinkat(b->dirfd, name, AT_REMOVEDIR);
	}
	if (mkdirat(b->dirfd, name, 0700) ||
	    (fd = openat(b->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		fprintf(stderr, "cs-bench: cannot make %s/%s: %s\n", b->dir, name, strerror(errno));
		return -1;
	}
	return fd;
}

static void remove_imgdir(const struct bench *b, const char *name, int fd)
{
	if (fd < 0)
		return;
	cs_chunks_dir_clear(fd, NULL);
	close(fd);
	unlinkat(b->dirfd, name, AT_REMOVEDIR);
}

/* the parent's non-zero chunks' ids with their XXH3, sorted by id; *n of them */
static struct known_id *parent_ids(const struct cs_engine_region *p, size_t *n)
{
	struct known_id *k = malloc((p->nchunks ? p->nchunks : 1) * sizeof(*k));
	uint64_t c;

	*n = 0;
	for (c = 0; k && c < p->nchunks; c++) {
		if (p->zero[c])
			continue;
		memcpy(k[*n].id, p->ids + c * CS_CHUNK_ID_LEN, CS_CHUNK_ID_LEN);
		k[(*n)++].hash = p->hash[c];
	}
	if (k)
		qsort(k, *n, sizeof(*k), cmp_id);
	return k;
}

/* known[]: 1 an all-zero chunk (its id is the zero chunk's), 2 an id the parent lists */
static void mark(struct cdump *d, uint64_t size, const struct known_id *par, size_t npar,
		 const uint8_t zfull[CS_CHUNK_ID_LEN], const uint8_t ztail[CS_CHUNK_ID_LEN])
{
	uint64_t c, n = nchunks_of(size);

	for (c = 0; c < n; c++) {
		const uint8_t *id = d->ids + c * CS_CHUNK_ID_LEN;
		bool tail = c == n - 1 && size % CS_DEDUP_CHUNK;
		const struct known_id *k;

		d->known[c] = 0;
		if (!memcmp(id, tail ? ztail : zfull, CS_CHUNK_ID_LEN)) {
			d->known[c] = 1;
			continue;
		}
		k = npar ? bsearch(id, par, npar, sizeof(*k), cmp_id) : NULL;
		if (k) {
			d->known[c] = 2;
			d->hash[c] = k->hash;
		}
	}
}

/* the ids of an all-zero chunk and of an all-zero tail of size's last chunk */
static int zero_ids(uint64_t size, uint8_t full[CS_CHUNK_ID_LEN], uint8_t tail[CS_CHUNK_ID_LEN])
{
	void *z = calloc(1, CS_DEDUP_CHUNK);
	int ret = z ? cs_chunk_id(z, CS_DEDUP_CHUNK, full) : -ENOMEM;

	if (!ret)
		ret = cs_chunk_id(z, size % CS_DEDUP_CHUNK ? size % CS_DEDUP_CHUNK : CS_DEDUP_CHUNK, tail);
	free(z);
	return ret;
}

/* hash on the GPU, mark, dump into d->dirfd; timed from the hash to the engine's return */
static int chunked_dump(const struct bench *b, const struct cs_engine_opts *eo, struct eng_gpu_hasher *h,
			CUdeviceptr dev, uint64_t size, struct cdump *d,
			const struct cs_engine_region *parent)
{
	uint8_t zfull[CS_CHUNK_ID_LEN], ztail[CS_CHUNK_ID_LEN];
	struct known_id *par = NULL;
	size_t npar = 0;
	char err[512];
	double t0 = cs_now();
	int ret;

	if (zero_ids(size, zfull, ztail) || (parent && !(par = parent_ids(parent, &npar)))) {
		fprintf(stderr, "cs-bench: no host memory for the chunk ids of %llu bytes\n",
			(unsigned long long)size);
		return -1;
	}
	ret = eng_gpu_hash(h, dev, size, CS_DEDUP_CHUNK, d->ids);
	d->hash_seconds = cs_now() - t0;
	if (ret) {
		fprintf(stderr, "cs-bench: eng_gpu_hash of %llu bytes failed: %s\n", (unsigned long long)size,
			strerror(-ret));
		free(par);
		return -1;
	}
	mark(d, size, par, npar, zfull, ztail);
	free(par);
	d->reg.known = d->known;
	d->reg.pre_ids = d->ids;
	d->reg.pre_hash = d->hash;
	ret = cs_engine_dump(b->ops, &d->reg, 1, eo, err, sizeof(err));
	d->seconds = cs_now() - t0;
	if (ret)
		fprintf(stderr, "cs-bench: chunked dump into %s failed: %s\n", b->dir, err);
	return ret ? -1 : 0;
}

static void cdump_none(struct cdump *d)
{
	memset(d, 0, sizeof(*d));
	d->dirfd = d->sink.img = -1;
}

static int cdump_init(const struct bench *b, struct cdump *d, const char *name, CUdeviceptr dev,
		      uint64_t size, int parent_chunks)
{
	uint64_t n = nchunks_of(size) ? nchunks_of(size) : 1;

	memset(d, 0, sizeof(*d));
	d->sink = (struct cs_chunk_sink){ .img = -1, .store = -1, .stmp = -1, .parent = parent_chunks };
	d->dirfd = open_imgdir(b, name);
	if (d->dirfd < 0)
		return -1;
	d->sink.img = cs_chunks_dir_open(d->dirfd, true);
	d->known = calloc(n, 1);
	d->ids = malloc(n * CS_CHUNK_ID_LEN);
	d->hash = calloc(n, sizeof(*d->hash));
	if (d->sink.img < 0 || !d->known || !d->ids || !d->hash) {
		fprintf(stderr, "cs-bench: cannot prepare %s/%s/%s\n", b->dir, name, CS_CHUNKS_DIR);
		return -1;
	}
	d->reg = (struct cs_engine_region){
		.ptr = dev, .size = size, .ctx = b->ctx, .dirfd = d->dirfd, .name = name, .sink = &d->sink
	};
	return 0;
}

static void cdump_fini(const struct bench *b, struct cdump *d, const char *name, bool keep)
{
	cs_engine_region_free_meta(&d->reg);
	if (d->sink.img >= 0)
		close(d->sink.img);
	if (keep && d->dirfd >= 0)
		close(d->dirfd);
	else
		remove_imgdir(b, name, d->dirfd);
	free(d->known);
	free(d->ids);
	free(d->hash);
}

/* scramble the device, restore reg (the restore reads the chunk files where reg has ids), verify */
static int timed_restore(const struct bench *b, const struct cs_engine_opts *eo, struct cs_engine_region *reg,
			 enum bench_kind kind, const char *what, double *rate)
{
	char err[512];
	bool same = false;
	double t0;
	int ret;

	if (bench_dir_is_disk(b->dirfd))
		bench_drop_caches();
	if (bench_scramble(b, reg->ptr, reg->size))
		return -1;
	t0 = cs_now();
	ret = cs_engine_restore(b->ops, reg, 1, eo, err, sizeof(err));
	*rate = bench_gbps(reg->size, cs_now() - t0);
	if (ret) {
		fprintf(stderr, "cs-bench: %s restore failed: %s\n", what, err);
		return -1;
	}
	if (bench_verify(b, reg->ptr, reg->size, kind, &same) || !same) {
		fprintf(stderr, "cs-bench: %s restore: device bytes differ\n", what);
		return -1;
	}
	return 0;
}

/* the child's chunks as a restore reads them (from its images directory, by id) */
static int child_restore(const struct bench *b, const struct cs_engine_opts *eo, const struct cdump *c,
			 enum bench_kind kind, double *rate)
{
	struct cs_engine_region r = { .ptr = c->reg.ptr,
				      .size = c->reg.size,
				      .ctx = b->ctx,
				      .dirfd = c->dirfd,
				      .name = c->reg.name,
				      .nstripes = 1,
				      .chunk_size = c->reg.chunk_size,
				      .nchunks = c->reg.nchunks,
				      .hash = c->reg.hash,
				      .zero = c->reg.zero,
				      .ids = c->reg.ids };

	return timed_restore(b, eo, &r, kind, "chunked (child)", rate);
}

static int extent_dump(const struct bench *b, const struct cs_engine_opts *eo, struct cs_engine_region *reg,
		       double *seconds)
{
	char err[512];
	double t0 = cs_now();
	int ret = cs_engine_dump(b->ops, reg, 1, eo, err, sizeof(err));

	*seconds = cs_now() - t0;
	if (ret)
		fprintf(stderr, "cs-bench: extent dump into %s failed: %s\n", b->dir, err);
	return ret ? -1 : 0;
}

static void report(uint64_t size, enum bench_kind kind, const struct cs_engine_region *ext, double ext_s,
		   const struct cdump *p, const struct cdump *c, double ext_rest, double child_rest)
{
	uint64_t moved = size - c->reg.skipped_bytes, wrote = c->reg.new_bytes;
	double e = bench_gbps(size, ext_s), f = bench_gbps(size, p->seconds),
	       s = bench_gbps(size, c->seconds);

	printf("# chunked %lluM %s: %u copy threads (extent dump %u); GPU hash %.3f s in the first dump, "
	       "%.3f s in the second; first dump wrote %llu bytes, moved %llu\n",
	       (unsigned long long)(size >> 20), kind == BENCH_DENSE ? "dense" : "zero75", p->reg.threads,
	       ext->threads, p->hash_seconds, c->hash_seconds, (unsigned long long)p->reg.new_bytes,
	       (unsigned long long)(size - p->reg.skipped_bytes));
	printf("chunked dump: %.2f GB/s (extent dump %.2f GB/s): %.2f of it (target >= 0.9)\n", f, e,
	       e > 0 ? f / e : 0);
	printf("child dump: moved %llu of %llu bytes (%.2f %%, target <= 5 %%), wrote %llu (%.2f %%, target "
	       "<= 1 %%); %.3f s, %.2f GB/s (first chunked dump %.3f s, %.2f GB/s)\n",
	       (unsigned long long)moved, (unsigned long long)size, 100.0 * moved / size,
	       (unsigned long long)wrote, 100.0 * wrote / size, c->seconds, s, p->seconds, f);
	printf("chunked restore: %.2f GB/s (extent restore %.2f GB/s): %.2f of it (target >= 0.9)\n",
	       child_rest, ext_rest, ext_rest > 0 ? child_rest / ext_rest : 0);
	printf("{\"bench\":\"cs-bench-chunked\",\"size\":%llu,\"kind\":\"%s\",\"threads\":%u,"
	       "\"extent_dump_gbps\":%.3f,\"chunked_dump_gbps\":%.3f,\"child_dump_gbps\":%.3f,"
	       "\"child_dump_s\":%.4f,\"child_moved_bytes\":%llu,\"child_written_bytes\":%llu,"
	       "\"extent_restore_gbps\":%.3f,\"child_restore_gbps\":%.3f,\"verified\":true}\n",
	       (unsigned long long)size, kind == BENCH_DENSE ? "dense" : "zero75", p->reg.threads, e, f, s,
	       c->seconds, (unsigned long long)moved, (unsigned long long)wrote, ext_rest, child_rest);
	fflush(stdout);
}

/* the extent dump, the two chunked dumps and the two restores of one size and kind */
static int one_kind(const struct bench *b, const struct cs_engine_opts *eo, struct eng_gpu_hasher *h,
		    CUdeviceptr dev, uint64_t size, enum bench_kind kind, bool keep)
{
	struct cs_engine_region ext = { .ptr = dev, .size = size, .ctx = b->ctx, .dirfd = b->dirfd };
	struct cdump p, c;
	double ext_s = 0, ext_rest = 0, child_rest = 0;
	char name[64];
	int ret = -1;

	snprintf(name, sizeof(name), "cs-bench-chunked-%lluM.ext", (unsigned long long)(size >> 20));
	ext.name = name;
	bench_remove_extents(b, name);
	cdump_none(&p);
	cdump_none(&c);
	if (bench_fill(b, dev, size, kind) || cdump_init(b, &p, PARENT_DIR, dev, size, -1))
		goto out_p;
	if (extent_dump(b, eo, &ext, &ext_s) || chunked_dump(b, eo, h, dev, size, &p, NULL))
		goto out_p;
	if (cdump_init(b, &c, CHILD_DIR, dev, size, p.sink.img) ||
	    chunked_dump(b, eo, h, dev, size, &c, &p.reg))
		goto out;
	if (timed_restore(b, eo, &ext, kind, "extent", &ext_rest) ||
	    child_restore(b, eo, &c, kind, &child_rest))
		goto out;
	report(size, kind, &ext, ext_s, &p, &c, ext_rest, child_rest);
	ret = 0;
out:
	cdump_fini(b, &c, CHILD_DIR, keep);
out_p:
	cdump_fini(b, &p, PARENT_DIR, keep);
	cs_engine_region_free_meta(&ext);
	if (!keep)
		bench_remove_extents(b, name);
	return ret;
}

int bench_chunked(const struct bench *b, const struct cs_engine_opts *eo, uint64_t size, const bool kinds[2],
		  bool keep)
{
	struct eng_gpu_hasher *h = NULL;
	CUdeviceptr dev = 0;
	int k, ret = eng_gpu_hasher_open(b->ops, &h);

	if (ret) {
		fprintf(stderr, "cs-bench: the GPU hasher cannot run here (%s): %s\n", b->ops->path,
			strerror(-ret));
		return -1;
	}
	if (b->ops->MemAlloc(&dev, size) != CUDA_SUCCESS) {
		fprintf(stderr, "cs-bench: cannot allocate %llu bytes of device memory\n",
			(unsigned long long)size);
		eng_gpu_hasher_close(h);
		return -1;
	}
	for (k = 0; !ret && k < 2; k++)
		if (kinds[k])
			ret = one_kind(b, eo, h, dev, size, (enum bench_kind)k, keep);
	b->ops->MemFree(dev);
	eng_gpu_hasher_close(h);
	return ret;
}
