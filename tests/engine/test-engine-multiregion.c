// SPDX-License-Identifier: MIT
/* test-engine-multiregion: several regions (GPUs) with their own contexts dump and restore in parallel,
 * byte-exact. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine-test.h"

#define K64 (64u << 10)
#define N   4

int main(void)
{
	static const uint64_t sizes[N] = {(1u << 20) + 3, 300u << 10, 2u << 20, 1};
	static const int pats[N] = {ET_DENSE, ET_DENSE, ET_ZERO75, ET_DENSE};
	struct cs_engine_region r[N];
	CUdeviceptr src[N], dst[N];
	struct cs_engine_opts o;
	struct fake_stats st;
	struct cs_cuda_ops ops;
	char names[N][32], err[512] = "";
	struct et_dir d;
	int fds, ret, i;
	bool ok;

	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	tap_plan(11);
	fake_cuda_init(&ops);
	fds = et_count_fds();
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.threads = 3;
	o.pinned_max = 4 * K64;
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "gpu%d.ext", i);
		src[i] = et_dev(fake_ctx(i), sizes[i], pats[i], K64, 100 + i);
		et_region(&r[i], src[i], sizes[i], fake_ctx(i), d.fd, names[i]);
	}
	ret = cs_engine_dump(&ops, r, N, &o, err, sizeof(err));
	tap_ok(ret == 0, "dump of %d regions returns 0 (%d: %s)", N, ret, err);
	for (ok = true, i = 0; i < N; i++)
		ok &= r[i].pinned_bytes <= o.pinned_max && r[i].nchunks == (sizes[i] + K64 - 1) / K64;
	fake_get_stats(&st);
	tap_ok(ok && st.max_pinned <= N * o.pinned_max, "each region within its pinned bound (max live %llu)",
	       (unsigned long long)st.max_pinned);
	tap_ok(r[2].stored_bytes < sizes[2] / 2 && r[0].stored_bytes == sizes[0],
	       "zero chunks of region 2 skipped, region 0 fully stored");

	for (i = 0; i < N; i++) {
		dst[i] = et_dev(fake_ctx(i), sizes[i], -1, 0, 0);
		r[i].ptr = dst[i];
	}
	ret = cs_engine_restore(&ops, r, N, &o, err, sizeof(err));
	tap_ok(ret == 0, "restore of %d regions returns 0 (%d: %s)", N, ret, err);
	for (ok = true, i = 0; i < N; i++)
		ok &= !memcmp(fake_host(src[i]), fake_host(dst[i]), sizes[i]);
	tap_ok(ok, "every region restored byte-exact into its own context's memory");

	/* swapped contexts: a region whose memory belongs to another context must fail, not copy */
	r[1].ctx = fake_ctx(0);
	ret = cs_engine_restore(&ops, r, N, &o, err, sizeof(err));
	tap_ok(ret != 0, "a region with the wrong context fails (%d: %s)", ret, err);
	for (i = 0; i < N; i++) {
		cs_engine_region_free_meta(&r[i]);
		fake_dev_free(src[i]);
		fake_dev_free(dst[i]);
	}
	fake_get_stats(&st);
	tap_ok(st.violations >= 1, "the fake driver flagged the wrong-context copy (%lu: %s)", st.violations,
	       fake_last_violation());
	fake_cuda_init(&ops); /* forget that one deliberate violation */
	et_check_clean("multi-region", fds);
	tap_ok(faccessat(d.fd, "gpu3.ext", F_OK, 0) == 0, "restore failure leaves the images in place");
	et_dir_remove(&d);
	return tap_done();
}
