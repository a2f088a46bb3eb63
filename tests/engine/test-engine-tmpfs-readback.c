// SPDX-License-Identifier: MIT
/*
 * test-engine-tmpfs-readback: with tmpfs_readback a dump into a memory filesystem reads every
 * step it wrote back at once, on the same thread, and nothing else; without the option, or on
 * a disk, the dump reads nothing. The kernel's side is checked too, where /proc/kpageflags can
 * be read (root, classic LRU): without the option the extent's pages are left referenced on the
 * inactive list, so the first restore's read promotes every one of them; with it, almost none
 * is left so, and none on a disk either way. The restore returns the same bytes either way.
 *
 * pwrite and pread are wrapped here (the engine is linked into this program): each thread
 * remembers its last pwrite; a pread of exactly that range by the same thread is a read-back.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "engine-test.h"
#include "imgdir.h"

#define K64 (64u << 10)

static struct cs_cuda_ops ops;
static atomic_ullong written, read_back, read_other; /* bytes, while counting */
static atomic_bool counting;
static _Thread_local struct {
	int fd;
	off_t off;
	size_t len;
} last_write = { -1, 0, 0 };

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	ssize_t n;

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	n = real(fd, buf, len, off);
	if (atomic_load(&counting) && n > 0) {
		atomic_fetch_add(&written, (unsigned long long)n);
		last_write.fd = fd;
		last_write.off = off;
		last_write.len = (size_t)n;
	}
	return n;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	ssize_t n;

	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	n = real(fd, buf, len, off);
	if (atomic_load(&counting) && n > 0) {
		bool back = fd == last_write.fd && off == last_write.off && len == last_write.len;

		atomic_fetch_add(back ? &read_back : &read_other, (unsigned long long)n);
		last_write.fd = -1;
	}
	return n;
}

/* dump 8 MiB of dense data into dirfd (with or without the option), check what was read, restore */
static void dump_case(const char *what, int dirfd, bool readback, bool memfs)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	uint64_t size = 8u << 20, promotable = 0, pages = 0;
	struct cs_engine_region r;
	CUdeviceptr src;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	o.tmpfs_readback = readback;
	o.stripes = 1; /* one file for the page flags below */
	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), size, ET_DENSE, K64, 11);
	et_region(&r, src, size, fake_ctx(0), dirfd, "readback.ext");
	atomic_store(&written, 0);
	atomic_store(&read_back, 0);
	atomic_store(&read_other, 0);
	atomic_store(&counting, true);
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	atomic_store(&counting, false);
	tap_ok(ret == 0, "%s: dump returns 0 (%d: %s)", what, ret, err);
	if (readback && memfs)
		tap_ok(atomic_load(&written) == size && atomic_load(&read_back) == size &&
			   atomic_load(&read_other) == 0,
		       "%s: every byte written was read back at once by its writer, nothing else read "
		       "(%llu written, %llu read back, %llu other)",
		       what, atomic_load(&written), atomic_load(&read_back), atomic_load(&read_other));
	else
		tap_ok(atomic_load(&written) == size &&
			   atomic_load(&read_back) + atomic_load(&read_other) == 0,
		       "%s: the dump wrote every byte and read none (%llu written, %llu read)", what,
		       atomic_load(&written), atomic_load(&read_back) + atomic_load(&read_other));
	if (!et_page_flags_readable()) {
		tap_skip(1, "page flags: /proc/kpageflags not readable, or multi-gen LRU on");
	} else if (et_count_promotable(dirfd, "readback.ext", &promotable, &pages) || !pages) {
		tap_skip(1, "page flags: this kernel shows no page frame numbers");
	} else if (readback || !memfs) {
		tap_ok(promotable * 10 < pages,
		       "%s: under a tenth of the pages left for the first read to promote (%llu of %llu)",
		       what, (unsigned long long)promotable, (unsigned long long)pages);
	} else {
		tap_ok(promotable * 10 > pages * 9,
		       "%s: without it, the first read would promote nearly every page (%llu of %llu)", what,
		       (unsigned long long)promotable, (unsigned long long)pages);
	}
	et_restore_equal(&ops, &r, &o, src, what);
	cs_engine_region_free_meta(&r);
	et_remove_extents(dirfd, "readback.ext");
	fake_dev_free(src);
	et_check_clean(what, fds);
}

int main(void)
{
	struct et_dir t, disk;

	tap_plan(3 * 7);
	if (et_dir_make(&t, "tmpfs", "size=32m,mode=0700")) {
		tap_skip(2 * 7, "cannot mount a tmpfs (not root?)");
	} else {
		dump_case("tmpfs, readback off", t.fd, false, true);
		dump_case("tmpfs, readback on", t.fd, true, true);
		et_dir_remove(&t);
	}
	if (et_disk_dir_make(&disk, 7)) {
		dump_case("build directory's filesystem, readback on", disk.fd, true, false);
		et_dir_remove(&disk);
	}
	return tap_done();
}
