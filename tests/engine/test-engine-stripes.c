// SPDX-License-Identifier: MIT
/*
 * test-engine-stripes: an extent striped over several files (chunk i in file i % n at offset
 * (i / n) * chunk): names, sizes, 0600, the bytes of each file, a byte-exact restore, auto
 * striping on a tmpfs, a missing or short stripe refused by name, a failed dump leaves no file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-test.h"

#define K64 (64u << 10)

static struct cs_cuda_ops ops;
static struct et_dir d;

static void names(void)
{
	char out[CS_NAME_MAX];
	char longname[CS_NAME_MAX];
	uint64_t sum = 0;

	tap_ok(!cs_name_stripe(out, "cudastore-7-gpu0.ext", 0) && !strcmp(out, "cudastore-7-gpu0.ext"),
	       "stripe 0 is the extent itself (%s)", out);
	tap_ok(!cs_name_stripe(out, "cudastore-7-gpu0.ext", 12) && !strcmp(out, "cudastore-7-gpu0.s12.ext"),
	       "stripe 12 keeps the .ext suffix (%s)", out);
	tap_ok(!cs_name_stripe(out, "raw", 3) && !strcmp(out, "raw.s3"), "no suffix: appended (%s)", out);
	memset(longname, 'a', 60);
	longname[60] = '\0';
	tap_ok(cs_name_stripe(out, longname, 31) == -ENAMETOOLONG, "a name that does not fit: -ENAMETOOLONG");
	for (unsigned k = 0; k < 7; k++)
		sum += cs_stripe_size(10 * K64 + 77, K64, 7, k);
	tap_ok(sum == 10 * K64 + 77 && cs_stripe_size(10 * K64 + 77, K64, 7, 3) == K64 + 77 &&
		   cs_stripe_size(10 * K64 + 77, K64, 7, 4) == K64,
	       "stripe sizes add up; the last, short chunk is in stripe 10 %% 7 = 3");
}

/* file k holds chunks k, k + n, ... back to back */
static bool layout_ok(const struct cs_engine_region *r, const unsigned char *dev)
{
	unsigned n = r->nstripes;
	unsigned char buf[K64];

	for (uint64_t i = 0; i < r->nchunks; i++) {
		const char *name = i % n ? r->stripe_name[i % n] : r->name;
		size_t len = r->size - i * K64 < K64 ? r->size - i * K64 : K64;
		int fd = openat(d.fd, name, O_RDONLY | O_CLOEXEC);
		bool same = fd >= 0 && pread(fd, buf, len, (off_t)(i / n * K64)) == (ssize_t)len &&
			    !memcmp(buf, dev + i * K64, len);

		if (fd >= 0)
			close(fd);
		if (!same)
			return false;
	}
	return true;
}

static void forced(unsigned stripes, uint64_t size)
{
	struct cs_engine_region r;
	struct cs_engine_opts o;
	struct fake_stats st;
	CUdeviceptr src, dst;
	char err[512] = "", what[64];
	int fds = et_count_fds(), ret;
	unsigned n, bad = 0;

	snprintf(what, sizeof(what), "%u stripes, %llu bytes", stripes, (unsigned long long)size);
	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.threads = 3;
	o.pinned_max = 6 * K64;
	o.stripes = stripes;
	src = et_dev(fake_ctx(0), size, ET_DENSE, K64, 5);
	dst = et_dev(fake_ctx(0), size, -1, 0, 0);
	et_region(&r, src, size, fake_ctx(0), d.fd, "st.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	n = stripes < r.nchunks ? stripes : (unsigned)r.nchunks;
	tap_ok(ret == 0 && r.nstripes == n, "%s: dump returns 0 with %u files (%d %s, %u files)", what, n,
	       ret, err, r.nstripes);
	for (unsigned k = 0; k < r.nstripes; k++) {
		struct stat s;

		if (fstatat(d.fd, k ? r.stripe_name[k] : r.name, &s, 0) || (s.st_mode & 0777) != 0600 ||
		    (uint64_t)s.st_size != cs_stripe_size(size, K64, r.nstripes, k))
			bad++;
	}
	tap_ok(!bad, "%s: every file 0600 and of its stripe size (%u not)", what, bad);
	tap_ok(layout_ok(&r, fake_host(src)), "%s: chunk i is in file i %% n at (i / n) * chunk", what);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	fake_get_stats(&st);
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), size) && st.max_pinned <= o.pinned_max,
	       "%s: restore byte-exact, pinned %llu <= %zu (%d %s)", what, (unsigned long long)st.max_pinned,
	       o.pinned_max, ret, err);
	if (r.nstripes > 1) {
		char last[CS_NAME_MAX];

		snprintf(last, sizeof(last), "%s", r.stripe_name[r.nstripes - 1]);
		renameat(d.fd, last, d.fd, "moved");
		ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
		tap_ok(ret == -ENOENT && strstr(err, last), "%s: a missing stripe is named (%d: %s)", what,
		       ret, err);
		renameat(d.fd, "moved", d.fd, last);
		{
			int fd = openat(d.fd, last, O_WRONLY | O_CLOEXEC);

			if (fd < 0 || ftruncate(fd, 1))
				tap_bail("cannot shorten %s", last);
			close(fd);
		}
		ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
		tap_ok(ret == -EINVAL && strstr(err, last) && strstr(err, "expected a regular file of"),
		       "%s: a short stripe is refused by name (%d: %s)", what, ret, err);
	} else {
		tap_ok(1, "%s: (one file: no stripe to remove)", what);
		tap_ok(1, "%s: (one file: no stripe to shorten)", what);
	}
	cs_engine_region_free_meta(&r);
	et_remove_extents(d.fd, "st.ext");
	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean(what, fds);
}

