// SPDX-License-Identifier: MIT
/* test-engine-enospc: a dump that does not fit fails up front with -ENOSPC naming the file, and cleans up
 * after itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "engine-test.h"

#define K64 (64u << 10)

static struct cs_cuda_ops ops;

static void scenario(const char *what, int dirfd, const uint64_t *sizes, unsigned n, const char *needle)
{
	struct cs_engine_region r[4];
	CUdeviceptr src[4];
	struct cs_engine_opts o;
	char names[4][16], err[512] = "";
	int fds = et_count_fds(), ret;
	bool gone = true, nometa = true;
	unsigned i;

	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.pinned_max = 4 * K64;
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "gpu%u.ext", i);
		src[i] = et_dev(fake_ctx(i), sizes[i], ET_DENSE, K64, i);
		et_region(&r[i], src[i], sizes[i], fake_ctx(i), dirfd, names[i]);
	}
	ret = cs_engine_dump(&ops, r, n, &o, err, sizeof(err));
	tap_ok(ret == -ENOSPC, "%s: dump returns -ENOSPC (got %d)", what, ret);
	et_check_msg(err, what, needle, "free");
	for (i = 0; i < n; i++) {
		gone &= faccessat(dirfd, names[i], F_OK, 0) && errno == ENOENT;
		nometa &= !r[i].hash && !r[i].zero;
		fake_dev_free(src[i]);
	}
	tap_ok(gone, "%s: no partial extent left behind", what);
	tap_ok(nometa, "%s: chunk metadata freed", what);
	et_check_clean(what, fds);
}

int main(void)
{
	static const uint64_t one[] = {4u << 20};
	static const uint64_t two[] = {512u << 10, 2u << 20, 256u << 10};
	struct et_dir d;
	int ret;

	ret = et_dir_make(&d, "tmpfs", "size=1m,mode=0700");
	if (ret)
		tap_skip_all("cannot mount a small tmpfs (not root, or no mount permission)");
	tap_plan(2 * 7);
	scenario("4 MiB region onto a 1 MiB tmpfs", d.fd, one, 1, "gpu0.ext: it needs 4194304 bytes");
	scenario("second of three regions does not fit", d.fd, two, 3, "gpu1.ext");
	et_dir_remove(&d);
	return tap_done();
}
