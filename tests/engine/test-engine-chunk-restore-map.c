// SPDX-License-Identifier: MIT
/*
 * test-engine-chunk-restore-map: a chunked restore from a tmpfs reads its chunk files through
 * mappings, as the extent restore reads its files (tmpfs_restore_map): with auto when the chunks
 * were not read since the dump wrote them, always with yes, never with no, after an earlier read
 * under auto, or on a disk; the same bytes every way. Where the page flags can be read (root,
 * classic LRU), a restore through the mappings leaves the chunks' pages as the dump left them,
 * waiting for their first promotion, also where a copy thread's window of mappings is dropped
 * and used again (more chunks than its slots). A chunk file whose pages cannot be had (a hole on a full
 * tmpfs) faults in the mapped copy: the restore fails with EFAULT and an error that names the
 * chunk file, and the process lives on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunkstore.h"
#include "engine-test.h"

#define K64	    (64u << 10)
#define C	    CS_DEDUP_CHUNK /* a chunked dump's chunk */
#define SIZE	    (4ull * C)
#define CASE_CHECKS 6 /* restore_case's without the page flags; shrink_case's too */

static struct cs_cuda_ops ops;
static bool flags_readable;

/* a chunked dump of src into d's chunk directory (r->ids, r->hash set); 1 check */
static void chunked_dump(const char *what, struct et_dir *d, struct cs_engine_region *r, CUdeviceptr src,
			 uint64_t size, const struct cs_engine_opts *o)
{
	struct cs_chunk_sink sink = { .store = -1, .stmp = -1, .parent = -1 };
	char err[512] = "";
	int ret;

	sink.img = cs_chunks_dir_open(d->fd, true);
	et_region(r, src, size, fake_ctx(0), d->fd, "chunked.ext");
	r->sink = &sink;
	ret = sink.img < 0 ? sink.img : cs_engine_dump(&ops, r, 1, o, err, sizeof(err));
	tap_ok(ret == 0, "%s: chunked dump returns 0 (%d: %s)", what, ret, err);
	r->sink = NULL; /* from here a restore's region: its ids are the caller's to free */
	if (sink.img >= 0)
		close(sink.img);
}

/* read every chunk file once with read(2), as a copy or an earlier restore would */
static void read_chunks(const struct et_dir *d, const struct cs_engine_region *r)
{
	static char buf[K64];
	int cfd = cs_chunks_dir_open(d->fd, false);
	uint64_t i;

	for (i = 0; cfd >= 0 && i * C < r->size; i++) {
		int fd = cs_chunk_open_ro(cfd, r->ids + i * CS_CHUNK_ID_LEN,
					  r->size - i * C < C ? r->size - i * C : C);

		while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
			;
		if (fd >= 0)
			close(fd);
	}
	if (cfd >= 0)
		close(cfd);
}

/* pages of the region's chunk files that a first read would promote, of those looked at */
static int count_promotable(const struct et_dir *d, const struct cs_engine_region *r, uint64_t *promotable,
			    uint64_t *pages)
{
	int cfd = cs_chunks_dir_open(d->fd, false), ret = cfd < 0 ? -1 : 0;
	uint64_t i, a, b;

	*promotable = *pages = 0;
	for (i = 0; !ret && i * C < r->size; i++) {
		char rel[CS_CHUNK_REL];

		cs_chunk_rel(r->ids + i * CS_CHUNK_ID_LEN, rel);
		ret = et_count_promotable(cfd, rel, &a, &b);
		*promotable += a;
		*pages += b;
	}
	if (cfd >= 0)
		close(cfd);
	return ret;
}

enum prior { FRESH, READ_BEFORE };

/* chunked dump into d, maybe read once, restore with mode; CASE_CHECKS checks, one more with
 * check_flags */
static void restore_case(const char *what, struct et_dir *d, enum cs_tristate mode, enum prior prior,
			 bool expect_map, bool check_flags, uint64_t size, unsigned threads)
{
	struct cs_engine_opts o = et_opts(C, threads, 2 * threads * C, false);
	struct cs_engine_region r;
	uint64_t promotable = 0, pages = 0;
	CUdeviceptr src;
	int fds = et_count_fds();

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), size, ET_DENSE, C, 31);
	chunked_dump(what, d, &r, src, size, &o);
	if (prior == READ_BEFORE)
		read_chunks(d, &r);
	o.tmpfs_restore_map = mode;
	et_restore_equal(&ops, &r, &o, src, what);
	tap_ok(r.used_mapping == expect_map, "%s: the restore %s its chunk files through mappings", what,
	       expect_map ? "read" : "did not read");
	if (!check_flags)
		;
	else if (!flags_readable || count_promotable(d, &r, &promotable, &pages) || !pages)
		tap_skip(1, "page flags: not readable here (not root, or multi-gen LRU)");
	else
		tap_ok(promotable * 10 > pages * 9,
		       "%s: the restore left the chunks' pages as the dump did, unpromoted (%llu of %llu)",
		       what, (unsigned long long)promotable, (unsigned long long)pages);
	cs_engine_region_free_meta(&r);
	free(r.ids); /* the restore's: the caller's (chunked_dump handed them over) */
	cs_chunks_dir_clear(d->fd, NULL);
	fake_dev_free(src);
	et_check_clean(what, fds);
}

