// SPDX-License-Identifier: MIT
/* engine-test.c - helpers for the engine's test programs (see engine-test.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
