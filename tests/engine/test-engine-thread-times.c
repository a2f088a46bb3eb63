// SPDX-License-Identifier: MIT
/*
 * test-engine-thread-times: each region says where its copy threads' time went - in the files
 * and the chunk checks (io_seconds), and waiting for the GPU's copies (gpu_wait_seconds) - and
 * its log line says the same. With a GPU whose every copy takes 20 ms more (the fake's delay),
 * the waits hold at least every copy's delay and outweigh the file work, in both directions;
 * without a delay the sums stay within the threads' time (threads x seconds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-test.h"

#define K64    (64u << 10)
#define NCHUNK 12u
#define DELAY  20000u /* us */

static char region_line[2][1024]; /* [0] dump, [1] restore */

static void note(unsigned level, const char *line)
{
	(void)level;
	if (!strncmp(line, "dumped region", 13))
		snprintf(region_line[0], sizeof(region_line[0]), "%s", line);
	else if (!strncmp(line, "restored region", 15))
		snprintf(region_line[1], sizeof(region_line[1]), "%s", line);
}

/* a and b agree to the line's three decimals */
static bool near(double a, double b)
{
	return a - b < 0.002 && b - a < 0.002;
}

/* the line's "the threads' T s: I in the files and checks, W waiting for the GPU" agrees with r */
static bool line_agrees(const char *what, const char *line, const struct cs_engine_region *r)
{
	const char *p = strstr(line, "; the threads' ");
	double tt, io, wait;

	if (!p || sscanf(p, "; the threads' %lf s: %lf in the files and checks, %lf waiting for the GPU", &tt,
			 &io, &wait) != 3) {
		tap_diag("%s: line: %s", what, line);
		return false;
	}
	return near(tt, r->seconds * r->threads) && near(io, r->io_seconds) &&
	       near(wait, r->gpu_wait_seconds);
}

static void check(const char *what, const struct cs_engine_region *r, int dir, bool delayed)
{
	double threads_s = r->seconds * r->threads;

	tap_ok(r->threads >= 1 && r->io_seconds > 0 && r->gpu_wait_seconds >= 0 &&
		   r->io_seconds + r->gpu_wait_seconds <= threads_s * 1.01 + 0.001,
	       "%s: %u threads, %.4f s in the files and checks + %.4f s waiting for the GPU within the "
	       "threads' %.4f s",
	       what, r->threads, r->io_seconds, r->gpu_wait_seconds, threads_s);
	if (delayed)
		tap_ok(r->gpu_wait_seconds >= NCHUNK * DELAY / 1e6 * 0.95 &&
			   r->gpu_wait_seconds > r->io_seconds,
		       "%s: a GPU that takes 20 ms per copy: the waits (%.4f s) hold every copy's delay "
		       "(%u x 20 ms) and outweigh the file work (%.4f s)",
		       what, r->gpu_wait_seconds, NCHUNK, r->io_seconds);
	tap_ok(line_agrees(what, region_line[dir], r), "%s: the region's log line gives the same times",
	       what);
}

static void roundtrip(const struct cs_cuda_ops *ops, int dirfd, bool delayed)
{
	struct cs_engine_opts o = et_opts(K64, 3, 6 * K64, false);
	const char *tag = delayed ? "20 ms copies" : "no delay";
	struct cs_engine_region r;
	CUdeviceptr src, dst;
	char err[512] = "", what[64];
	int ret;

	o.note = note;
	fake_set_copy_delay_us(delayed ? DELAY : 0);
	src = et_dev(fake_ctx(1), NCHUNK * K64, ET_DENSE, K64, 42);
	dst = et_dev(fake_ctx(1), NCHUNK * K64, -1, 0, 0);
	et_region(&r, src, NCHUNK * K64, fake_ctx(1), dirfd, "gpu0.ext");
	region_line[0][0] = region_line[1][0] = 0;
	ret = cs_engine_dump(ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "%s: dump returns 0 (%d: %s)", tag, ret, err);
	snprintf(what, sizeof(what), "%s, dump", tag);
	check(what, &r, 0, delayed);
	r.ptr = dst;
	ret = cs_engine_restore(ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), NCHUNK * K64),
	       "%s: restore returns 0 and the bytes are back (%d: %s)", tag, ret, err);
	snprintf(what, sizeof(what), "%s, restore", tag);
	check(what, &r, 1, delayed);
	fake_set_copy_delay_us(0);
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(dirfd, "gpu0.ext");
}

int main(void)
{
	struct cs_cuda_ops ops;
	struct et_dir d;

	tap_plan(14);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	fake_cuda_init(&ops);
	roundtrip(&ops, d.fd, false);
	roundtrip(&ops, d.fd, true);
	et_dir_remove(&d);
	return tap_done();
}
