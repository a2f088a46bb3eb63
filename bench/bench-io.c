// SPDX-License-Identifier: MIT
/*
 * bench-io.c - the storage limit: the same number of threads as the engine write (then
 * fdatasync) and read scratch files in chunk-sized blocks, O_DIRECT unless --no-direct, laid out
 * over as many files as the engine's stripes (chunk i in file i % files). On
 * tmpfs with --tmpfs-map the writers copy into a shared mapping of the reserved file with
 * process_vm_writev, by the engine's own copy (eng_copy_to_mapping). For --procs the same runs
 * as N copies at once, each with its own files and threads, timed together.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bench.h"
#include "engine_priv.h"

#define RAW_NAME  "cs-bench-raw%u.%u.tmp" /* copy, file */
#define RAW_FILES 32

bool bench_dir_is_disk(int dirfd)
{
	struct statfs sf;

	if (fstatfs(dirfd, &sf))
		return true;
	return sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC;
}

bool bench_drop_caches(void)
{
	int fd;
	bool ok;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, "3\n", 2) == 2;
	close(fd);
	return ok;
}

int bench_open(const struct bench *b, const char *name, bool create, bool *direct)
{
	int flags = create ? O_CREAT | O_TRUNC | O_RDWR : O_RDONLY;
	int fd = -1;

	*direct = false;
	flags |= O_CLOEXEC | O_NOFOLLOW;
	if (b->direct) {
		fd = openat(b->dirfd, name, flags | O_DIRECT, 0600);
		*direct = fd >= 0;
	}
	if (fd < 0)
		fd = openat(b->dirfd, name, flags, 0600);
	if (fd < 0)
		fprintf(stderr, "cs-bench: cannot open %s/%s: %s\n", b->dir, name, strerror(errno));
	return fd;
}

/* one copy's scratch files and work counter */
struct raw {
	unsigned copy; /* index among the copies that run at once (file names) */
	int fd[RAW_FILES];
	char *map[RAW_FILES]; /* tmpfs write through shared mappings, or NULL */
	unsigned nfiles;
	bool write;
	uint64_t size, chunk;
	uint64_t piece; /* bytes per read(): chunk, or RAW_PIECE */
	atomic_uint_fast64_t next;
	atomic_int err;
};

/* one worker: its buffer, allocated and touched before the timed part (as the engine's pool) */
struct raw_thread {
	struct raw *w;
	char *buf;
	pthread_t tid;
};

static void *raw_worker(void *arg)
{
	struct raw_thread *t = arg;
	struct raw *w = t->w;
	uint64_t idx, off, len;
	char *buf = t->buf;
	unsigned f;
	ssize_t n;

	while (!atomic_load(&w->err)) {
		idx = atomic_fetch_add(&w->next, 1);
		if (idx * w->chunk >= w->size)
			break;
		len = w->size - idx * w->chunk < w->chunk ? w->size - idx * w->chunk : w->chunk;
		f = (unsigned)(idx % w->nfiles);
		off = idx / w->nfiles * w->chunk;
		if (w->map[f]) {
			int ret = eng_copy_to_mapping(w->map[f] + off, buf, len);

			if (ret)
				atomic_store(&w->err, -ret);
			continue;
		}
		len = (len + 4095) & ~4095ull;
		if (w->write) {
			n = pwrite(w->fd[f], buf, len, (off_t)off);
			if (n < 0 || (uint64_t)n != len)
				atomic_store(&w->err, n < 0 ? errno : EIO);
			continue;
		}
		for (uint64_t done = 0; done < len; done += w->piece) {
			uint64_t p = len - done < w->piece ? len - done : w->piece;

			n = pread(w->fd[f], buf + done, p, (off_t)(off + done));
			if (n < 0) {
				atomic_store(&w->err, errno);
				break;
			}
			if ((uint64_t)n < p)
				break; /* end of file */
		}
	}
	return NULL;
}

/* n page-aligned chunk buffers, every page written: page faults stay out of the timed part */
static unsigned raw_buffers(struct raw_thread *t, unsigned n, struct raw *w, uint64_t chunk)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		t[i].w = w;
		if (posix_memalign((void **)&t[i].buf, 4096, chunk))
			break;
		for (uint64_t k = 0; k < chunk / 8; k++)
			((uint64_t *)t[i].buf)[k] = k * 0x9e3779b97f4a7c15ull + 1;
	}
	return i;
}

