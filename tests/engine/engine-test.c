// SPDX-License-Identifier: MIT
/* engine-test.c - helpers for the engine's test programs (see engine-test.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define ET_NO_TAP
#include "engine-test.h"

int et_dir_make(struct et_dir *d, const char *fstype, const char *mount_opts)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	snprintf(d->path, sizeof(d->path), "engine-tmp-XXXXXX");
	if (!mkdtemp(d->path))
		return -errno;
	if (fstype) {
		if (mount("cudastore-test", d->path, fstype, 0, mount_opts)) {
			ret = -errno;
			rmdir(d->path);
			return ret;
		}
		d->mounted = true;
	}
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0) {
		ret = -errno;
		et_dir_remove(d);
		return ret;
	}
	return 0;
}

void et_dir_remove(struct et_dir *d)
{
	struct dirent *de;
	DIR *dir;

	if (d->fd >= 0) {
		dir = fdopendir(dup(d->fd));
		while (dir && (de = readdir(dir)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(d->fd, de->d_name, 0);
		if (dir)
			closedir(dir);
		close(d->fd);
		d->fd = -1;
	}
	if (d->mounted)
		umount2(d->path, MNT_DETACH);
	d->mounted = false;
	rmdir(d->path);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_random(unsigned char *p, size_t len, uint64_t seed)
{
	uint64_t s = seed, v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = splitmix(&s) | 1; /* never an all-zero word: dense data is never "zero" */
		memcpy(p + i, &v, 8);
	}
	v = splitmix(&s) | 0x0101010101010101ull;
	memcpy(p + i, &v, len - i);
}

void et_fill(void *p, size_t len, enum et_pattern pat, size_t block, uint64_t seed)
{
	size_t off, n;

	switch (pat) {
	case ET_DENSE:
		fill_random(p, len, seed);
		break;
	case ET_ZERO:
		memset(p, 0, len);
		break;
	case ET_ZERO75:
		for (off = 0; off < len; off += block) {
			n = len - off < block ? len - off : block;
			if ((off / block) % 4 == 0)
				fill_random((unsigned char *)p + off, n, seed + off);
			else
				memset((unsigned char *)p + off, 0, n);
		}
		break;
	}
}

CUdeviceptr et_dev(CUcontext ctx, size_t size, int pat, size_t block, uint64_t seed)
{
	CUdeviceptr d = fake_dev_alloc(ctx, size);

	if (!d) {
		printf("Bail out! cannot allocate %zu fake device bytes\n", size);
		exit(99);
	}
	if (pat < 0)
		memset(fake_host(d), 0xa5, size);
	else
		et_fill(fake_host(d), size, (enum et_pattern)pat, block, seed);
	return d;
}

void et_region(struct cs_engine_region *r, CUdeviceptr ptr, uint64_t size, CUcontext ctx, int dirfd,
	       const char *name)
{
	memset(r, 0, sizeof(*r));
	r->ptr = ptr;
	r->size = size;
	r->ctx = ctx;
	r->dirfd = dirfd;
	r->name = name;
}

struct cs_engine_opts et_opts(uint32_t chunk, unsigned threads, size_t pinned, bool direct)
{
	struct cs_engine_opts o;

	cs_engine_opts_default(&o);
	o.chunk_size = chunk;
	o.threads = threads;
	o.pinned_max = pinned;
	o.direct_io = direct;
	return o;
}

int et_count_fds(void)
{
	struct dirent *de;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	while (dir && (de = readdir(dir)))
		n += de->d_name[0] != '.';
	if (dir)
		closedir(dir);
	return n;
}

uint64_t et_disk_bytes(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, 0))
		return UINT64_MAX;
	return (uint64_t)st.st_blocks * 512;
}

void et_remove_extents(int dirfd, const char *name)
{
	char sname[CS_NAME_MAX];
	unsigned k;

	for (k = 0; k < CS_MAX_STRIPES; k++)
		if (!cs_name_stripe(sname, name, k))
			unlinkat(dirfd, sname, 0);
}

uint64_t et_disk_bytes_region(int dirfd, const struct cs_engine_region *r)
{
	unsigned k, n = r->nstripes ? r->nstripes : 1;
	uint64_t sum = 0, b;

	for (k = 0; k < n; k++) {
		b = et_disk_bytes(dirfd, k ? r->stripe_name[k] : r->name);
		if (b == UINT64_MAX)
			return b;
		sum += b;
	}
	return sum;
}

bool et_multigen_lru(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/kernel/mm/lru_gen/enabled", "r");
	bool on = false;

	if (f) {
		on = fgets(buf, sizeof(buf), f) && strtoul(buf, NULL, 16) != 0;
		fclose(f);
	}
	return on;
}

/* classic LRU and a readable /proc/kpageflags (root): the page flags below mean what they say */
bool et_page_flags_readable(void)
{
	int fd = open("/proc/kpageflags", O_RDONLY);

	if (fd >= 0)
		close(fd);
	return !et_multigen_lru() && fd >= 0 && geteuid() == 0;
}

#define KPF_REFERENCED 2
#define KPF_LRU	       5
#define KPF_ACTIVE     6

/*
 * The pages of file dirfd/name that a first read(2) would promote (on an LRU list, referenced,
 * inactive), and how many pages were looked at. The file is mapped sequential and each page
 * touched by a plain load, which leaves these flags alone (a fault does not mark a page
 * accessed, and dropping a sequential mapping does not either).
 */
int et_count_promotable(int dirfd, const char *name, uint64_t *promotable, uint64_t *pages)
{
	int fd = openat(dirfd, name, O_RDONLY), pm = open("/proc/self/pagemap", O_RDONLY),
	    kf = open("/proc/kpageflags", O_RDONLY), ret = -1;
	long psz = sysconf(_SC_PAGESIZE);
	struct stat st;
	void *map = MAP_FAILED;
	uint64_t i;

	*promotable = *pages = 0;
	if (fd < 0 || pm < 0 || kf < 0 || fstat(fd, &st) || !st.st_size)
		goto out;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	for (i = 0; i < (uint64_t)st.st_size / (uint64_t)psz; i++) {
		volatile const char *p = (const char *)map + i * (uint64_t)psz;
		uint64_t ent, flags;

		(void)*p;
		if (pread(pm, &ent, sizeof(ent), (off_t)(((uintptr_t)p / (uintptr_t)psz) * sizeof(ent))) !=
			(ssize_t)sizeof(ent) ||
		    !(ent >> 63) || !(ent & ((1ull << 55) - 1)))
			goto out; /* not present, or no PFN shown */
		if (pread(kf, &flags, sizeof(flags), (off_t)((ent & ((1ull << 55) - 1)) * sizeof(flags))) !=
		    (ssize_t)sizeof(flags))
			goto out;
		(*pages)++;
		if ((flags >> KPF_LRU & 1) && (flags >> KPF_REFERENCED & 1) && !(flags >> KPF_ACTIVE & 1))
			(*promotable)++;
	}
	ret = 0;
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return ret;
}

/* et_count_promotable summed over the region's extent files */
int et_count_promotable_region(int dirfd, const struct cs_engine_region *r, uint64_t *promotable,
			       uint64_t *pages)
{
	unsigned k, n = r->nstripes ? r->nstripes : 1;
	uint64_t a, b;

	*promotable = *pages = 0;
	for (k = 0; k < n; k++) {
		if (et_count_promotable(dirfd, k ? r->stripe_name[k] : r->name, &a, &b))
			return -1;
		*promotable += a;
		*pages += b;
	}
	return 0;
}
