// SPDX-License-Identifier: MIT
/*
 * test-engine-plan: the copy threads and pinned buffers a region gets. A restore, and a dump into
 * a memory filesystem, run one thread per CPU (never fewer than the threads option, never more
 * than 32) where the pinned bound allows; a restore's threads get two buffers each, a dump's into
 * a memory filesystem one; a dump to a disk keeps the threads option with two buffers each. A
 * bound of fewer buffers gives every buffer a thread before any thread gets a second. Copies that
 * run at once split the CPUs (evenly, or by the part of the budget their size gives them), and
 * the CPUs are those the process may use (its affinity). What
 * cs_engine_plan and cs_engine_plan_buffers say is what the copies ran; every copy is byte-exact.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine-test.h"

#define K64  (64u << 10)
#define SIZE (256ull * K64) /* 256 chunks: never the limit below */

static struct cs_cuda_ops ops;
static unsigned cpus;

/* one thread per CPU, at least the threads option (split among sharers), at most 32 */
static unsigned cpu_threads(unsigned threads, unsigned sharers)
{
	unsigned per = threads / sharers ? threads / sharers : 1, c = cpus / sharers;

	c = c > per ? c : per;
	return c < 32 ? c : 32;
}

/* dump then restore SIZE bytes in dirfd with o; each copy's threads and pinned bytes */
static void copies(int dirfd, const struct cs_engine_opts *o, const char *what, unsigned want_dump_threads,
		   uint64_t want_dump_pinned, unsigned want_restore_threads, uint64_t want_restore_pinned)
{
	CUdeviceptr src = et_dev(fake_ctx(0), SIZE, ET_DENSE, K64, 11),
		    dst = et_dev(fake_ctx(0), SIZE, -1, 0, 0);
	struct cs_engine_region r;
	char err[512] = "";
	int ret;

	et_region(&r, src, SIZE, fake_ctx(0), dirfd, "plan.ext");
	ret = cs_engine_dump(&ops, &r, 1, o, err, sizeof(err));
	tap_ok(ret == 0 && r.threads == want_dump_threads && r.pinned_bytes == want_dump_pinned,
	       "%s: the dump ran %u threads with %llu pinned bytes (want %u, %llu; %d %s)", what, r.threads,
	       (unsigned long long)r.pinned_bytes, want_dump_threads, (unsigned long long)want_dump_pinned,
	       ret, err);
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, o, err, sizeof(err));
	tap_ok(ret == 0 && !memcmp(fake_host(src), fake_host(dst), SIZE) &&
		   r.threads == want_restore_threads && r.pinned_bytes == want_restore_pinned,
	       "%s: the restore ran %u threads with %llu pinned bytes (want %u, %llu), byte-exact (%d %s)",
	       what, r.threads, (unsigned long long)r.pinned_bytes, want_restore_threads,
	       (unsigned long long)want_restore_pinned, ret, err);
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_remove_extents(dirfd, "plan.ext");
}

/* what cs_engine_plan and cs_engine_plan_buffers say for o in dirfd */
static void planned(int dirfd, const struct cs_engine_opts *o, const char *what, unsigned want_dump,
		    unsigned want_restore, unsigned want_dump_bufs, unsigned want_restore_bufs)
{
	unsigned dt, rt, stripes, db = cs_engine_plan_buffers(o, SIZE, o->chunk_size, true, dirfd),
				  rb = cs_engine_plan_buffers(o, SIZE, o->chunk_size, false, dirfd);

	cs_engine_plan(o, SIZE, true, dirfd, &dt, &stripes);
	cs_engine_plan(o, SIZE, false, dirfd, &rt, &stripes);
	tap_ok(dt == want_dump && rt == want_restore && db == want_dump_bufs && rb == want_restore_bufs,
	       "%s: cs_engine_plan says %u dump and %u restore threads, cs_engine_plan_buffers %u and %u "
	       "buffers (want %u, %u, %u, %u)",
	       what, dt, rt, db, rb, want_dump, want_restore, want_dump_bufs, want_restore_bufs);
}

