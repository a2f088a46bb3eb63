// SPDX-License-Identifier: MIT
/*
 * test-engine-zero-skip: all-zero chunks are flagged, left as holes, never read back, and
 * restored by memset; on the build directory's filesystem (pwrite) and on tmpfs, where the
 * dump writes through a shared mapping of the file.
 */
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "engine-test.h"

#define K64 (64u << 10)

static struct cs_cuda_ops ops;
static struct et_dir d;

/* with map_tmpfs the dump must use the mapping exactly where the directory is a tmpfs */
static bool dir_is_tmpfs(int dirfd)
{
	struct statfs sfs;

	return !fstatfs(dirfd, &sfs) && sfs.f_type == TMPFS_MAGIC;
}

static uint64_t zero_hash(size_t len)
{
	void *z = calloc(1, len);
	uint64_t h = XXH3_64bits(z, len);

	free(z);
	return h;
}

static bool flags_as_expected(const struct cs_engine_region *r, enum et_pattern pat, uint64_t *nonzero_bytes)
{
	uint64_t i;

	*nonzero_bytes = 0;
	for (i = 0; i < r->nchunks; i++) {
		size_t len = r->size - i * K64 < K64 ? r->size - i * K64 : K64;
		bool zero = pat == ET_ZERO || (pat == ET_ZERO75 && i % 4);

		if (r->zero[i] != zero || (zero && r->hash[i] != zero_hash(len)))
			return false;
		if (!zero)
			*nonzero_bytes += len;
	}
	return true;
}

/* write garbage where a zero chunk's hole is: restore must not read it */
static void scribble_on_hole(const struct cs_engine_region *r)
{
	unsigned n = r->nstripes ? r->nstripes : 1; /* chunk 1 (zero) is in stripe 1 % n */
	const char *name = 1 % n ? r->stripe_name[1 % n] : r->name;
	int fd = openat(d.fd, name, O_WRONLY | O_CLOEXEC);
	char junk[100];

	memset(junk, 0x5a, sizeof(junk));
	if (fd < 0 || pwrite(fd, junk, sizeof(junk), (off_t)(1 / n) * K64 + 10) != sizeof(junk))
		tap_bail("cannot write into %s", name);
	close(fd);
}

static void one(const char *what, uint64_t size, enum et_pattern pat, bool skip)
{
	struct cs_engine_region r;
	struct cs_engine_opts o;
	struct fake_stats st;
	CUdeviceptr src, dst;
	uint64_t nonzero, disk, nz_chunks;
	int fds = et_count_fds(), ret;
	char err[512] = "";

	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.pinned_max = 8 * K64;
	o.skip_zero = skip;
	o.map_tmpfs = true; /* used where the directory is a tmpfs */
	src = et_dev(fake_ctx(0), size, pat, K64, 7);
	et_region(&r, src, size, fake_ctx(0), d.fd, "zero.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "%s: dump returns 0 (%d: %s)", what, ret, err);
	tap_ok(r.used_mapping == dir_is_tmpfs(d.fd), "%s: written %s", what,
	       r.used_mapping ? "through a shared mapping" : "with pwrite");
	tap_ok(flags_as_expected(&r, skip ? pat : ET_DENSE, &nonzero),
	       "%s: zero flags and hashes as expected", what);
	if (!skip)
		nonzero = size;
	tap_ok(r.stored_bytes == nonzero, "%s: stored_bytes %llu == non-zero bytes %llu", what,
	       (unsigned long long)r.stored_bytes, (unsigned long long)nonzero);
	disk = et_disk_bytes_region(d.fd, &r);
	tap_ok(skip ? disk <= nonzero + 2 * K64 : disk >= size - 4096,
	       "%s: blocks on disk %llu for %llu non-zero bytes (holes %s)", what, (unsigned long long)disk,
	       (unsigned long long)nonzero, skip ? "present" : "absent");
	if (skip && pat != ET_DENSE && size > 2 * K64)
		scribble_on_hole(&r);

	fake_cuda_init(&ops);
	dst = et_dev(fake_ctx(0), size, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "%s: restore returns 0 (%d: %s)", what, ret, err);
	tap_ok(!memcmp(fake_host(src), fake_host(dst), size), "%s: restored bytes equal the source", what);
	fake_get_stats(&st);
	nz_chunks = skip ? (pat == ET_ZERO ? 0 : (r.nchunks + 3) / 4) : r.nchunks;
	if (pat == ET_DENSE)
		nz_chunks = r.nchunks;
	tap_ok(st.calls[FAKE_HTOD] == nz_chunks && st.calls[FAKE_MEMSET] == r.nchunks - nz_chunks,
	       "%s: %lu H2D copies and %lu memsets (expected %llu and %llu)", what, st.calls[FAKE_HTOD],
	       st.calls[FAKE_MEMSET], (unsigned long long)nz_chunks,
	       (unsigned long long)(r.nchunks - nz_chunks));

	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(d.fd, r.name);
	et_check_clean(what, fds);
}

static void all_cases(const char *fs)
{
	char what[128];

#define ONE(name, size, pat, skip)                                                                           \
	snprintf(what, sizeof(what), "%s, %s", fs, name), one(what, size, pat, skip)
	ONE("75% zero, 64 chunks + tail", 64 * K64 + 1000, ET_ZERO75, true);
	ONE("75% zero, zero partial tail", 7 * K64 + 100, ET_ZERO75, true);
	ONE("all zero", 10 * K64 + 5, ET_ZERO, true);
	ONE("dense (nothing skipped)", 9 * K64, ET_DENSE, true);
	ONE("75% zero with skip_zero off", 16 * K64 + 3, ET_ZERO75, false);
	ONE("one zero byte", 1, ET_ZERO, true);
#undef ONE
}

#define CASES		6
#define CHECKS_PER_CASE 11

int main(void)
{
	int ret;

	tap_plan(2 * CASES * CHECKS_PER_CASE);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	all_cases("build dir");
	et_dir_remove(&d);

	ret = et_dir_make(&d, "tmpfs", "size=16m,mode=0700");
	if (ret) {
		tap_skip(CASES * CHECKS_PER_CASE, "cannot mount a tmpfs (needs root)");
		return tap_done();
	}
	all_cases("tmpfs");
	et_dir_remove(&d);
	return tap_done();
}
