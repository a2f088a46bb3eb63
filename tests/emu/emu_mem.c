// SPDX-License-Identifier: MIT
/*
 * emu_mem.c - emulated device memory of the application.
 *
 * Device d owns the virtual range [base(d), base(d) + capacity), reserved PROT_NONE at cuInit.
 * base(d) is the fixed address of the physical device ordinal d showed then (emu_dev_slot): a
 * process that sees physical device 5 as its ordinal 0 has its memory at device 5's range,
 * under device 5's UUID, and keeps that address when a restore moves it to another GPU.
 * Its memory is one memfd named "cudastore-emu:<UUID>", mapped MAP_SHARED at base(d) for
 * exactly the used extent (end of the highest live allocation, 2 MiB granular); the memfd fd
 * is closed right after mmap. The file is sized to the capacity (sparse), so growing the
 * extent is an in-place mremap of the mapping and shrinking punches the tail out.
 *
 * The allocation table lives in this library's static memory, so it is part of the process
 * image: it survives a checkpoint that removes the mappings and a CRIU dump/restore.
 * Checkpoint helpers (export/release/install/host_*) run on the driver thread while the
 * process is LOCKED, so no application call touches the memory meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_ops.h"
#include "emu.h"

struct dev_mem {
	size_t used;  /* bytes mapped at base */
	size_t saved; /* extent recorded at checkpoint, while the mapping is gone */
	void *host;   /* driver-managed checkpoint copy */
	int nalloc;
	struct {
		size_t off, size; /* size: rounded to EMU_ALIGN */
		size_t bytes;	  /* as requested: what pointer checks allow */
	} alloc[EMU_MAXALLOC]; /* sorted by offset */
};

static struct dev_mem mem[EMU_MAXDEV];
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;

uintptr_t emu_dev_base(int dev)
{
	return EMU_VA_BASE + (uintptr_t)emu_dev_slot(dev) * EMU_VA_STRIDE;
}

static void *dev_addr(int dev, size_t off)
{
	return (void *)(emu_dev_base(dev) + off);
}

/* (Re)reserve [off, off+len) of dev as PROT_NONE; this also unmaps memfd pages there. */
static int reserve_range(int dev, size_t off, size_t len, bool noreplace)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (noreplace ? MAP_FIXED_NOREPLACE : MAP_FIXED);
	void *p;

	if (!len)
		return 0;
	p = mmap(dev_addr(dev, off), len, PROT_NONE, flags, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (p != dev_addr(dev, off)) { /* pre-4.17 kernels ignore MAP_FIXED_NOREPLACE */
		munmap(p, len);
		return -EEXIST;
	}
	return 0;
}

int emu_mem_reserve(int dev)
{
	int ret = reserve_range(dev, 0, emu_dev_capacity(dev), true);

	if (ret)
		fprintf(stderr, "cudastore-emu[%d]: cannot reserve device %d range at %#lx (%zu bytes): %s\n",
			getpid(), dev, (unsigned long)emu_dev_base(dev), emu_dev_capacity(dev), strerror(-ret));
	return ret;
}

int emu_mem_recap(int dev, size_t old_cap)
{
	size_t cap = emu_dev_capacity(dev);

	return cap > old_cap ? reserve_range(dev, old_cap, cap - old_cap, true) : 0;
}

