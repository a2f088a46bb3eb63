// SPDX-License-Identifier: MIT
/*
 * test-engine-restore-big-chunks: images dumped with chunks larger than the restoring side's
 * pinned bound still restore, byte-exact, with exactly one chunk-sized pinned buffer (the bound
 * is a local tuning option; the images decide the chunk size). A dump still refuses a bound
 * below its own chunk.
 */
#include <errno.h>
#include <unistd.h>
#include <string.h>

#include "engine-test.h"

#define K64 (64u << 10)

int main(void)
{
	struct cs_engine_opts dump_o, rest_o;
	struct cs_engine_region r;
	struct fake_stats st;
	struct cs_cuda_ops ops;
	CUdeviceptr src, dst;
	uint64_t size = 20 * K64 + 4096; /* 5 chunks of 256 KiB, the last one short */
	char err[512] = "";
	struct et_dir d;
	int fds, ret;

	tap_plan(9);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	fds = et_count_fds();
	fake_cuda_init(&ops);
	cs_engine_opts_default(&dump_o);
	dump_o.chunk_size = 4 * K64;
	dump_o.threads = 2;
	dump_o.pinned_max = 16 * K64;
	src = et_dev(fake_ctx(0), size, ET_DENSE, K64, 5);
	et_region(&r, src, size, fake_ctx(0), d.fd, "gpu0.ext");
	ret = cs_engine_dump(&ops, &r, 1, &dump_o, err, sizeof(err));
	tap_ok(ret == 0 && r.chunk_size == 4 * K64, "dump with 256 KiB chunks (%d: %s)", ret, err);

	cs_engine_opts_default(&rest_o);
	rest_o.chunk_size = K64; /* the local dump settings: irrelevant to a restore */
	rest_o.threads = 8;
	rest_o.pinned_max = 2 * K64;
	dst = et_dev(fake_ctx(0), size, -1, 0, 0);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &rest_o, err, sizeof(err));
	tap_ok(ret == 0, "restore with a 128 KiB pinned bound succeeds (%d: %s)", ret, err);
	tap_ok(!memcmp(fake_host(src), fake_host(dst), size), "restored device bytes equal the source");
	fake_get_stats(&st);
	tap_ok(r.pinned_bytes == 4 * K64, "exactly one chunk of pinned memory for it (%llu bytes)",
	       (unsigned long long)r.pinned_bytes);
	tap_ok(st.max_pinned <= 16 * K64, "never more pinned memory live than the dump's bound (%llu)",
	       (unsigned long long)st.max_pinned);

	dump_o.pinned_max = 2 * K64;
	cs_engine_region_free_meta(&r);
	unlinkat(d.fd, "gpu0.ext", 0);
	et_region(&r, src, size, fake_ctx(0), d.fd, "gpu0.ext");
	ret = cs_engine_dump(&ops, &r, 1, &dump_o, err, sizeof(err));
	tap_ok(ret == -EINVAL, "a dump still refuses a pinned bound below its chunk (%d: %s)", ret, err);

	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean("big chunks", fds);
	et_dir_remove(&d);
	return tap_done();
}
