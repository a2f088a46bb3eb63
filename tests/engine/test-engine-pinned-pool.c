// SPDX-License-Identifier: MIT
/*
 * test-engine-pinned-pool: buffers pinned once in a pool are lent to the copy threads of every
 * engine call: with a pool big enough, a dump and a restore pin nothing themselves, leave the
 * pool's buffers pinned and unfreed, and still copy every byte; with too few or too small pool
 * buffers the threads pin the rest themselves as before; the pool frees everything on destroy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine-test.h"

#define K64 (64u << 10)

static struct cs_engine_opts opts(unsigned threads, size_t pinned, struct cs_pinned_pool *pool)
{
	struct cs_engine_opts o = et_opts(K64, threads, pinned, false);

	o.pool = pool;
	return o;
}

/* dump then restore size bytes through o; the number of cuMemHostAlloc calls the two made */
static unsigned long roundtrip(const char *what, int dirfd, const struct cs_cuda_ops *ops, uint64_t size,
			       const struct cs_engine_opts *o, uint64_t *pooled_dump,
			       uint64_t *pooled_restore)
{
	struct cs_engine_region r;
	struct fake_stats a, b;
	CUdeviceptr src, dst;
	char err[512] = "";
	int ret;

	fake_get_stats(&a);
	src = et_dev(fake_ctx(1), size, ET_DENSE, K64, size + 7);
	et_region(&r, src, size, fake_ctx(1), dirfd, "gpu0.ext");
	ret = cs_engine_dump(ops, &r, 1, o, err, sizeof(err));
	tap_ok(ret == 0, "%s: dump returns 0 (%d: %s)", what, ret, err);
	*pooled_dump = r.pooled_bytes;
	dst = et_dev(fake_ctx(1), size, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(ops, &r, 1, o, err, sizeof(err));
	tap_ok(ret == 0, "%s: restore returns 0 (%d: %s)", what, ret, err);
	tap_ok(!memcmp(fake_host(src), fake_host(dst), size), "%s: restored device bytes equal the source",
	       what);
	tap_ok(r.setup_seconds >= 0 && r.setup_seconds <= r.seconds && r.teardown_seconds <= r.seconds,
	       "%s: setup %.6f s and teardown %.6f s are parts of the copy's %.6f s", what, r.setup_seconds,
	       r.teardown_seconds, r.seconds);
	*pooled_restore = r.pooled_bytes;
	fake_get_stats(&b);
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(dirfd, "gpu0.ext");
	return b.calls[FAKE_HOSTALLOC] - a.calls[FAKE_HOSTALLOC];
}

int main(void)
{
	struct cs_pinned_pool *pool = NULL;
	struct cs_engine_opts o;
	struct cs_cuda_ops ops;
	struct fake_stats st;
	uint64_t pd, pr;
	unsigned long allocs;
	struct et_dir d;
	char err[256] = "";
	int fds, ret;

	tap_plan(34);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	fds = et_count_fds();
	fake_cuda_init(&ops);

	/* a pool of 8 chunk buffers: 4 threads x 2 buffers are all lent */
	ret = cs_pinned_pool_create(&pool, &ops, fake_ctx(1), K64, 8, err, sizeof(err));
	tap_ok(ret == 0 && pool, "pool of 8 x 64 KiB pinned (%d: %s)", ret, err);
	fake_get_stats(&st);
	tap_ok(st.live_pinned == 8 * K64 && cs_pinned_pool_bytes(pool) == 8 * K64 &&
		   cs_pinned_pool_seconds(pool) >= 0,
	       "the pool holds 8 x 64 KiB pinned (%llu live)", (unsigned long long)st.live_pinned);
	o = opts(4, 8 * K64, pool);
	allocs = roundtrip("pool of 8", d.fd, &ops, 3 * 1024 * 1024 + 4096, &o, &pd, &pr);
	tap_ok(allocs == 0, "pool of 8: the dump and the restore pinned nothing themselves (%lu allocations)",
	       allocs);
	tap_ok(pd == 8 * K64 && pr > 0 && pr <= 8 * K64,
	       "pool of 8: every buffer came from the pool (dump %llu, restore %llu bytes)",
	       (unsigned long long)pd, (unsigned long long)pr);
	fake_get_stats(&st);
	tap_ok(st.live_pinned == 8 * K64, "pool of 8: the pool's buffers are still pinned after both (%llu)",
	       (unsigned long long)st.live_pinned);
	/* the same pool serves the next call again (a second process of a tree) */
	allocs = roundtrip("pool reused", d.fd, &ops, 1024 * 1024, &o, &pd, &pr);
	tap_ok(allocs == 0 && pd == 8 * K64,
	       "pool reused: the next call pinned nothing either (%lu, %llu pooled)", allocs,
	       (unsigned long long)pd);

	/*
	 * More buffers wanted than the pool has (16 per call, 8 in the pool): each of the 32 buffer
	 * slots of the dump and the restore is lent by the pool or pinned by its thread, and each call
	 * gets all 8 pool buffers first. How many a thread pins depends on timing: a thread that
	 * ends early gives its pool buffers back, and a thread starting later borrows them.
	 */
	o = opts(8, 16 * K64, pool);
	allocs = roundtrip("pool too small", d.fd, &ops, 4 * 1024 * 1024, &o, &pd, &pr);
	tap_ok(
	    allocs * K64 + pd + pr == 32 * K64 && pd >= 8 * K64 && pr >= 8 * K64,
	    "pool too small: of 32 buffers, %lu pinned by the threads and %llu + %llu bytes lent by the pool",
	    allocs, (unsigned long long)pd, (unsigned long long)pr);
	fake_get_stats(&st);
	tap_ok(st.live_pinned == 8 * K64, "pool too small: the threads' own buffers were freed (%llu left)",
	       (unsigned long long)st.live_pinned);
	cs_pinned_pool_destroy(pool);
	fake_get_stats(&st);
	tap_ok(st.live_pinned == 0, "destroy frees every pool buffer (%llu left)",
	       (unsigned long long)st.live_pinned);

	/* pool buffers smaller than the region's chunk buffer are never lent */
	ret = cs_pinned_pool_create(&pool, &ops, fake_ctx(1), 16384, 8, err, sizeof(err));
	tap_ok(ret == 0, "pool of 8 x 16 KiB pinned (%d: %s)", ret, err);
	o = opts(4, 8 * K64, pool);
	allocs = roundtrip("pool buffers too small", d.fd, &ops, 1024 * 1024, &o, &pd, &pr);
	tap_ok(allocs > 0 && pd == 0 && pr == 0, "pool buffers too small: none lent (%lu allocations)",
	       allocs);
	cs_pinned_pool_destroy(pool);

	/* refusals and a pinning failure */
	ret = cs_pinned_pool_create(&pool, &ops, fake_ctx(1), 1000, 4, err, sizeof(err));
	tap_ok(ret == -EINVAL && !pool, "a buffer size that is not a multiple of 4096 is refused (%d)", ret);
	et_check_msg(err, "bad buffer size", "1000 bytes", "4096");
	fake_fail_at(FAKE_HOSTALLOC, 3, CUDA_ERROR_OUT_OF_MEMORY);
	ret = cs_pinned_pool_create(&pool, &ops, fake_ctx(1), K64, 8, err, sizeof(err));
	fake_fail_at(FAKE_HOSTALLOC, 0, CUDA_SUCCESS);
	tap_ok(ret == -ENOMEM && !pool, "a pinning failure fails the pool with -ENOMEM (%d)", ret);
	et_check_msg(err, "pinning failure", "cuMemHostAlloc", NULL);
	et_check_clean("after the pools", fds);
	et_dir_remove(&d);
	return tap_done();
}
