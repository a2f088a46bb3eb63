// SPDX-License-Identifier: MIT
/*
 * test-engine-direct-align: O_DIRECT alignment comes from the filesystem, and short O_DIRECT
 * transfers go on from an aligned offset. pwrite, pread and statx are wrapped (-Wl,--wrap) so
 * the test can make one transfer come back short at an unaligned count and make statx report
 * what a filesystem might (STATX_DIOALIGN 512, 8192, no O_DIRECT, nothing); every other call
 * reaches the kernel, which itself refuses an unaligned O_DIRECT transfer with EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-test.h"

ssize_t __real_pwrite(int fd, const void *buf, size_t len, off_t off);
ssize_t __real_pread(int fd, void *buf, size_t len, off_t off);
int __real_statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t len, off_t off);
int __wrap_statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx);

enum dio_report { REPORT_REAL, REPORT_NONE, REPORT_512, REPORT_8192, REPORT_NO_DIRECT };
static enum dio_report report;
static int short_write_at, short_read_at; /* the nth O_DIRECT call comes back short (0: never) */
static int direct_writes, direct_reads, shorts;
static size_t max_tail_len; /* longest O_DIRECT write shorter than a chunk */

static bool is_direct(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_DIRECT);
}

/* an unaligned short count: 4096 bytes moved, 4096 + 100 claimed (the extra 100 are not) */
ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (is_direct(fd)) {
		direct_writes++;
		if (len < (1u << 20) && len > max_tail_len)
			max_tail_len = len;
		if (direct_writes == short_write_at && len >= 3 * 4096) {
			shorts++;
			return __real_pwrite(fd, buf, 4096, off) == 4096 ? 4096 + 100 : -1;
		}
	}
	return __real_pwrite(fd, buf, len, off);
}

ssize_t __wrap_pread(int fd, void *buf, size_t len, off_t off)
{
	if (is_direct(fd) && ++direct_reads == short_read_at && len >= 3 * 4096) {
		ssize_t n = __real_pread(fd, buf, 4096, off);

		shorts++;
		if (n == 4096)
			memset((char *)buf + 4096, 0xee, 100); /* "read" garbage */
		return n == 4096 ? 4096 + 100 : n;
	}
	return __real_pread(fd, buf, len, off);
}

int __wrap_statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
	int ret = __real_statx(dirfd, path, flags, mask, stx);

	if (ret || !(mask & STATX_DIOALIGN))
		return ret;
	switch (report) {
	case REPORT_REAL:
		break;
	case REPORT_NONE:
		stx->stx_mask &= ~STATX_DIOALIGN;
		break;
	case REPORT_NO_DIRECT:
		stx->stx_mask |= STATX_DIOALIGN;
		stx->stx_dio_offset_align = stx->stx_dio_mem_align = 0;
		break;
	default:
		stx->stx_mask |= STATX_DIOALIGN;
		stx->stx_dio_offset_align = stx->stx_dio_mem_align = report == REPORT_512 ? 512 : 8192;
	}
	return ret;
}

static bool file_matches(int dirfd, const char *name, const void *want, uint64_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	char *buf = malloc(size);
	bool ok = false;

	if (fd >= 0 && buf && pread(fd, buf, size, 0) == (ssize_t)size)
		ok = !memcmp(buf, want, size);
	free(buf);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* dump and restore one region of size bytes; the result of each step */
static void roundtrip(const char *what, int dirfd, uint64_t size, bool want_direct, int want_shorts)
{
	struct cs_engine_region r;
	struct cs_engine_opts o;
	struct cs_cuda_ops ops;
	CUdeviceptr src, dst;
	char err[512] = "";
	int ret, fds = et_count_fds();

	shorts = direct_writes = direct_reads = 0;
	max_tail_len = 0;
	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = 1u << 20;
	o.threads = 2;
	o.pinned_max = 4u << 20;
	o.direct_io = true;
	src = et_dev(fake_ctx(1), size, ET_DENSE, o.chunk_size, size);
	et_region(&r, src, size, fake_ctx(1), dirfd, "gpu0.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && file_matches(dirfd, r.name, fake_host(src), size),
	       "%s: dump succeeds, the extent holds the device bytes (%d: %s)", what, ret, err);
	tap_ok(r.used_direct_io == want_direct, "%s: dump used O_DIRECT: %d (expected %d)", what,
	       r.used_direct_io, want_direct);
	dst = et_dev(fake_ctx(1), size, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), size),
	       "%s: restore succeeds, device bytes equal the source (%d: %s)", what, ret, err);
	tap_ok(r.used_direct_io == want_direct && shorts == want_shorts,
	       "%s: restore used O_DIRECT: %d (expected %d); short transfers made: %d of %d", what,
	       r.used_direct_io, want_direct, shorts, want_shorts);
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(dirfd, r.name);
	et_check_clean(what, fds);
}

int main(void)
{
	const uint64_t size = (4u << 20) + 1000; /* a 1000-byte last chunk */
	struct et_dir d;
	int fd;

	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	fd = openat(d.fd, "probe", O_CREAT | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0) {
		et_dir_remove(&d);
		tap_skip_all("the build directory's filesystem has no O_DIRECT");
	}
	close(fd);
	unlinkat(d.fd, "probe", 0);
	tap_plan(7 * 8); /* 7 round trips of 7 checks, one more each */

	report = REPORT_NONE;
	roundtrip("no alignment reported (4 KiB assumed)", d.fd, size, true, 0);
	tap_ok(max_tail_len == 4096, "4 KiB assumed: the 1000-byte tail went out as %zu bytes", max_tail_len);

	report = REPORT_512;
	roundtrip("512-byte alignment reported", d.fd, size, true, 0);
	tap_ok(max_tail_len == 1024, "512 reported: the 1000-byte tail went out as %zu bytes (1024)",
	       max_tail_len);

	report = REPORT_8192;
	roundtrip("8 KiB alignment reported", d.fd, size, false, 0);
	tap_ok(direct_writes == 0, "8 KiB reported: no O_DIRECT write at all (%d)", direct_writes);

	report = REPORT_NO_DIRECT;
	roundtrip("no O_DIRECT reported", d.fd, size, false, 0);
	tap_ok(direct_writes == 0, "no O_DIRECT reported: no O_DIRECT write at all (%d)", direct_writes);

	report = REPORT_REAL;
	short_write_at = 2;
	roundtrip("a short unaligned O_DIRECT write", d.fd, size, true, 1);
	tap_ok(direct_writes > 2, "the write went on after the short one (%d O_DIRECT writes)", direct_writes);
	short_write_at = 0;

	short_read_at = 2;
	roundtrip("a short unaligned O_DIRECT read", d.fd, size, true, 1);
	tap_ok(direct_reads > 2, "the read went on after the short one (%d O_DIRECT reads)", direct_reads);
	short_read_at = 0;

	report = REPORT_REAL;
	roundtrip("what the filesystem reports", d.fd, size, true, 0);
	tap_ok(max_tail_len >= 1000 && max_tail_len <= 4096 && !(max_tail_len & 511),
	       "the tail went out as %zu bytes, aligned as the filesystem asks", max_tail_len);

	et_dir_remove(&d);
	return tap_done();
}
