// SPDX-License-Identifier: MIT
/*
 * test-engine-tmpfs-restore-map: a restore from a tmpfs reads through a mapping when its pages
 * were not read since they were written (tmpfs_restore_map = auto), always with yes, never with
 * no or on a disk, and returns the same bytes every way. Where the page flags can be read
 * (root, classic LRU), a restore through the mapping leaves the pages as the dump left them,
 * waiting for their first promotion, and read(2) promotes nearly all. (The auto cases rely on
 * the engine's probe, which reads the same flags as root: other work on the host cannot sway
 * it.) A file that shrinks during a mapped restore fails it with an error that says so, and the
 * process lives on; a SIGBUS that is not the engine's still reaches the handler that was
 * installed before. On a ramfs, whose pages are never promoted (they are unevictable), auto
 * reads with read(2). The runs of chunks a thread claims from a mapping shrink towards the end
 * of the region (eng_run_length), so that the threads end together.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine-test.h"
#include "engine_priv.h"
#include "procfs.h"

#define K64  (64u << 10)
#define SIZE (8u << 20)

static struct cs_cuda_ops ops;

/* ---- the SIGBUS handler this program installs before the engine installs its own ---- */
static atomic_int ours_called, ours_code;
static sigjmp_buf *ours_env;

static void ours(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	atomic_fetch_add(&ours_called, 1);
	atomic_store(&ours_code, si->si_code);
	if (ours_env)
		siglongjmp(*ours_env, 1);
}

/* read every file of the directory once with read(2), as a copy or an earlier restore would */
static void read_all(const char *path)
{
	static char buf[1 << 16];
	struct dirent *e;
	DIR *d = opendir(path);

	while (d && (e = readdir(d))) {
		char name[PATH_MAX + 300];
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s/%s", path, e->d_name);
		fd = open(name, O_RDONLY);
		while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
			;
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
}

enum prior { FRESH, READ_BEFORE };
/* what the page flags must show after the restore (checked where they can be read) */
enum after { UNCHECKED, UNPROMOTED, PROMOTED };
static bool flags_readable;

/* dump into d, maybe read it once, restore with mode: mapped as expected, same bytes, pages as
 * expected; 6 checks, 7 with the page flags */
static void restore_case(const char *what, struct et_dir *d, enum cs_tristate mode, enum prior prior,
			 bool expect_map, enum after after, uint64_t size)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	struct cs_engine_region r;
	uint64_t promotable = 0, pages = 0;
	CUdeviceptr src;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), size, ET_DENSE, K64, 21);
	et_region(&r, src, size, fake_ctx(0), d->fd, "mapread.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "%s: dump returns 0 (%d: %s)", what, ret, err);
	if (prior == READ_BEFORE)
		read_all(d->path);
	o.tmpfs_restore_map = mode;
	et_restore_equal(&ops, &r, &o, src, what);
	tap_ok(r.used_mapping == expect_map, "%s: the restore %s through a mapping", what,
	       expect_map ? "read" : "did not read");
	if (after == UNCHECKED)
		;
	else if (!flags_readable || et_count_promotable_region(d->fd, &r, &promotable, &pages) || !pages)
		tap_skip(1, "page flags: not readable here (not root, or multi-gen LRU)");
	else if (after == UNPROMOTED)
		tap_ok(promotable * 10 > pages * 9,
		       "%s: the restore left the pages as the dump did, unpromoted (%llu of %llu)", what,
		       (unsigned long long)promotable, (unsigned long long)pages);
	else
		tap_ok(promotable * 10 < pages,
		       "%s: the pages are promoted after the restore (%llu of %llu not)", what,
		       (unsigned long long)promotable, (unsigned long long)pages);
	cs_engine_region_free_meta(&r);
	et_remove_extents(d->fd, "mapread.ext");
	fake_dev_free(src);
	et_check_clean(what, fds);
}