/* ---- chunk files whose pages cannot be had: a mapped read faults ---- */

/* every chunk file of d made a hole of its own length (the length checks still pass), then the
 * tmpfs filled: a fault on a hole must allocate a page, and there is none (SIGBUS); 0 or -1 */
static int holes_and_full(struct et_dir *d, const struct cs_engine_region *r)
{
	int cfd = cs_chunks_dir_open(d->fd, false), fill, ret = cfd < 0 ? -1 : 0;
	uint64_t i;

	for (i = 0; !ret && i * C < r->size; i++) {
		uint64_t len = r->size - i * C < C ? r->size - i * C : C;
		char rel[CS_CHUNK_REL];
		int fd;

		cs_chunk_rel(r->ids + i * CS_CHUNK_ID_LEN, rel);
		fd = openat(cfd, rel, O_WRONLY);
		ret = fd < 0 || ftruncate(fd, 0) || ftruncate(fd, (off_t)len) ? -1 : 0;
		if (fd >= 0)
			close(fd);
	}
	if (cfd >= 0)
		close(cfd);
	fill = openat(d->fd, "filler", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fill < 0)
		return -1;
	for (i = 0; !ret && !posix_fallocate(fill, (off_t)(i * K64), K64); i++)
		;
	close(fill);
	return ret;
}

static void fault_case(struct et_dir *d)
{
	struct cs_engine_opts o = et_opts(C, 4, 8 * C, false);
	struct cs_engine_region r;
	CUdeviceptr src, dst;
	char err[512] = "";
	int fds = et_count_fds(), ret;

	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), SIZE, ET_DENSE, C, 32);
	dst = et_dev(fake_ctx(0), SIZE, -1, 0, 0);
	chunked_dump("unreadable chunks", d, &r, src, SIZE, &o);
	if (holes_and_full(d, &r))
		tap_bail("cannot make the chunk files holes and fill the tmpfs");
	o.tmpfs_restore_map = CS_YES;
	r.ptr = dst;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == -EFAULT,
	       "unreadable chunks: the mapped read faults, the restore fails with EFAULT, "
	       "the process lives on (%d)",
	       ret);
	et_check_msg(err, "unreadable chunks", "through its mapping faulted", CS_CHUNKS_DIR "/");
	unlinkat(d->fd, "filler", 0);
	cs_engine_region_free_meta(&r);
	free(r.ids); /* the restore's: the caller's (chunked_dump handed them over) */
	cs_chunks_dir_clear(d->fd, NULL);
	fake_dev_free(src);
	fake_dev_free(dst);
	et_check_clean("unreadable chunks", fds);
}

int main(void)
{
	struct et_dir t, disk;
	bool classic = !et_multigen_lru(); /* else the engine's probe never chooses the mapping */

	flags_readable = et_page_flags_readable();
	tap_plan(6 * CASE_CHECKS + 3 + CASE_CHECKS + CASE_CHECKS + CASE_CHECKS);
	if (et_dir_make(&t, "tmpfs", "size=192m,mode=0700")) {
		tap_skip(6 * CASE_CHECKS + 3 + CASE_CHECKS, "cannot mount a tmpfs (not root?)");
	} else {
		restore_case("tmpfs, auto, chunks never read", &t, CS_AUTO, FRESH, classic, true, SIZE, 4);
		restore_case("tmpfs, auto, chunks read before", &t, CS_AUTO, READ_BEFORE, false, false, SIZE,
			     4);
		restore_case("tmpfs, yes, chunks read before", &t, CS_YES, READ_BEFORE, true, false, SIZE, 4);
		/* the last chunk short, and not a multiple of a page */
		restore_case("tmpfs, yes, an odd size", &t, CS_YES, FRESH, true, true, SIZE + 19 * K64 + 1000,
			     4);
		/* one thread through 40 chunk slots: its window of 16 is dropped twice, then freed */
		restore_case("tmpfs, yes, one thread, 40 chunks", &t, CS_YES, FRESH, true, true, 40 * C, 1);
		restore_case("tmpfs, no, chunks never read", &t, CS_NO, FRESH, false, false, SIZE, 4);
		fault_case(&t);
		et_dir_remove(&t);
	}
	/* ramfs never promotes its pages (they are unevictable): nothing to avoid, read(2) */
	if (et_dir_make(&t, "ramfs", "mode=0700")) {
		tap_skip(CASE_CHECKS, "cannot mount a ramfs (not root?)");
	} else {
		restore_case("ramfs, auto", &t, CS_AUTO, FRESH, false, false, SIZE, 4);
		et_dir_remove(&t);
	}
	if (et_disk_dir_make(&disk, CASE_CHECKS)) {
		restore_case("disk, yes", &disk, CS_YES, FRESH, false, false, SIZE, 4);
		et_dir_remove(&disk);
	}
	return tap_done();
}