static void memfs(void)
{
	struct cs_engine_opts o = et_opts(K64, 1, 128 * K64, false);
	unsigned n = cpu_threads(1, 1), s;
	struct et_dir m;

	if (et_dir_make(&m, "tmpfs", "size=64m,mode=0700")) {
		tap_skip(7, "cannot mount a tmpfs here (not root?)");
		return;
	}
	copies(m.fd, &o, "tmpfs", n, n * K64, n, 2ull * n * K64);
	planned(m.fd, &o, "tmpfs", n, n, n, 2 * n);

	o.pinned_max = 3 * K64;
	s = n < 3 ? n : 3;
	copies(m.fd, &o, "tmpfs, a bound of 3 buffers", s, s * K64, s, 3 * K64);

	o.pinned_max = 128 * K64;
	o.sharers = 4;
	s = cpu_threads(1, 4);
	copies(m.fd, &o, "tmpfs, one of 4 copies at once", s, s * K64, s, 2ull * s * K64);
	et_dir_remove(&m);
}

static void disk(void)
{
	struct cs_engine_opts o = et_opts(K64, 1, 128 * K64, false);
	unsigned n = cpu_threads(1, 1);
	struct et_dir d;

	if (!et_disk_dir_make(&d, 3))
		return;
	copies(d.fd, &o, "disk", 1, 2 * K64, n, 2ull * n * K64);
	planned(d.fd, &o, "disk", 1, n, 2, 2 * n);
	et_dir_remove(&d);
}

/* a part of the budget in proportion to a copy's size (opts.part) instead of an even 1/sharers */
static void parts(void)
{
	struct cs_engine_opts o = et_opts(K64, 8, 128 * K64, false);
	unsigned k, dt, rt, stripes, want_r, want_d;
	struct et_dir d;
	static const unsigned part[] = { 768, 256 };

	if (!et_disk_dir_make(&d, 2))
		return;
	o.sharers = 2; /* overridden by the part */
	for (k = 0; k < 2; k++) {
		o.part = part[k];
		want_d = 8 * part[k] / CS_ENGINE_PART_WHOLE;
		want_r = cpus * part[k] / CS_ENGINE_PART_WHOLE;
		want_r = want_r > want_d ? want_r : want_d;
		want_r = want_r < 32 ? want_r : 32;
		cs_engine_plan(&o, SIZE, true, d.fd, &dt, &stripes);
		cs_engine_plan(&o, SIZE, false, d.fd, &rt, &stripes);
		tap_ok(dt == want_d && rt == want_r,
		       "part %u/1024 of 8 threads and %u CPUs: %u dump threads to a disk, %u restore threads "
		       "(want %u, %u)",
		       part[k], cpus, dt, rt, want_d, want_r);
	}
	et_dir_remove(&d);
}

/* a process allowed on one CPU (taskset, a container's cpuset) plans for one, whatever the host has */
static void one_cpu(void)
{
	struct cs_engine_opts o = et_opts(K64, 1, 128 * K64, false);
	cpu_set_t all, one;
	unsigned rt, stripes;
	int k;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		tap_skip(1, "cannot read this process's CPU affinity");
		return;
	}
	for (k = 0; k < CPU_SETSIZE && !CPU_ISSET(k, &all); k++)
		;
	CPU_ZERO(&one);
	CPU_SET(k, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		tap_skip(1, "cannot pin this process to one CPU");
		return;
	}
	cs_engine_plan(&o, SIZE, false, AT_FDCWD, &rt, &stripes);
	sched_setaffinity(0, sizeof(all), &all);
	tap_ok(rt == 1, "allowed on one CPU of %u: the restore plans 1 thread (%u)", cpus, rt);
}

int main(void)
{
	cpu_set_t set;

	tap_plan(13);
	cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : (unsigned)CPU_COUNT(&set);
	fake_cuda_init(&ops);
	memfs();
	disk();
	parts();
	one_cpu();
	return tap_done();
}
