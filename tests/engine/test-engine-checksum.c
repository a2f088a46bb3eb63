// SPDX-License-Identifier: MIT
/* test-engine-checksum: a flipped byte in an extent or a corrupt chunk record stops restore with -EBADMSG
 * naming the chunk. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine-test.h"

#define K64  (64u << 10)
#define SIZE (10 * K64 + 77)

static struct cs_cuda_ops ops;
static struct cs_engine_opts o;
static struct et_dir d;

static void flip(const char *name, uint64_t off)
{
	int fd = openat(d.fd, name, O_RDWR | O_CLOEXEC);
	unsigned char c;

	if (fd < 0 || pread(fd, &c, 1, (off_t)off) != 1)
		tap_bail("cannot read %s at %llu", name, (unsigned long long)off);
	c ^= 0x10;
	if (pwrite(fd, &c, 1, (off_t)off) != 1)
		tap_bail("cannot write %s", name);
	close(fd);
}

static bool untouched(CUdeviceptr dst, uint64_t off, size_t len)
{
	const unsigned char *p = (const unsigned char *)fake_host(dst) + off;

	for (size_t i = 0; i < len; i++)
		if (p[i] != 0xa5)
			return false;
	return true;
}

/* dump fresh data, corrupt(), restore: expect -EBADMSG naming chunk */
static void scenario(const char *what, uint64_t flip_off, int zero_rec, int hash_rec, uint64_t chunk)
{
	struct cs_engine_region r;
	CUdeviceptr src, dst;
	char err[512] = "", want_chunk[64], want_hash[32], want_off[48];
	int fds = et_count_fds(), ret;
	uint64_t expected;

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), SIZE, ET_DENSE, K64, 42);
	et_region(&r, src, SIZE, fake_ctx(0), d.fd, "sum.ext");
	if (cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err)))
		tap_bail("dump failed: %s", err);
	expected = r.hash[chunk];
	if (flip_off != UINT64_MAX)
		flip(r.name, flip_off);
	if (zero_rec >= 0)
		r.zero[zero_rec] = 1;
	if (hash_rec >= 0)
		r.hash[hash_rec] ^= 1, expected ^= 1;

	dst = et_dev(fake_ctx(0), SIZE, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -EBADMSG, "%s: restore returns -EBADMSG (got %d)", what, ret);
	snprintf(want_chunk, sizeof(want_chunk), "chunk %llu ", (unsigned long long)chunk);
	et_check_msg(err, what, r.name, want_chunk);
	if (zero_rec < 0) {
		snprintf(want_off, sizeof(want_off), "offset %llu", (unsigned long long)chunk * K64);
		snprintf(want_hash, sizeof(want_hash), "expected XXH3 %016" PRIx64, expected);
		et_check_msg(err, what, want_off, want_hash);
		tap_ok(untouched(dst, chunk * K64, SIZE - chunk * K64 < K64 ? SIZE - chunk * K64 : K64),
		       "%s: the bad chunk never reached the device", what);
	} else {
		et_check_msg(err, what, "marked all-zero", NULL);
		tap_ok(untouched(dst, 0, SIZE), "%s: nothing was copied before the check failed", what);
	}
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(d.fd, "sum.ext");
	et_check_clean(what, fds);
}

int main(void)
{
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	tap_plan(5 * 7);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.threads = 4;
	o.pinned_max = 8 * K64;
	scenario("byte flipped in chunk 6", 6 * K64 + 1234, -1, -1, 6);
	scenario("byte flipped in the last, partial chunk", 10 * K64 + 76, -1, -1, 10);
	scenario("byte flipped in chunk 0", 0, -1, -1, 0);
	scenario("hash record of chunk 2 corrupt", UINT64_MAX, -1, 2, 2);
	scenario("non-zero chunk 3 flagged zero", UINT64_MAX, 3, -1, 3);
	et_dir_remove(&d);
	return tap_done();
}
