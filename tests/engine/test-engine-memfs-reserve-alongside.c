// SPDX-License-Identifier: MIT
/*
 * test-engine-memfs-reserve-alongside: on a memory filesystem the extent files are reserved
 * while the copy runs (fallocate there allocates every page: a pass over memory of its own), on
 * a disk before the first byte moves; zero chunks found before their file's reservation is done
 * still end up as holes; space taken by someone else after the up-front check still fails the
 * dump with "no space" and leaves nothing behind.
 *
 * fallocate and pwrite are wrapped here (the engine is linked into this program): each
 * allocating fallocate waits DELAY_MS and notes how many D2H copies the fake driver ran
 * meanwhile; an armed pwrite first lets another writer fill the filesystem.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "engine-test.h"
#include "imgdir.h"

#define K64	 (64u << 10)
#define DELAY_MS 150

static struct cs_cuda_ops ops;
static atomic_ulong d2h_during;	    /* most D2H copies run while one reservation call waited */
static atomic_int steal_dirfd = -1; /* >= 0: the copy's first write fills this directory first */

static unsigned long d2h_calls(void)
{
	struct fake_stats st;

	fake_get_stats(&st);
	return st.calls[FAKE_DTOH];
}

/* what another writer does: take every free byte of the filesystem */
static void steal_space(int dirfd)
{
	static char block[K64];
	int fd = openat(dirfd, "filler", O_WRONLY | O_CREAT | O_TRUNC, 0600);

	while (fd >= 0 && write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	if (fd >= 0)
		close(fd);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	static int (*real)(int, int, off_t, off_t);
	struct timespec ts = { 0, DELAY_MS * 1000000L };
	unsigned long before, ran;

	if (!real)
		real = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, "fallocate");
	if (mode)
		return real(fd, mode, off, len); /* hole punching: as it is */
	before = d2h_calls();
	nanosleep(&ts, NULL);
	ran = d2h_calls() - before;
	if (ran > atomic_load(&d2h_during))
		atomic_store(&d2h_during, ran);
	return real(fd, mode, off, len);
}

/* the copy's first write takes the space away first (steal_dirfd armed) */
ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	int sfd = atomic_exchange(&steal_dirfd, -1);

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	if (sfd >= 0)
		steal_space(sfd);
	return real(fd, buf, len, off);
}

static bool is_memfs(int dirfd)
{
	struct statfs sfs;

	return !fstatfs(dirfd, &sfs) && (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC);
}

/* dump size bytes of pat into dirfd, restore them, compare; nonzero: bytes of non-zero chunks */
static void roundtrip(const char *what, int dirfd, uint64_t size, enum et_pattern pat, bool memfs)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	struct cs_engine_region r;
	CUdeviceptr src, dst;
	char err[512] = "";
	uint64_t on_disk, nonzero = size / K64 / 4 * K64;
	int fds = et_count_fds(), ret;

	fake_cuda_init(&ops);
	atomic_store(&d2h_during, 0);
	src = et_dev(fake_ctx(0), size, pat, K64, 7);
	et_region(&r, src, size, fake_ctx(0), dirfd, "alongside.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && (r.nstripes > 1) == memfs, "%s: dump returns 0 in %u files (%d: %s)", what,
	       r.nstripes, ret, err);
	if (memfs)
		tap_ok(atomic_load(&d2h_during) > 0,
		       "%s: chunks were copied while the files were reserved (%lu)", what,
		       atomic_load(&d2h_during));
	else
		tap_ok(atomic_load(&d2h_during) == 0,
		       "%s: the files were reserved before the copy (%lu copies ran)", what,
		       atomic_load(&d2h_during));
	on_disk = et_disk_bytes_region(dirfd, &r);
	/* a disk may add a block of its own (extent tree); a hole-less zero chunk adds K64 */
	tap_ok(pat != ET_ZERO75 ||
		   (memfs ? on_disk == nonzero : on_disk >= nonzero && on_disk < nonzero + K64),
	       "%s: only the non-zero chunks hold blocks (%llu bytes, expected %llu)", what,
	       (unsigned long long)on_disk, (unsigned long long)nonzero);
	dst = et_dev(fake_ctx(0), size, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), size),
	       "%s: restore returns 0, bytes equal (%d: %s)", what, ret, err);
	cs_engine_region_free_meta(&r);
	et_remove_extents(dirfd, "alongside.ext");
	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean(what, fds);
}

/* the space is gone between the up-front check and the reservation (or the copy) */
static void space_taken(int dirfd)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	const char *what = "space taken during the dump";
	struct cs_engine_region r;
	CUdeviceptr src;
	char err[512] = "";
	int fds = et_count_fds(), ret;
	bool gone = true;
	unsigned k;

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), 2u << 20, ET_DENSE, K64, 3);
	et_region(&r, src, 2u << 20, fake_ctx(0), dirfd, "taken.ext");
	atomic_store(&steal_dirfd, dirfd);
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	atomic_store(&steal_dirfd, -1);
	tap_ok(ret == -ENOSPC, "%s: dump returns -ENOSPC (got %d)", what, ret);
	et_check_msg(err, what, "no space for extent taken.ext", "free");
	for (k = 0; k < CS_MAX_STRIPES; k++) {
		char name[CS_NAME_MAX];

		if (!cs_name_stripe(name, "taken.ext", k))
			gone &= faccessat(dirfd, name, F_OK, 0) && errno == ENOENT;
	}
	gone &= faccessat(dirfd, "taken.ext", F_OK, 0) && errno == ENOENT;
	tap_ok(gone && !r.hash && !r.zero, "%s: no partial extent, no chunk metadata left", what);
	unlinkat(dirfd, "filler", 0);
	fake_dev_free(src);
	et_check_clean(what, fds);
}

int main(void)
{
	struct et_dir t, disk;

	tap_plan(2 * 7 + 6);
	if (et_dir_make(&t, "tmpfs", "size=8m,mode=0700")) {
		tap_skip(7 + 6, "cannot mount a tmpfs (not root?)");
	} else {
		roundtrip("tmpfs, 75% zero", t.fd, 4u << 20, ET_ZERO75, true);
		space_taken(t.fd);
		et_dir_remove(&t);
	}
	if (et_dir_make(&disk, NULL, NULL)) {
		tap_skip(7, "cannot make a directory here");
	} else if (is_memfs(disk.fd)) {
		tap_skip(7, "the build directory is on a memory filesystem: no disk here");
		et_dir_remove(&disk);
	} else {
		roundtrip("build directory's filesystem, 75% zero", disk.fd, 4u << 20, ET_ZERO75, false);
		et_dir_remove(&disk);
	}
	return tap_done();
}
