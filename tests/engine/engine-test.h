/* SPDX-License-Identifier: MIT */
/*
 * engine-test.h - helpers shared by the engine's test programs: scratch directories (optionally
 * a filesystem mounted there), data patterns, regions on the fake device, leak checks.
 */
#ifndef CUDASTORE_TESTS_ENGINE_TEST_H
#define CUDASTORE_TESTS_ENGINE_TEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "fake-cuda.h"

struct et_dir {
	char path[PATH_MAX];
	int fd;
	bool mounted;
};

/* mkdtemp under the current directory; fstype != NULL: mount it there (root only). 0/-errno */
int et_dir_make(struct et_dir *d, const char *fstype, const char *mount_opts);
/* remove every file in it, unmount, rmdir */
void et_dir_remove(struct et_dir *d);

enum et_pattern { ET_DENSE, ET_ZERO75, ET_ZERO };
/* dense: pseudo-random bytes (seeded); zero75: block i (of block bytes) non-zero iff i % 4 == 0 */
void et_fill(void *p, size_t len, enum et_pattern pat, size_t block, uint64_t seed);

/* device buffer of ctx filled with pat; garbage-filled if pat < 0 */
CUdeviceptr et_dev(CUcontext ctx, size_t size, int pat, size_t block, uint64_t seed);
void et_region(struct cs_engine_region *r, CUdeviceptr ptr, uint64_t size, CUcontext ctx, int dirfd,
	       const char *name);

/* the engine's defaults with these four set */
struct cs_engine_opts et_opts(uint32_t chunk, unsigned threads, size_t pinned, bool direct);

int et_count_fds(void);
/* remove name and every stripe file of it (cs_name_stripe) */
void et_remove_extents(int dirfd, const char *name);
/* et_disk_bytes summed over the region's extent files, or UINT64_MAX */
uint64_t et_disk_bytes_region(int dirfd, const struct cs_engine_region *r);
/* st_blocks * 512 of name in dirfd, or UINT64_MAX */
uint64_t et_disk_bytes(int dirfd, const char *name);

/* the kernel runs the multi-gen LRU (/sys/kernel/mm/lru_gen/enabled non-zero): no active and
 * inactive lists, so no page waits for a promotion */
bool et_multigen_lru(void);
/* classic LRU and a readable /proc/kpageflags (root): the page flags below mean what they say */
bool et_page_flags_readable(void);
/* pages of dirfd/name that a first read(2) would promote (on an LRU list, referenced, inactive),
 * and how many were looked at; 0, or -1 when a page frame cannot be seen. Changes no flag. */
int et_count_promotable(int dirfd, const char *name, uint64_t *promotable, uint64_t *pages);
int et_count_promotable_region(int dirfd, const struct cs_engine_region *r, uint64_t *promotable,
			       uint64_t *pages);

#ifndef ET_NO_TAP /* the TAP counters live in the test program (tap.h is all static) */
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include "tap.h"

/* TAP checks: no pinned memory, streams, events or fds left, no fake-driver violations */
static inline void et_check_clean(const char *what, int fds_before)
{
	struct fake_stats st;

	fake_get_stats(&st);
	tap_ok(st.live_pinned == 0 && st.live_streams == 0 && st.live_events == 0,
	       "%s: everything freed (pinned %llu bytes, %ld streams, %ld events left)", what,
	       (unsigned long long)st.live_pinned, st.live_streams, st.live_events);
	tap_ok(et_count_fds() == fds_before, "%s: no file descriptor left open (%d before, %d after)", what,
	       fds_before, et_count_fds());
	tap_ok(st.violations == 0, "%s: no driver-rule violations (%lu; last: %s)", what, st.violations,
	       fake_last_violation());
}

/*
 * A directory on the build directory's filesystem when that is a disk: true. Otherwise it
 * skips nchecks TAP checks, saying why, and returns false (nothing left to remove).
 */
static inline bool et_disk_dir_make(struct et_dir *d, int nchecks)
{
	struct statfs sfs;

	if (et_dir_make(d, NULL, NULL)) {
		tap_skip(nchecks, "cannot make a directory here");
		return false;
	}
	if (!fstatfs(d->fd, &sfs) && (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)) {
		tap_skip(nchecks, "the build directory is on a memory filesystem: no disk here");
		et_dir_remove(d);
		return false;
	}
	return true;
}

/* TAP check: restore r into a fresh device buffer, returning 0, with src's bytes (r->ptr is src after) */
static inline void et_restore_equal(const struct cs_cuda_ops *ops, struct cs_engine_region *r,
				    const struct cs_engine_opts *o, CUdeviceptr src, const char *what)
{
	CUdeviceptr dst = et_dev(fake_ctx(0), r->size, -1, 0, 0);
	char err[512] = "";
	int ret;

	r->ptr = dst;
	ret = cs_engine_restore(ops, r, 1, o, err, sizeof(err));
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), r->size),
	       "%s: restore returns 0, bytes equal (%d: %s)", what, ret, err);
	r->ptr = src;
	fake_dev_free(dst);
}

/* TAP check that err contains needle1 (and needle2 when not NULL) */
static inline void et_check_msg(const char *err, const char *what, const char *needle1, const char *needle2)
{
	int ok = strstr(err, needle1) && (!needle2 || strstr(err, needle2));

	tap_ok(ok, "%s: message names '%s'%s%s: \"%s\"", what, needle1, needle2 ? " and " : "",
	       needle2 ? needle2 : "", err);
}
#endif

#endif /* CUDASTORE_TESTS_ENGINE_TEST_H */