/* A fresh memfd named for the device's current UUID, sized to its capacity; fd or -errno. */
static int memfd_new(int dev)
{
	char name[64], uuid[CS_UUID_STRLEN];
	CUuuid u;
	int fd;

	emu_dev_uuid(dev, &u);
	cs_uuid_format(&u, uuid);
	snprintf(name, sizeof(name), "%s%s", EMU_MEMFD_PREFIX, uuid);
	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)emu_dev_capacity(dev))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int map_fd(int dev, int fd, size_t len)
{
	void *p = mmap(dev_addr(dev, 0), len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static int extent_grow(int dev, size_t want)
{
	struct dev_mem *m = &mem[dev];
	int fd, ret;
	void *p;

	if (!m->used) {
		fd = memfd_new(dev);
		if (fd < 0)
			return fd;
		ret = map_fd(dev, fd, want);
		close(fd);
		if (ret)
			return ret;
		m->used = want;
		return 0;
	}
	/* free the reserved tail, then let the memfd mapping grow into it in place */
	if (munmap(dev_addr(dev, m->used), want - m->used))
		return -errno;
	p = mremap(dev_addr(dev, 0), m->used, want, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		reserve_range(dev, m->used, want - m->used, false);
		return ret;
	}
	m->used = want;
	return 0;
}

static void extent_shrink(int dev, size_t want)
{
	struct dev_mem *m = &mem[dev];

	if (want >= m->used)
		return;
	madvise(dev_addr(dev, want), m->used - want, MADV_REMOVE);
	reserve_range(dev, want, m->used - want, false);
	m->used = want;
}

/* first fit; returns the insertion index and sets *off */
static int alloc_place(const struct dev_mem *m, size_t size, size_t *off)
{
	size_t pos = 0;
	int i;

	for (i = 0; i < m->nalloc; i++) {
		if (m->alloc[i].off - pos >= size)
			break;
		pos = m->alloc[i].off + m->alloc[i].size;
	}
	*off = pos;
	return i;
}

CUresult emu_mem_alloc(int dev, size_t bytes, CUdeviceptr *out)
{
	struct dev_mem *m = &mem[dev];
	size_t size = (bytes + EMU_ALIGN - 1) & ~(EMU_ALIGN - 1), off;
	CUresult res = CUDA_SUCCESS;
	int i;

	if (!bytes || size < bytes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&mem_lock);
	i = alloc_place(m, size, &off);
	if (m->nalloc == EMU_MAXALLOC || off + size > emu_dev_avail(dev) ||
	    (off + size > m->used && extent_grow(dev, off + size))) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	memmove(&m->alloc[i + 1], &m->alloc[i], (size_t)(m->nalloc - i) * sizeof(m->alloc[0]));
	m->alloc[i].off = off;
	m->alloc[i].size = size;
	m->alloc[i].bytes = bytes;
	m->nalloc++;
	*out = (CUdeviceptr)(uintptr_t)dev_addr(dev, off);
out:
	pthread_mutex_unlock(&mem_lock);
	return res;
}

static int ptr_dev(CUdeviceptr ptr)
{
	for (int dev = 0; dev < emu_ndev(); dev++)
		if (ptr >= emu_dev_base(dev) && ptr - emu_dev_base(dev) < EMU_VA_STRIDE)
			return dev;
	return -1;
}

CUresult emu_mem_free(CUdeviceptr ptr)
{
	int dev = ptr_dev(ptr), i;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	struct dev_mem *m;
	size_t off;

	if (dev < 0)
		return CUDA_ERROR_INVALID_VALUE;
	m = &mem[dev];
	off = ptr - emu_dev_base(dev);
	pthread_mutex_lock(&mem_lock);
	for (i = 0; i < m->nalloc; i++)
		if (m->alloc[i].off == off)
			break;
	if (i < m->nalloc && off < m->used) {
		memmove(&m->alloc[i], &m->alloc[i + 1], (size_t)(m->nalloc - i - 1) * sizeof(m->alloc[0]));
		m->nalloc--;
		extent_shrink(dev, m->nalloc ? m->alloc[m->nalloc - 1].off + m->alloc[m->nalloc - 1].size : 0);
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&mem_lock);
	return res;
}

size_t emu_mem_used(int dev)
{
	return mem[dev].used;
}

size_t emu_mem_saved(int dev)
{
	return mem[dev].saved;
}

static bool range_in_alloc(const struct dev_mem *m, size_t off, size_t len)
{
	for (int i = 0; i < m->nalloc; i++)
		if (off >= m->alloc[i].off && off + len <= m->alloc[i].off + m->alloc[i].bytes)
			return off + len <= m->used;
	return false;
}

void *emu_mem_resolve(CUdeviceptr ptr, size_t len, struct cs_op **pin)
{
	int dev = ptr_dev(ptr);
	bool ok = false;

	*pin = NULL;
	if (ptr + len < ptr)
		return NULL;
	if (dev >= 0) {
		pthread_mutex_lock(&mem_lock);
		ok = range_in_alloc(&mem[dev], ptr - emu_dev_base(dev), len);
		pthread_mutex_unlock(&mem_lock);
	}
	if (!ok && !(*pin = emu_op_pin(ptr, len)))
		return NULL;
	return (void *)(uintptr_t)ptr;
}

/* ---- checkpoint helpers (driver thread, process LOCKED) ---- */

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * An fd for the device's memfd, to pass to the caller. The fd was closed after mmap; reopen
 * the mapping through /proc/self/map_files (needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE).
 * Without it, move the contents to a new memfd and map that in place of the old one.
 */
int emu_mem_export_fd(int dev)
{
	struct dev_mem *m = &mem[dev];
	uintptr_t base = emu_dev_base(dev);
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)base,
		 (unsigned long)(base + m->used));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fd = memfd_new(dev);
	if (fd < 0)
		return fd;
	ret = write_all(fd, dev_addr(dev, 0), m->used);
	if (!ret)
		ret = map_fd(dev, fd, m->used);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int emu_mem_release(int dev)
{
	struct dev_mem *m = &mem[dev];
	int ret;

	if (!m->used)
		return 0;
	ret = reserve_range(dev, 0, m->used, false);
	if (ret)
		return ret;
	m->saved = m->used;
	m->used = 0;
	return 0;
}

int emu_mem_install(int dev, int fd)
{
	struct dev_mem *m = &mem[dev];
	struct stat st;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if ((size_t)st.st_size < m->saved)
		return -EINVAL;
	/* the app's invariant: its memfds are capacity-sized, so the extent can grow later */
	if ((size_t)st.st_size < emu_dev_capacity(dev) && ftruncate(fd, (off_t)emu_dev_capacity(dev)))
		return -errno;
	ret = map_fd(dev, fd, m->saved);
	if (ret)
		return ret;
	m->used = m->saved;
	m->saved = 0;
	return 0;
}

static void host_drop(void)
{
	for (int d = 0; d < emu_ndev(); d++)
		if (mem[d].host) {
			munmap(mem[d].host, mem[d].used ? mem[d].used : mem[d].saved);
			mem[d].host = NULL;
		}
}

/* driver-managed checkpoint: device memory -> anonymous host memory, mappings removed */
int emu_mem_host_save(void)
{
	int d;

	for (d = 0; d < emu_ndev(); d++) {
		struct dev_mem *m = &mem[d];

		if (!m->used)
			continue;
		m->host = mmap(NULL, m->used, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m->host == MAP_FAILED) {
			m->host = NULL;
			host_drop();
			return -ENOMEM;
		}
		memcpy(m->host, dev_addr(d, 0), m->used);
	}
	for (d = 0; d < emu_ndev(); d++)
		if (emu_mem_release(d))
			return -ENOMEM;
	return 0;
}

/* driver-managed restore: fresh memfds (named for the current UUIDs) filled from host memory */
int emu_mem_host_load(void)
{
	for (int d = 0; d < emu_ndev(); d++) {
		struct dev_mem *m = &mem[d];
		int fd, ret;

		if (!m->saved)
			continue;
		fd = memfd_new(d);
		if (fd < 0)
			return fd;
		ret = map_fd(d, fd, m->saved);
		close(fd);
		if (ret)
			return ret;
		memcpy(dev_addr(d, 0), m->host, m->saved);
		munmap(m->host, m->saved);
		m->host = NULL;
		m->used = m->saved;
		m->saved = 0;
	}
	return 0;
}
