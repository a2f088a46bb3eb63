// SPDX-License-Identifier: MIT
/* test-engine-truncated: restore refuses extents of the wrong size or kind and inconsistent chunk records;
 * dump never overwrites. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-test.h"

#define K64  (64u << 10)
#define SIZE (5 * K64 + 100)

static struct cs_cuda_ops ops;
static struct cs_engine_opts o;
static struct et_dir d;
static struct cs_engine_region r;
static CUdeviceptr dst;

static void expect(const char *what, int want, const char *needle1, const char *needle2)
{
	char err[512] = "";
	int ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));

	tap_ok(ret == want, "%s: restore returns %d (got %d)", what, want, ret);
	et_check_msg(err, what, needle1, needle2);
}

int main(void)
{
	CUdeviceptr src;
	char err[512] = "";
	struct stat st;
	int fds, fd, ret;

	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	tap_plan(2 * 8 + 5 + 3);
	fake_cuda_init(&ops);
	fds = et_count_fds();
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.pinned_max = 4 * K64;
	src = et_dev(fake_ctx(0), SIZE, ET_DENSE, K64, 1);
	dst = et_dev(fake_ctx(0), SIZE, -1, 0, 0);
	et_region(&r, src, SIZE, fake_ctx(0), d.fd, "t.ext");
	if (cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err)))
		tap_bail("dump failed: %s", err);
	r.ptr = dst;

	if ((fd = openat(d.fd, "t.ext", O_WRONLY | O_CLOEXEC)) < 0 || ftruncate(fd, SIZE - 1))
		tap_bail("cannot truncate");
	expect("extent one byte short", -EINVAL, "t.ext",
	       "found 327779 bytes, expected a regular file of 327780");
	if (ftruncate(fd, SIZE + 4096))
		tap_bail("cannot extend");
	expect("extent 4 KiB too long", -EINVAL, "t.ext", "331876");
	close(fd);
	unlinkat(d.fd, "t.ext", 0);
	expect("extent missing", -ENOENT, "t.ext", "No such file");
	if (symlinkat("/etc/passwd", d.fd, "t.ext"))
		tap_bail("cannot symlink");
	expect("extent is a symlink", -ELOOP, "t.ext", NULL);
	unlinkat(d.fd, "t.ext", 0);
	if (mkdirat(d.fd, "t.ext", 0700))
		tap_bail("cannot mkdir");
	expect("extent is a directory", -EINVAL, "t.ext", "not a regular file");
	unlinkat(d.fd, "t.ext", AT_REMOVEDIR);

	r.nchunks--;
	expect("one chunk record missing", -EINVAL, "need 6 chunk records, found 5", NULL);
	r.nchunks++;
	r.chunk_size = 3 * K64;
	expect("chunk size not a power of two", -EINVAL, "chunk size 196608", NULL);
	r.chunk_size = K64;
	o.pinned_max = K64 / 2; /* below one chunk: the options are refused first */
	expect("pinned bound below the image's chunk", -EINVAL, "pinned", NULL);
	o.pinned_max = 4 * K64;

	/* dump never replaces an existing file */
	fd = openat(d.fd, "keep.ext", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	tap_ok(fd >= 0 && write(fd, "precious", 8) == 8, "an unrelated file exists");
	close(fd);
	cs_engine_region_free_meta(&r);
	et_region(&r, src, SIZE, fake_ctx(0), d.fd, "keep.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -EEXIST, "dump onto an existing name returns -EEXIST (%d: %s)", ret, err);
	tap_ok(!fstatat(d.fd, "keep.ext", &st, 0) && st.st_size == 8, "the existing file is untouched");
	tap_ok(r.hash == NULL && r.zero == NULL, "a failed dump leaves no chunk metadata behind");
	tap_ok(fds == et_count_fds(), "no descriptors leaked");

	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean("truncated", fds);
	et_dir_remove(&d);
	return tap_done();
}
