// SPDX-License-Identifier: MIT
/*
 * test-engine-prefetch: a restore prefetch (engine_prefetch.c) only ever saves work. Chunks it
 * read and verified are taken from memory (byte-exact, counted); a bad chunk it saw is read
 * again and refused by the restore; bytes it verified stay right even if the file changes
 * later; a chunk table that expects another hash makes the restore ignore the prefetched copy;
 * the memory bound holds; pinned memory stays within its bound; nothing leaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine-test.h"

#define K64  (64u << 10)
#define SIZE (24 * K64 + 100)

static struct cs_cuda_ops ops;
static struct cs_engine_opts o;
static struct et_dir d;

static void flip(const struct cs_engine_region *r, uint64_t chunk)
{
	unsigned n = r->nstripes ? r->nstripes : 1;
	const char *name = chunk % n ? r->stripe_name[chunk % n] : r->name;
	int fd = openat(d.fd, name, O_RDWR | O_CLOEXEC);
	off_t off = (off_t)(chunk / n * K64 + 99);
	unsigned char c;

	if (fd < 0 || pread(fd, &c, 1, off) != 1)
		tap_bail("cannot read %s", name);
	c ^= 0x40;
	if (pwrite(fd, &c, 1, off) != 1)
		tap_bail("cannot write %s", name);
	close(fd);
}

/*
 * dump (pattern pat), then: damage_before (chunk or -1) flipped before the prefetch,
 * damage_after after it, max prefetch bytes, then restore with it.
 */
static void scenario(const char *what, enum et_pattern pat, int damage_before, int damage_after,
		     uint64_t max_bytes, int change_hash, int want_ret, uint64_t want_taken)
{
	struct cs_engine_region r;
	struct cs_engine_opts ro = o;
	struct cs_prefetch_stats ps;
	struct cs_prefetch *pf;
	struct fake_stats st;
	CUdeviceptr src, dst;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), SIZE, pat, K64, 3);
	dst = et_dev(fake_ctx(0), SIZE, -1, 0, 0);
	et_region(&r, src, SIZE, fake_ctx(0), d.fd, "pf.ext");
	if (cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err)))
		tap_bail("dump failed: %s", err);
	if (damage_before >= 0)
		flip(&r, (uint64_t)damage_before);
	ret = cs_prefetch_start(&pf, &r, 1, 3, max_bytes, err, sizeof(err));
	if (ret)
		tap_bail("prefetch did not start: %s", err);
	cs_prefetch_wait(pf); /* everything read (up to the bound) */
	cs_prefetch_get_stats(pf, &ps);
	if (damage_after >= 0)
		flip(&r, (uint64_t)damage_after);
	if (change_hash >= 0)
		r.hash[change_hash] ^= 1; /* the restore's table expects another hash for this chunk */
	r.ptr = dst;
	ro.prefetch = pf;
	ret = cs_engine_restore(&ops, &r, 1, &ro, err, sizeof(err));
	fake_get_stats(&st);
	tap_ok(ret == want_ret, "%s: restore returns %d (%d: %s)", what, want_ret, ret, err);
	if (!want_ret)
		tap_ok(!memcmp(fake_host(src), fake_host(dst), SIZE), "%s: device bytes equal the source",
		       what);
	else
		tap_ok(strstr(err, "checksum mismatch"), "%s: the checksum error is reported", what);
	tap_ok(want_ret || r.prefetched_bytes == want_taken,
	       "%s: %llu bytes taken from the prefetch (want %llu; %llu read, %llu bad chunks)", what,
	       (unsigned long long)r.prefetched_bytes, (unsigned long long)want_taken,
	       (unsigned long long)ps.ready_bytes, (unsigned long long)ps.bad_chunks);
	tap_ok(st.max_pinned <= o.pinned_max, "%s: pinned %llu within %zu", what,
	       (unsigned long long)st.max_pinned, o.pinned_max);
	/* what one restore did not take was given back with it: a second restore reads the files */
	memset(fake_host(dst), 0xa5, SIZE);
	if (change_hash >= 0)
		r.hash[change_hash] ^= 1;
	if (damage_after >= 0)
		flip(&r, (uint64_t)damage_after); /* undo */
	ret = cs_engine_restore(&ops, &r, 1, &ro, err, sizeof(err));
	tap_ok(r.prefetched_bytes == 0 && ret == (damage_before >= 0 ? -EBADMSG : 0) &&
		   (damage_before >= 0 || !memcmp(fake_host(src), fake_host(dst), SIZE)),
	       "%s: a second restore takes nothing from the prefetch (%llu bytes; %d %s)", what,
	       (unsigned long long)r.prefetched_bytes, ret, err);
	cs_prefetch_free(pf);
	cs_engine_region_free_meta(&r);
	et_remove_extents(d.fd, "pf.ext");
	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean(what, fds);
}

int main(void)
{
	uint64_t all = SIZE, zero75 = 6 * K64 + 100 /* chunks 0, 4, ..., 24 (the 100-byte tail) */;

	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	tap_plan(7 * 8);
	cs_engine_opts_default(&o);
	o.chunk_size = K64;
	o.threads = 2;
	o.pinned_max = 4 * K64;
	o.stripes = 3;
	scenario("dense, all prefetched", ET_DENSE, -1, -1, 1u << 30, -1, 0, all);
	scenario("75% zero: only stored chunks prefetched", ET_ZERO75, -1, -1, 1u << 30, -1, 0, zero75);
	scenario("memory bound of 5 chunks", ET_DENSE, -1, -1, 5 * K64, -1, 0, 5 * K64);
	scenario("chunk 7 damaged before the prefetch: refused by the restore", ET_DENSE, 7, -1, 1u << 30, -1,
		 -EBADMSG, 0);
	scenario("chunk 7 damaged after the prefetch verified it: restored right", ET_DENSE, -1, 7, 1u << 30,
		 -1, 0, all);
	scenario("restore expects another hash for chunk 2: prefetched copy unused, file refused", ET_DENSE,
		 -1, -1, 1u << 30, 2, -EBADMSG, 0);
	o.stripes = 1;
	scenario("one file", ET_DENSE, -1, -1, 1u << 30, -1, 0, all);
	et_dir_remove(&d);
	return tap_done();
}