/* a tmpfs (root): stripes chosen automatically, one per copy thread */
static void auto_tmpfs(void)
{
	struct et_dir t;
	struct cs_engine_region r;
	struct cs_engine_opts o;
	CUdeviceptr src;
	char err[512] = "";
	int ret;

	if (et_dir_make(&t, "tmpfs", "size=16m,mode=0700")) {
		tap_skip(2, "cannot mount a tmpfs (not root?)");
		return;
	}
	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.threads = 4;
	o.pinned_max = 4 * K64; /* 4 buffers: 4 single-buffered dump threads */
	src = et_dev(fake_ctx(0), 20 * K64, ET_DENSE, K64, 9);
	et_region(&r, src, 20 * K64, fake_ctx(0), t.fd, "auto.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && r.nstripes == 4, "tmpfs: one stripe per copy thread (%d %s, %u files)", ret, err,
	       r.nstripes);
	cs_engine_region_free_meta(&r);
	o.stripes = 1;
	et_remove_extents(t.fd, "auto.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && r.nstripes == 1, "tmpfs, stripes=1: one file (%d %s, %u files)", ret, err,
	       r.nstripes);
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	et_dir_remove(&t);
}

/* a dump that fails (no space for the reservation) removes every stripe it created */
static void failed_dump(void)
{
	struct et_dir t;
	struct cs_engine_region r;
	struct cs_engine_opts o;
	CUdeviceptr src;
	char err[512] = "";
	int ret, left = 0;
	DIR *dir;

	if (et_dir_make(&t, "tmpfs", "size=1m,mode=0700")) {
		tap_skip(2, "cannot mount a tmpfs (not root?)");
		return;
	}
	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.stripes = 5;
	src = et_dev(fake_ctx(0), 40 * K64, ET_DENSE, K64, 1);
	et_region(&r, src, 40 * K64, fake_ctx(0), t.fd, "full.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -ENOSPC && strstr(err, "full.ext: it needs 2621440 bytes (in 5 files)"),
	       "5 stripes that do not fit: -ENOSPC before any copy (%d: %s)", ret, err);
	dir = fdopendir(dup(t.fd));
	for (struct dirent *e; dir && (e = readdir(dir));)
		left += e->d_name[0] != '.';
	if (dir)
		closedir(dir);
	tap_ok(left == 0, "no stripe file is left behind (%d)", left);
	fake_dev_free(src);
	et_dir_remove(&t);
}

int main(void)
{
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	tap_plan(5 + 3 * 9 + 2 + 2);
	names();
	forced(3, 10 * K64 + 77);
	forced(4, 2 * K64);
	forced(1, 3 * K64 + 1);
	et_dir_remove(&d);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	auto_tmpfs();
	failed_dump();
	et_dir_remove(&d);
	return tap_done();
}