/* ---- a file that shrinks during the restore ---- */
static const char *shrink_path;
static atomic_bool shrunk;

static void shrink_all(void *arg, unsigned region, uint64_t done, uint64_t total)
{
	struct dirent *e;
	DIR *d;

	(void)arg, (void)region, (void)done, (void)total;
	if (atomic_exchange(&shrunk, true))
		return;
	d = opendir(shrink_path);
	while (d && (e = readdir(d))) {
		char name[PATH_MAX + 300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s/%s", shrink_path, e->d_name);
		if (truncate(name, 0))
			perror(name);
	}
	if (d)
		closedir(d);
}

static void shrink_case(struct et_dir *d)
{
	struct cs_engine_opts o = et_opts(K64, 4, 8 * K64, false);
	struct cs_engine_region r;
	CUdeviceptr src, dst;
	char err[512] = "";
	int fds = et_count_fds(), ret, called = atomic_load(&ours_called);

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), SIZE, ET_DENSE, K64, 22);
	dst = et_dev(fake_ctx(0), SIZE, -1, 0, 0);
	et_region(&r, src, SIZE, fake_ctx(0), d->fd, "shrink.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "shrinking file: dump returns 0 (%d: %s)", ret, err);
	o.tmpfs_restore_map = CS_YES;
	o.progress = shrink_all; /* first called after the first chunk: every file cut to 0 bytes */
	shrink_path = d->path;
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -EFAULT && atomic_load(&shrunk),
	       "shrinking file: the restore fails with EFAULT, the process lives on (%d)", ret);
	et_check_msg(err, "shrinking file", "shrank during the restore", "shrink.");
	tap_ok(atomic_load(&ours_called) == called,
	       "shrinking file: the engine's faults did not reach the program's own SIGBUS handler");
	cs_engine_region_free_meta(&r);
	et_remove_extents(d->fd, "shrink.ext");
	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean("shrinking file", fds);
}

/* after the engine installed its handler: a SIGBUS sent, and a fault outside the engine's copy */
static void forward_case(struct et_dir *d)
{
	sigjmp_buf env;
	volatile char *volatile p = MAP_FAILED;
	int fd = openat(d->fd, "fault", O_RDWR | O_CREAT | O_EXCL, 0600);

	atomic_store(&ours_called, 0);
	raise(SIGBUS);
	tap_ok(atomic_load(&ours_called) == 1 && atomic_load(&ours_code) <= 0,
	       "a SIGBUS sent by raise() reaches the program's handler (%d calls, code %d)",
	       atomic_load(&ours_called), atomic_load(&ours_code));
	if (fd >= 0 && !ftruncate(fd, 4096))
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0)) {
		tap_skip(1, "cannot map a file to fault on");
	} else {
		ours_env = &env;
		if (!sigsetjmp(env, 1))
			(void)p[0]; /* past the end of the file now: SIGBUS */
		ours_env = NULL;
		tap_ok(atomic_load(&ours_called) == 2 && atomic_load(&ours_code) == BUS_ADRERR,
		       "a fault outside the engine's copy reaches the program's handler (%d calls, code %d)",
		       atomic_load(&ours_called), atomic_load(&ours_code));
	}
	if (p != MAP_FAILED)
		munmap((void *)p, 4096);
	if (fd >= 0)
		close(fd);
	unlinkat(d->fd, "fault", 0);
}

#define CASE_CHECKS                                                                                          \
	7 /* shrink_case, and restore_case with the page flags: 4 of their own, et_check_clean 3 */

/*
 * The run lengths: a full group while much is left, the unclaimed chunks over twice the threads
 * towards the end, never more than the file has, never 0. Then 256 chunks in 4 files claimed by
 * 4 threads in turn, as claim_run does: every chunk once, runs of 16 first, shorter ones only in
 * the last 2 x 4 x 16 chunks, the last 8 runs one chunk each. 6 checks.
 */
