// SPDX-License-Identifier: MIT
/*
 * test-engine-memfs-space-checked-not-reserved: on a memory filesystem the extent files are not
 * reserved (fallocate there allocates every page, a pass over memory the copy then waits
 * behind): the free space is checked before the first copy, zero chunks are holes without any
 * punching, and space taken by another writer during the copy still fails the dump with "no
 * space" and leaves nothing behind. On a disk every file is still reserved before the first copy.
 *
 * fallocate and pwrite are wrapped here (the engine is linked into this program): an allocating
 * fallocate is counted with the number of D2H copies the fake driver had run by then; an armed
 * pwrite first lets another writer fill the filesystem.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "engine-test.h"
#include "imgdir.h"

#define K64 (64u << 10)

static struct cs_cuda_ops ops;
static atomic_ulong reservations;    /* allocating fallocate calls */
static atomic_ulong d2h_before_last; /* D2H copies run before the last of them */
static atomic_int steal_dirfd = -1;  /* >= 0: the copy's first write fills this directory first */

static unsigned long d2h_calls(void)
{
	struct fake_stats st;

	fake_get_stats(&st);
	return st.calls[FAKE_DTOH];
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	static int (*real)(int, int, off_t, off_t);

	if (!real)
		real = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, "fallocate");
	if (!mode) {
		atomic_fetch_add(&reservations, 1);
		atomic_store(&d2h_before_last, d2h_calls());
	}
	return real(fd, mode, off, len);
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

/* dump 4 MiB of 75 %-zero data into dirfd, restore it, compare */
static void roundtrip(const char *what, int dirfd, bool memfs)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	uint64_t size = 4u << 20, on_disk, nonzero = size / 4;
	struct cs_engine_region r;
	CUdeviceptr src;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	fake_cuda_init(&ops);
	atomic_store(&reservations, 0);
	src = et_dev(fake_ctx(0), size, ET_ZERO75, K64, 7);
	et_region(&r, src, size, fake_ctx(0), dirfd, "checked.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && (r.nstripes > 1) == memfs, "%s: dump returns 0 in %u files (%d: %s)", what,
	       r.nstripes, ret, err);
	if (memfs)
		tap_ok(atomic_load(&reservations) == 0, "%s: no file was reserved (%lu fallocate calls)",
		       what, atomic_load(&reservations));
	else
		tap_ok(atomic_load(&reservations) > 0 && atomic_load(&d2h_before_last) == 0,
		       "%s: the files were reserved before the first copy (%lu calls, %lu copies before)",
		       what, atomic_load(&reservations), atomic_load(&d2h_before_last));
	/* a disk may add a block of its own (extent tree); a zero chunk that is no hole adds K64 */
	on_disk = et_disk_bytes_region(dirfd, &r);
	tap_ok(memfs ? on_disk == nonzero : on_disk >= nonzero && on_disk < nonzero + K64,
	       "%s: only the non-zero chunks hold blocks (%llu bytes, expected %llu)", what,
	       (unsigned long long)on_disk, (unsigned long long)nonzero);
	et_restore_equal(&ops, &r, &o, src, what);
	cs_engine_region_free_meta(&r);
	et_remove_extents(dirfd, "checked.ext");
	fake_dev_free(src);
	et_check_clean(what, fds);
}

static bool no_extent_left(int dirfd, const char *base)
{
	char name[CS_NAME_MAX];
	bool gone = true;
	unsigned k;

	for (k = 0; k < CS_MAX_STRIPES; k++) /* stripe 0 is base itself */
		if (!cs_name_stripe(name, base, k))
			gone &= faccessat(dirfd, name, F_OK, 0) && errno == ENOENT;
	return gone;
}

/* too big for what is free: refused before the first copy; or the space is taken meanwhile */
static void no_space(const char *what, int dirfd, uint64_t size, bool steal)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	struct cs_engine_region r;
	CUdeviceptr src;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), size, ET_DENSE, K64, 3);
	et_region(&r, src, size, fake_ctx(0), dirfd, "nospace.ext");
	atomic_store(&steal_dirfd, steal ? dirfd : -1);
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	atomic_store(&steal_dirfd, -1);
	tap_ok(ret == -ENOSPC && (steal || d2h_calls() == 0),
	       "%s: dump returns -ENOSPC (got %d) after %lu copies", what, ret, d2h_calls());
	et_check_msg(err, what, "no space for extent nospace.ext", "free");
	tap_ok(no_extent_left(dirfd, "nospace.ext") && !r.hash && !r.zero,
	       "%s: no partial extent, no chunk metadata left", what);
	unlinkat(dirfd, "filler", 0);
	fake_dev_free(src);
	et_check_clean(what, fds);
}

int main(void)
{
	struct et_dir t, disk;

	tap_plan(2 * 7 + 2 * 6);
	if (et_dir_make(&t, "tmpfs", "size=8m,mode=0700")) {
		tap_skip(7 + 2 * 6, "cannot mount a tmpfs (not root?)");
	} else {
		roundtrip("tmpfs, 75% zero", t.fd, true);
		no_space("tmpfs, 9 MiB into 8 MiB", t.fd, 9u << 20, false);
		no_space("tmpfs, space taken during the copy", t.fd, 2u << 20, true);
		et_dir_remove(&t);
	}
	if (et_disk_dir_make(&disk, 7)) {
		roundtrip("build directory's filesystem, 75% zero", disk.fd, false);
		et_dir_remove(&disk);
	}
	return tap_done();
}
