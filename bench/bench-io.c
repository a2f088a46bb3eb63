// SPDX-License-Identifier: MIT
/*
 * bench-io.c - the storage limit: the same number of threads as the engine write (then
 * fdatasync) and read a scratch file in chunk-sized blocks, O_DIRECT unless --no-direct. On
 * tmpfs with --tmpfs-map the writers copy into a shared mapping of the reserved file with
 * process_vm_writev, by the engine's own copy (eng_copy_to_mapping).
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
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "engine_priv.h"

#define RAW_NAME "cs-bench-raw.tmp"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

struct raw {
	int fd;
	char *map; /* tmpfs write through a shared mapping, or NULL */
	bool write;
	uint64_t size, chunk;
	atomic_uint_fast64_t next;
	atomic_int err;
};

static void *raw_worker(void *arg)
{
	struct raw *w = arg;
	uint64_t i, off, len;
	char *buf = NULL;
	ssize_t n;

	if (posix_memalign((void **)&buf, 4096, w->chunk)) {
		atomic_store(&w->err, ENOMEM);
		return NULL;
	}
	for (i = 0; i < w->chunk / 8; i++)
		((uint64_t *)buf)[i] = i * 0x9e3779b97f4a7c15ull + 1;
	while (!atomic_load(&w->err)) {
		off = atomic_fetch_add(&w->next, 1) * w->chunk;
		if (off >= w->size)
			break;
		len = w->size - off < w->chunk ? w->size - off : w->chunk;
		if (w->map) {
			int ret = eng_copy_to_mapping(w->map + off, buf, len);

			if (ret)
				atomic_store(&w->err, -ret);
			continue;
		}
		len = (len + 4095) & ~4095ull;
		n = w->write ? pwrite(w->fd, buf, len, (off_t)off) : pread(w->fd, buf, len, (off_t)off);
		if (n < 0 || (w->write && (uint64_t)n != len))
			atomic_store(&w->err, n < 0 ? errno : EIO);
	}
	free(buf);
	return NULL;
}

static int raw_pass(const struct bench *b, int fd, uint64_t size, bool write, double *gbps)
{
	struct raw w = {.fd = fd, .write = write, .size = size, .chunk = b->chunk};
	pthread_t tids[64];
	unsigned want = write ? b->threads : b->read_threads, i, n = want < 64 ? want : 64;
	double t0 = bench_now();

	/* as the engine: reserve, then map (timed, since the engine's dump pays for both too) */
	if (write && b->map_tmpfs && !bench_dir_is_disk(b->dirfd) && size &&
	    !fallocate(fd, 0, 0, (off_t)size)) {
		w.map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (w.map == MAP_FAILED)
			w.map = NULL;
	}

	for (i = 0; i < n; i++)
		if (pthread_create(&tids[i], NULL, raw_worker, &w))
			break;
	n = i;
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	if (w.map)
		munmap(w.map, size);
	if (write && fdatasync(fd))
		atomic_store(&w.err, errno);
	if (atomic_load(&w.err)) {
		fprintf(stderr, "cs-bench: raw %s of %s/%s failed: %s\n", write ? "write" : "read", b->dir,
			RAW_NAME, strerror(atomic_load(&w.err)));
		return -1;
	}
	*gbps = (double)size / (bench_now() - t0) / 1e9;
	return 0;
}

int bench_storage(const struct bench *b, uint64_t size, bool drop, double *write_gbps, double *read_gbps)
{
	bool direct;
	int fd, ret;

	/*
	 * A memory filesystem's first write also pays for fresh memory (in a VM: the hypervisor
	 * backing never-touched guest pages), which the engine's dump later reuses; an untimed
	 * first pass keeps that cost out of the limit. Disks: no warm-up, the file is cold anyway.
	 */
	if (!bench_dir_is_disk(b->dirfd)) {
		fd = bench_open(b, RAW_NAME, true, &direct);
		if (fd < 0 || raw_pass(b, fd, size, true, write_gbps))
			ret = -1;
		else
			ret = 0;
		if (fd >= 0)
			close(fd);
		unlinkat(b->dirfd, RAW_NAME, 0);
		if (ret)
			return ret;
	}
	fd = bench_open(b, RAW_NAME, true, &direct);
	if (fd < 0)
		return -1;
	ret = raw_pass(b, fd, size, true, write_gbps);
	close(fd);
	if (!ret && drop)
		bench_drop_caches();
	if (!ret) {
		fd = bench_open(b, RAW_NAME, false, &direct);
		ret = fd < 0 ? -1 : raw_pass(b, fd, size, false, read_gbps);
		if (fd >= 0)
			close(fd);
	}
	unlinkat(b->dirfd, RAW_NAME, 0);
	return ret;
}
