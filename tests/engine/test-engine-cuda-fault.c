// SPDX-License-Identifier: MIT
/* test-engine-cuda-fault: a CUDA failure in any thread stops all regions promptly, names the call and chunk,
 * and frees everything. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "engine-test.h"

#define K64  (64u << 10)
#define N    2
#define SIZE (40 * K64 + 5)

static struct cs_cuda_ops ops;
static struct et_dir d;
static struct cs_engine_region r[N];
static CUdeviceptr src[N];
static struct cs_engine_opts o;
static char names[N][16];

static void setup(enum et_pattern pat)
{
	fake_cuda_init(&ops);
	for (unsigned i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "gpu%u.ext", i);
		src[i] = et_dev(fake_ctx(i), SIZE, pat, K64, i);
		et_region(&r[i], src[i], SIZE, fake_ctx(i), d.fd, names[i]);
	}
}

static void teardown(void)
{
	for (unsigned i = 0; i < N; i++) {
		cs_engine_region_free_meta(&r[i]);
		fake_dev_free(src[i]);
		unlinkat(d.fd, names[i], 0);
	}
}

/*
 * early: the fault comes before most copies could be issued, so the copy must have stopped short
 * of the end; the last thread's set-up can fail after the others issued every copy (a loaded
 * machine starts it late), so there only the outcome is checked.
 */
static void dump_fault(const char *what, enum fake_call call, unsigned long nth, CUresult res, int want,
		       const char *needle1, const char *needle2, bool early)
{
	struct fake_stats st;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	setup(ET_DENSE);
	fake_fail_at(call, nth, res);
	ret = cs_engine_dump(&ops, r, N, &o, err, sizeof(err));
	tap_ok(ret == want, "%s: dump returns %d (got %d)", what, want, ret);
	et_check_msg(err, what, needle1, needle2);
	fake_get_stats(&st);
	tap_ok(!early || st.calls[FAKE_DTOH] < 2 * (SIZE / K64), "%s: %s (%lu of %lu copies issued)", what,
	       early ? "stopped early" : "failed wherever the copy was", st.calls[FAKE_DTOH],
	       (unsigned long)(2 * (SIZE / K64 + 1)));
	tap_ok(faccessat(d.fd, names[0], F_OK, 0) && faccessat(d.fd, names[1], F_OK, 0) && !r[0].hash &&
		   !r[1].hash,
	       "%s: extents removed, metadata freed", what);
	teardown();
	et_check_clean(what, fds);
}

static void restore_fault(const char *what, enum et_pattern pat, enum fake_call call, unsigned long nth,
			  const char *needle1, const char *needle2)
{
	CUdeviceptr dst[N];
	char err[512] = "";
	int fds = et_count_fds(), ret;
	unsigned i;

	setup(pat);
	if (cs_engine_dump(&ops, r, N, &o, err, sizeof(err)))
		tap_bail("dump failed: %s", err);
	for (i = 0; i < N; i++) {
		dst[i] = et_dev(fake_ctx(i), SIZE, -1, 0, 0);
		r[i].ptr = dst[i];
	}
	fake_fail_at(call, nth, CUDA_ERROR_ILLEGAL_ADDRESS);
	ret = cs_engine_restore(&ops, r, N, &o, err, sizeof(err));
	tap_ok(ret == -EIO, "%s: restore returns -EIO (got %d)", what, ret);
	et_check_msg(err, what, needle1, needle2);
	tap_ok(!faccessat(d.fd, names[0], F_OK, 0) && !faccessat(d.fd, names[1], F_OK, 0),
	       "%s: images left in place", what);
	tap_ok(r[0].hash && r[1].hash, "%s: the caller's chunk metadata is left alone", what);
	for (i = 0; i < N; i++) {
		r[i].ptr = src[i];
		fake_dev_free(dst[i]);
	}
	teardown();
	et_check_clean(what, fds);
}

int main(void)
{
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	tap_plan(5 * 7 + 3 * 7);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.threads = 3;
	o.pinned_max = 6 * K64;

	dump_fault("7th D2H fails", FAKE_DTOH, 7, CUDA_ERROR_ILLEGAL_ADDRESS, -EIO,
		   "cuMemcpyDtoHAsync of chunk", "CUDA_ERROR_ILLEGAL_ADDRESS", true);
	dump_fault("first D2H fails", FAKE_DTOH, 1, CUDA_ERROR_ILLEGAL_ADDRESS, -EIO, "cuMemcpyDtoHAsync",
		   "offset", true);
	dump_fault("4th pinned allocation fails", FAKE_HOSTALLOC, 4, CUDA_ERROR_OUT_OF_MEMORY, -ENOMEM,
		   "cuMemHostAlloc", "CUDA_ERROR_OUT_OF_MEMORY", true);
	dump_fault("2nd stream creation fails", FAKE_STREAM_NEW, 2, CUDA_ERROR_INVALID_VALUE, -EIO,
		   "cuStreamCreate", "CUDA_ERROR_INVALID_VALUE", true);
	dump_fault("last threads's stream fails", FAKE_STREAM_NEW, 6, CUDA_ERROR_INVALID_VALUE, -EIO,
		   "cuStreamCreate", NULL, false);
	restore_fault("5th H2D fails", ET_DENSE, FAKE_HTOD, 5, "cuMemcpyHtoDAsync of chunk",
		      "CUDA_ERROR_ILLEGAL_ADDRESS");
	restore_fault("20th H2D fails", ET_DENSE, FAKE_HTOD, 20, "cuMemcpyHtoDAsync", "region");
	restore_fault("3rd memset fails", ET_ZERO75, FAKE_MEMSET, 3, "cuMemsetD8Async of chunk", NULL);
	et_dir_remove(&d);
	return tap_done();
}