static void raw_name(char *out, size_t len, const struct raw *w, unsigned k)
{
	snprintf(out, len, RAW_NAME, w->copy, k);
}

/* reset the copy's counter; on tmpfs with map_tmpfs reserve and map its files, as the engine */
static void raw_prepare(const struct bench *b, struct raw *w, uint64_t size, bool write)
{
	unsigned i;

	atomic_store(&w->next, 0);
	atomic_store(&w->err, 0);
	w->write = write;
	w->size = size;
	w->chunk = b->chunk;
	if (!w->piece || w->piece > w->chunk)
		w->piece = w->chunk;
	for (i = 0; i < w->nfiles; i++) {
		uint64_t fsize = cs_stripe_size(size, b->chunk, w->nfiles, i);

		w->map[i] = NULL;
		if (write && b->map_tmpfs && !bench_dir_is_disk(b->dirfd) && fsize &&
		    !fallocate(w->fd[i], 0, 0, (off_t)fsize)) {
			w->map[i] = mmap(NULL, fsize, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd[i], 0);
			if (w->map[i] == MAP_FAILED)
				w->map[i] = NULL;
		}
	}
}

/* unmap, fdatasync after a write; 0 or -1 with a message naming the copy's first file */
static int raw_finish(const struct bench *b, struct raw *w, uint64_t size)
{
	char name[64];
	unsigned i;

	for (i = 0; i < w->nfiles; i++) {
		if (w->map[i])
			munmap(w->map[i], cs_stripe_size(size, b->chunk, w->nfiles, i));
		w->map[i] = NULL;
		if (w->write && fdatasync(w->fd[i]))
			atomic_store(&w->err, errno);
	}
	if (!atomic_load(&w->err))
		return 0;
	raw_name(name, sizeof(name), w, 0);
	fprintf(stderr, "cs-bench: raw %s of %s/%s (and %u more) failed: %s\n", w->write ? "write" : "read",
		b->dir, name, w->nfiles - 1, strerror(atomic_load(&w->err)));
	return -1;
}

static void raw_run(struct raw_thread *t, unsigned n)
{
	unsigned i, j;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i].tid, NULL, raw_worker, &t[i]))
			break;
	for (j = 0; j < i; j++)
		pthread_join(t[j].tid, NULL);
}

/*
 * nw copies at once, each of size bytes with its own threads (b->threads writers or
 * b->read_threads readers, at most 64 per copy); *gbps over all nw * size bytes.
 */
static int raw_pass(const struct bench *b, struct raw *ws, unsigned nw, uint64_t size, bool write,
		    double *gbps)
{
	unsigned want = write ? b->threads : b->read_threads, per = want < 64 ? want : 64;
	struct raw_thread *t = calloc((size_t)nw * per, sizeof(*t));
	unsigned i, n = 0;
	int ret = 0;
	double t0;

	for (i = 0; t && i < nw && n == i * per; i++)
		n += raw_buffers(t + i * per, per, &ws[i], b->chunk);
	if (!t || n < nw * per) {
		fprintf(stderr, "cs-bench: raw %s: out of memory\n", write ? "write" : "read");
		ret = -1;
		goto out;
	}
	t0 = cs_now();
	/* reserve and map inside the timer: the engine's dump pays for both too */
	for (i = 0; i < nw; i++)
		raw_prepare(b, &ws[i], size, write);
	raw_run(t, n);
	for (i = 0; i < nw; i++)
		if (raw_finish(b, &ws[i], size))
			ret = -1;
	if (!ret)
		*gbps = (double)size * nw / (cs_now() - t0) / 1e9;
out:
	for (i = 0; t && i < nw * per; i++)
		free(t[i].buf);
	free(t);
	return ret;
}

static void raw_close(const struct bench *b, struct raw *w, bool unlink)
{
	char name[64];
	unsigned i;

	for (i = 0; i < w->nfiles; i++) {
		if (w->fd[i] >= 0)
			close(w->fd[i]);
		w->fd[i] = -1;
		raw_name(name, sizeof(name), w, i);
		if (unlink)
			unlinkat(b->dirfd, name, 0);
	}
}

