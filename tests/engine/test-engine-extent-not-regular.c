// SPDX-License-Identifier: MIT
/*
 * test-engine-extent-not-regular: the engine opens extents through imgdir.c: a FIFO planted
 * under an extent's name is refused at once (O_NONBLOCK: opening it must not wait for a
 * writer), a symlink is not followed (O_NOFOLLOW), a name that is not safe is refused. An
 * alarm bounds the test: a blocking open would hang it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-test.h"

int main(void)
{
	const uint64_t size = 2u << 20;
	struct cs_engine_region r;
	struct cs_engine_opts o;
	struct cs_cuda_ops ops;
	struct et_dir d;
	CUdeviceptr src, dst;
	char err[512] = "";
	int ret, fds;

	tap_plan(6);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	alarm(20);
	fds = et_count_fds();
	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = 1u << 20;
	o.threads = 2;
	o.pinned_max = 4u << 20;
	src = et_dev(fake_ctx(1), size, ET_DENSE, o.chunk_size, 3);
	dst = et_dev(fake_ctx(1), size, -1, 0, 0);
	et_region(&r, src, size, fake_ctx(1), d.fd, "gpu0.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "dump returns 0 (%d: %s)", ret, err);
	r.ptr = dst;

	renameat(d.fd, "gpu0.ext", d.fd, "real.ext");
	mkfifoat(d.fd, "gpu0.ext", 0600);
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "not a regular file"),
	       "a FIFO as extent is refused at once (%d: %s)", ret, err);
	unlinkat(d.fd, "gpu0.ext", 0);

	symlinkat("real.ext", d.fd, "gpu0.ext");
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -ELOOP, "a symlink as extent is not followed (%d: %s)", ret, err);
	unlinkat(d.fd, "gpu0.ext", 0);

	r.name = "../gpu0.ext";
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -EINVAL, "a name with a path is refused (%d: %s)", ret, err);
	r.name = "gpu0.ext";

	renameat(d.fd, "real.ext", d.fd, "gpu0.ext");
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), size),
	       "the real extent restores byte-exact (%d: %s)", ret, err);
	tap_ok(et_count_fds() == fds, "no file descriptor left open");
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_dir_remove(&d);
	return tap_done();
}
