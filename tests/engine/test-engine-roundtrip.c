// SPDX-License-Identifier: MIT
/* test-engine-roundtrip: dump then restore is byte-exact for every size shape, thread count and pinned bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "engine-test.h"

#define K64 (64u << 10)

struct progress {
	uint64_t last, total;
	unsigned calls;
	int backwards;
};

static void on_progress(void *arg, unsigned region, uint64_t done, uint64_t total)
{
	struct progress *p = arg;

	__atomic_add_fetch(&p->calls, 1, __ATOMIC_SEQ_CST);
	if (done > total)
		p->backwards = 1;
	if (done == total)
		p->last = done;
	p->total = total;
}

static bool file_matches(int dirfd, const char *name, const void *want, uint64_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	struct stat st;
	bool ok = false;
	char *buf;

	if (fd < 0)
		return false;
	buf = malloc(size ? size : 1);
	if (buf && !fstat(fd, &st) && (uint64_t)st.st_size == size &&
	    pread(fd, buf, size, 0) == (ssize_t)size)
		ok = !memcmp(buf, want, size);
	free(buf);
	close(fd);
	return ok;
}

static bool hashes_match(const struct cs_engine_region *r, const unsigned char *data)
{
	uint64_t i;

	if (r->nchunks != (r->size + r->chunk_size - 1) / r->chunk_size)
		return false;
	for (i = 0; i < r->nchunks; i++) {
		uint64_t off = i * r->chunk_size;
		size_t len = r->size - off < r->chunk_size ? r->size - off : r->chunk_size;

		if (r->hash[i] != XXH3_64bits(data + off, len) || r->zero[i])
			return false;
	}
	return true;
}

static bool direct_supported(int dirfd)
{
	int fd = openat(dirfd, "probe", O_CREAT | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);

	if (fd < 0)
		return false;
	close(fd);
	unlinkat(dirfd, "probe", 0);
	return true;
}

static void roundtrip(const char *what, int dirfd, uint64_t size, struct cs_engine_opts o, bool want_direct)
{
	struct progress prog = { 0 };
	struct cs_engine_region r;
	struct fake_stats st;
	struct cs_cuda_ops ops;
	CUdeviceptr src, dst;
	int fds = et_count_fds(), ret;
	char err[512] = "";

	fake_cuda_init(&ops);
	o.progress = on_progress;
	o.progress_arg = &prog;
	src = et_dev(fake_ctx(1), size, ET_DENSE, o.chunk_size, size);
	et_region(&r, src, size, fake_ctx(1), dirfd, "gpu0.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "%s: dump returns 0 (%d: %s)", what, ret, err);
	tap_ok(file_matches(dirfd, r.name, fake_host(src), size), "%s: extent holds exactly the device bytes",
	       what);
	tap_ok(r.chunk_size == o.chunk_size && hashes_match(&r, fake_host(src)),
	       "%s: %llu chunk hashes are XXH3-64 of the chunks, none zero", what,
	       (unsigned long long)r.nchunks);
	tap_ok(r.stored_bytes == size, "%s: stored_bytes %llu == size", what,
	       (unsigned long long)r.stored_bytes);
	fake_get_stats(&st);
	tap_ok(r.pinned_bytes <= o.pinned_max && st.max_pinned <= o.pinned_max &&
		   (size == 0 || r.pinned_bytes),
	       "%s: pinned %llu (max live %llu) within bound %zu", what, (unsigned long long)r.pinned_bytes,
	       (unsigned long long)st.max_pinned, o.pinned_max);
	tap_ok(r.used_direct_io == want_direct, "%s: O_DIRECT used: %d (expected %d)", what, r.used_direct_io,
	       want_direct);
	tap_ok(size == 0 || (prog.last == size && prog.total == size && !prog.backwards),
	       "%s: progress reached %llu of %llu", what, (unsigned long long)prog.last,
	       (unsigned long long)size);

	dst = et_dev(fake_ctx(1), size, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "%s: restore returns 0 (%d: %s)", what, ret, err);
	tap_ok(!memcmp(fake_host(src), fake_host(dst), size), "%s: restored device bytes equal the source",
	       what);
	tap_ok(file_matches(dirfd, r.name, fake_host(src), size), "%s: restore left the extent unchanged",
	       what);

	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(dirfd, r.name);
	et_check_clean(what, fds);
}

int main(void)
{
	struct et_dir d;
	bool dio;

	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	dio = direct_supported(d.fd);
	tap_diag("scratch directory %s, O_DIRECT %s", d.path, dio ? "supported" : "not supported");
	tap_plan(13 * 13);

	roundtrip("1 byte", d.fd, 1, et_opts(K64, 4, 8 * K64, true), dio);
	roundtrip("5000 bytes (under one chunk, not 4 KiB-aligned)", d.fd, 5000,
		  et_opts(K64, 4, 8 * K64, true), dio);
	roundtrip("exactly one chunk", d.fd, K64, et_opts(K64, 4, 8 * K64, true), dio);
	roundtrip("exactly 7 chunks", d.fd, 7 * K64, et_opts(K64, 4, 8 * K64, true), dio);
	roundtrip("13 chunks + 12345 bytes", d.fd, 13 * K64 + 12345, et_opts(K64, 4, 8 * K64, true), dio);
	roundtrip("64 chunks + 4095, 8 threads", d.fd, 64 * K64 + 4095, et_opts(K64, 8, 16 * K64, true), dio);
	roundtrip("pinned bound = one chunk (1 thread, 1 buffer)", d.fd, 9 * K64 + 7,
		  et_opts(K64, 4, K64, true), dio);
	roundtrip("pinned bound = 3 chunks (2 threads, 3 buffers)", d.fd, 11 * K64 + 1,
		  et_opts(K64, 2, 3 * K64, true), dio);
	roundtrip("pinned bound 2.5 chunks", d.fd, 10 * K64, et_opts(K64, 4, 5 * K64 / 2, true), dio);
	roundtrip("buffered I/O", d.fd, 13 * K64 + 12345, et_opts(K64, 3, 8 * K64, false), false);
	roundtrip("1 MiB chunks, 5 MiB + 1", d.fd, (5u << 20) + 1, et_opts(1u << 20, 4, 4u << 20, true), dio);
	roundtrip("1 thread", d.fd, 6 * K64 + 100, et_opts(K64, 1, 8 * K64, true), dio);
	roundtrip("empty region", d.fd, 0, et_opts(K64, 4, 8 * K64, true), dio);

	et_dir_remove(&d);
	return tap_done();
}