#define RUN_CHECKS 6
static void run_lengths(void)
{
	uint64_t next[4] = { 0 }, unclaimed = 256, n, last[8] = { 0 };
	unsigned k, turn = 0, runs = 0, late_full = 0, i;
	bool tail_ones = true;

	tap_ok(eng_run_length(1024, 16, 16, 100) == 16 && eng_run_length(1024, 16, 16, 3) == 3,
	       "a run is a full group while much is left, never more than the file's rows");
	tap_ok(eng_run_length(64, 16, 16, 100) == 2 && eng_run_length(10, 16, 16, 100) == 1 &&
		   eng_run_length(0, 16, 16, 100) == 1,
	       "towards the end a run is the unclaimed chunks over twice the threads, at least 1");
	tap_ok(eng_run_length(100, 0, 16, 100) == 16, "no threads counts as one");
	while (unclaimed) {
		k = turn++ % 4;
		if (next[k] >= 64)
			continue;
		n = eng_run_length(unclaimed, 4, 16, 64 - next[k]);
		late_full += unclaimed < 2 * 4 * 16 && n == 16;
		next[k] += n;
		unclaimed -= n;
		last[runs++ % 8] = n;
	}
	for (i = 0; i < 8; i++)
		tail_ones = tail_ones && last[i] == 1;
	tap_ok(next[0] == 64 && next[1] == 64 && next[2] == 64 && next[3] == 64,
	       "256 chunks in 4 files: every row of every file claimed once (%u runs)", runs);
	tap_ok(!late_full, "no full run of 16 once fewer than 2 x 4 x 16 chunks were left");
	tap_ok(tail_ones, "the last 8 runs are one chunk each: the threads end within a chunk of each other");
}

int main(void)
{
	struct sigaction sa;
	struct et_dir t, disk;
	bool classic = !et_multigen_lru(); /* else the engine's probe never chooses the mapping */

	flags_readable = et_page_flags_readable();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ours;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);

	tap_plan(RUN_CHECKS + 6 * CASE_CHECKS + 2 + 2 * (CASE_CHECKS - 1));
	run_lengths();
	if (et_dir_make(&t, "tmpfs", "size=64m,mode=0700")) {
		tap_skip(6 * CASE_CHECKS + 2, "cannot mount a tmpfs (not root?)");
	} else {
		restore_case("tmpfs, auto, pages never read", &t, CS_AUTO, FRESH, classic,
			     classic ? UNPROMOTED : PROMOTED, SIZE);
		restore_case("tmpfs, auto, pages read before", &t, CS_AUTO, READ_BEFORE, false, PROMOTED,
			     SIZE);
		restore_case("tmpfs, yes, pages read before", &t, CS_YES, READ_BEFORE, true, PROMOTED, SIZE);
		/* 147 chunks, the last one short: the runs of chunks a thread claims end mid-file */
		restore_case("tmpfs, yes, an odd size", &t, CS_YES, FRESH, true, UNPROMOTED,
			     SIZE + 19 * K64 + 1000);
		restore_case("tmpfs, no, pages never read", &t, CS_NO, FRESH, false, PROMOTED, SIZE);
		shrink_case(&t);
		forward_case(&t);
		et_dir_remove(&t);
	}
	/* ramfs never promotes its pages (they are unevictable): nothing to avoid, read(2) */
	if (et_dir_make(&t, "ramfs", "mode=0700")) {
		tap_skip(CASE_CHECKS - 1, "cannot mount a ramfs (not root?)");
	} else {
		restore_case("ramfs, auto", &t, CS_AUTO, FRESH, false, UNCHECKED, SIZE);
		et_dir_remove(&t);
	}
	if (et_disk_dir_make(&disk, CASE_CHECKS - 1)) {
		restore_case("disk, yes", &disk, CS_YES, FRESH, false, UNCHECKED, SIZE);
		et_dir_remove(&disk);
	}
	return tap_done();
}