static int raw_open(const struct bench *b, struct raw *w, bool create)
{
	bool direct;
	char name[64];
	unsigned i;

	w->nfiles = b->files ? (b->files < RAW_FILES ? b->files : RAW_FILES) : 1;
	for (i = 0; i < w->nfiles; i++)
		w->fd[i] = -1;
	for (i = 0; i < w->nfiles; i++) {
		raw_name(name, sizeof(name), w, i);
		w->fd[i] = bench_open(b, name, create, &direct);
		if (w->fd[i] < 0) {
			raw_close(b, w, true);
			return -1;
		}
	}
	return 0;
}

static void raw_close_all(const struct bench *b, struct raw *ws, unsigned nw, bool unlink)
{
	unsigned i;

	for (i = 0; i < nw; i++)
		raw_close(b, &ws[i], unlink);
}

static int raw_open_all(const struct bench *b, struct raw *ws, unsigned nw, bool create)
{
	unsigned i;

	for (i = 0; i < nw; i++) {
		ws[i].copy = i;
		if (raw_open(b, &ws[i], create)) {
			raw_close_all(b, ws, i, true);
			return -1;
		}
	}
	return 0;
}

/* the read twice, chunk-sized and in the engine's buffered pieces: the faster is the limit */
static int raw_reads(const struct bench *b, struct raw *ws, unsigned nw, uint64_t size, bool drop,
		     double *read_gbps, double *read_piece_gbps, double *read_first_gbps)
{
	double piece_gbps = 0;
	unsigned i;
	int ret;

	ret = raw_pass(b, ws, nw, size, false, read_gbps);
	if (ret)
		return ret;
	if (read_first_gbps)
		*read_first_gbps = *read_gbps;
	if (drop)
		bench_drop_caches();
	for (i = 0; i < nw; i++)
		ws[i].piece = RAW_PIECE;
	ret = raw_pass(b, ws, nw, size, false, &piece_gbps);
	for (i = 0; i < nw; i++)
		ws[i].piece = 0;
	if (ret)
		return ret;
	if (read_piece_gbps)
		*read_piece_gbps = piece_gbps;
	if (piece_gbps > *read_gbps)
		*read_gbps = piece_gbps;
	return 0;
}

int bench_storage_procs(const struct bench *b, unsigned nprocs, uint64_t size, bool drop, double *write_gbps,
			double *read_gbps, double *read_piece_gbps, double *read_first_gbps)
{
	struct raw *ws = calloc(nprocs, sizeof(*ws));
	int ret;

	if (!ws)
		return -1;
	/*
	 * A memory filesystem's first write also pays for fresh memory (in a VM: the hypervisor
	 * backing never-touched guest pages), which the engine's dump later reuses; an untimed
	 * first pass keeps that cost out of the limit. Disks: no warm-up, the file is cold anyway.
	 */
	if (!bench_dir_is_disk(b->dirfd)) {
		ret =
		    raw_open_all(b, ws, nprocs, true) ? -1 : raw_pass(b, ws, nprocs, size, true, write_gbps);
		raw_close_all(b, ws, nprocs, true);
		if (ret)
			goto out;
	}
	ret = raw_open_all(b, ws, nprocs, true);
	if (ret)
		goto out;
	ret = raw_pass(b, ws, nprocs, size, true, write_gbps);
	raw_close_all(b, ws, nprocs, false);
	if (!ret && drop)
		bench_drop_caches();
	if (!ret) {
		ret = raw_open_all(b, ws, nprocs, false);
		if (!ret)
			ret = raw_reads(b, ws, nprocs, size, drop, read_gbps, read_piece_gbps, read_first_gbps);
	}
	raw_close_all(b, ws, nprocs, true);
out:
	free(ws);
	return ret;
}

int bench_storage(const struct bench *b, uint64_t size, bool drop, double *write_gbps, double *read_gbps,
		  double *read_piece_gbps, double *read_first_gbps)
{
	return bench_storage_procs(b, 1, size, drop, write_gbps, read_gbps, read_piece_gbps, read_first_gbps);
}
