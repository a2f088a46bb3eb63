// SPDX-License-Identifier: MIT
/*
 * test-engine-direct-fallback: when O_DIRECT is refused - at the first transfer (buffers the
 * filesystem cannot DMA from: the fake hands out misaligned "pinned" buffers) or at open
 * (ramfs has no O_DIRECT, and no fallocate either) - the engine switches that file to
 * buffered I/O and the round trip stays byte-exact. Likewise a tmpfs dump with map_tmpfs where
 * process_vm_writev is refused (a seccomp filter, as in some sandboxes) goes on with pwrite.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine-test.h"

#define K64 (64u << 10)
#define PER 6

static struct cs_cuda_ops ops;

/* does this directory's filesystem refuse an O_DIRECT write from a misaligned buffer? */
static bool enforces_alignment(int dirfd)
{
	int fd = openat(dirfd, "probe", O_CREAT | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
	char *buf = aligned_alloc(4096, 8192);
	bool refused = false;

	if (fd >= 0 && buf) {
		memset(buf, 1, 8192);
		refused = pwrite(fd, buf + 8, 4096, 0) < 0 && errno == EINVAL;
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, "probe", 0);
	return refused;
}

/* want_direct: 1 or 0, or -1 where either is right; map: ask for the tmpfs mapping */
static void roundtrip(const char *what, int dirfd, size_t misalign, int want_direct, enum et_pattern pat,
		      bool map)
{
	const uint64_t size = 9 * K64 + 999;
	struct cs_engine_region r;
	struct cs_engine_opts o;
	CUdeviceptr src, dst;
	int fds = et_count_fds(), ret;
	char err[512] = "";

	fake_cuda_init(&ops);
	fake_set_misalign(misalign);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.pinned_max = 8 * K64;
	o.map_tmpfs = map;
	src = et_dev(fake_ctx(0), size, pat, K64, 3);
	dst = et_dev(fake_ctx(0), size, -1, 0, 0);
	et_region(&r, src, size, fake_ctx(0), dirfd, "dio.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && (want_direct < 0 || r.used_direct_io == want_direct) && !r.used_mapping,
	       "%s: dump returns 0 (%d: %s), O_DIRECT %d (expected %d), mapping %d (expected 0)", what, ret,
	       err, r.used_direct_io, want_direct, r.used_mapping);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0 && (want_direct < 0 || r.used_direct_io == want_direct),
	       "%s: restore returns 0 (%d: %s), O_DIRECT %d (expected %d)", what, ret, err, r.used_direct_io,
	       want_direct);
	tap_ok(!memcmp(fake_host(src), fake_host(dst), size), "%s: byte-exact", what);
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(dirfd, "dio.ext");
	fake_set_misalign(0);
	et_check_clean(what, fds);
}

/* from here on process_vm_writev fails with EPERM in this process */
static bool refuse_process_vm_writev(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) &&
	       !syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(void)
{
	struct et_dir d, ram;
	int ret;

	struct et_dir shm;

	tap_plan(5 * PER);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	if (enforces_alignment(d.fd)) {
		roundtrip("aligned buffers (control)", d.fd, 0, 1, ET_DENSE, false);
		roundtrip("misaligned buffers: first O_DIRECT write/read refused", d.fd, 8, 0, ET_DENSE,
			  false);
	} else {
		tap_skip(2 * PER, "this directory's filesystem does not refuse misaligned O_DIRECT");
	}
	et_dir_remove(&d);

	ret = et_dir_make(&ram, "ramfs", NULL);
	if (!ret) {
		roundtrip("ramfs: O_DIRECT refused at open, no fallocate", ram.fd, 0, 0, ET_DENSE, false);
		roundtrip("ramfs: zero chunks without hole punching", ram.fd, 0, 0, ET_ZERO75, false);
		et_dir_remove(&ram);
	} else {
		tap_skip(2 * PER, "cannot mount ramfs (not root, or no mount permission)");
	}

	/* last: the seccomp filter stays for the rest of the process */
	ret = et_dir_make(&shm, "tmpfs", "size=4m,mode=0700");
	if (!ret && refuse_process_vm_writev())
		roundtrip("tmpfs mapping, process_vm_writev refused: pwrite", shm.fd, 0, -1, ET_ZERO75, true);
	else
		tap_skip(PER, "cannot mount a tmpfs or install a seccomp filter");
	if (!ret)
		et_dir_remove(&shm);
	return tap_done();
}
