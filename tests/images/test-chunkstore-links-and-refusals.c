// SPDX-License-Identifier: MIT
/*
 * test-chunkstore-links-and-refusals - chunked images (docs/image-format.md section 10): a chunk is
 * written once and hard-linked from the store or the parent after; a chunked manifest (format 1.5)
 * round-trips and its check finds a missing or truncated chunk; a parent that is missing, the
 * directory itself, in a loop, on another filesystem, of another tree or of extents is refused;
 * gc removes only unreferenced store chunks and leftovers, and never while a dump holds the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "chunk_parent.h"
#include "chunkstore.h"
#include "imgindex.h"
#include "unit.h"

#define CHUNK (64u << 10)
#define NCH   3
#define SIZE  (2 * CHUNK + 1000)

static uint8_t data[SIZE];
static uint8_t ids[NCH][CS_CHUNK_ID_LEN];

static size_t len_of(unsigned c)
{
	return c + 1 < NCH ? CHUNK : SIZE - (NCH - 1) * CHUNK;
}

static unsigned nlink_of(int cfd, unsigned c)
{
	char rel[CS_CHUNK_REL];
	struct stat st;

	cs_chunk_rel(ids[c], rel);
	return fstatat(cfd, rel, &st, AT_SYMLINK_NOFOLLOW) ? 0 : (unsigned)st.st_nlink;
}

static int sub(int dirfd, const char *name)
{
	int fd;

	mkdirat(dirfd, name, 0700);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		tap_bail("cannot make %s", name);
	return fd;
}

/* a chunked manifest of ns pid 7 in dir, every chunk put through s, and its index */
static void dump_into(int dir, const struct cs_chunk_sink *s, const struct cs_index *parent)
{
	struct cs_manifest m;
	struct cs_index x;
	enum cs_chunk_from from;
	char err[512];
	struct cs_manifest_dev *d = &m.dev[0];

	memset(&m, 0, sizeof(m));
	m.format_major = 1;
	m.mode = CS_MODE_CUSTOM;
	m.pid = m.ns_pid = 7;
	m.ndev = 1;
	m.has_dump_id = true;
	memset(m.dump_id, dir, sizeof(m.dump_id));
	d->size = m.total_bytes = m.stored_bytes = d->stored_bytes = SIZE;
	snprintf(d->extent, sizeof(d->extent), "cudastore-7-gpu0.ext");
	d->nstripes = 1;
	d->chunk_size = CHUNK;
	d->nchunks = NCH;
	d->hash = calloc(NCH, sizeof(*d->hash));
	d->zero = calloc(NCH, 1);
	d->ids = malloc(sizeof(ids));
	memcpy(d->ids, ids, sizeof(ids));
	for (unsigned c = 0; c < NCH; c++)
		if (cs_chunk_put(s, ids[c], data + c * CHUNK, len_of(c), NULL, &from, err, sizeof(err)))
			tap_bail("put: %s", err);
	if (cs_manifest_write(dir, "cudastore-7.img", &m, err, sizeof(err)))
		tap_bail("manifest: %s", err);
	memset(&x, 0, sizeof(x));
	if (parent)
		x = *parent;
	memcpy(x.dump_id, m.dump_id, sizeof(x.dump_id));
	x.n = 1;
	x.ns_pid[0] = 7;
	if (cs_index_write(dir, &x))
		tap_bail("index");
	cs_manifest_free(&m);
}

static void puts_and_links(int top)
{
	int a = sub(top, "a"), st = sub(top, "store"), b = sub(top, "b"), stmp;
	struct cs_chunk_sink s = {
		.img = cs_chunks_dir_open(a, true), .store = -1, .stmp = -1, .parent = -1
	};
	uint64_t xxh3 = 0x0123456789abcdefULL, got = 0;
	enum cs_chunk_from from;
	char err[512] = "", rel[CS_CHUNK_REL];
	int sfd, fd, ret;

	ret = cs_chunk_put(&s, ids[0], data, CHUNK, NULL, &from, err, sizeof(err));
	tap_ok(!ret && from == CS_CHUNK_WRITTEN, "a new chunk is written (%d)", from);
	ret = cs_chunk_put(&s, ids[0], data, CHUNK, NULL, &from, err, sizeof(err));
	tap_ok(!ret && from == CS_CHUNK_HAD, "the same chunk again is found, not written (%d)", from);
	close(s.img);
	close(a);
	if (cs_store_open(top, "store", &sfd, &stmp))
		tap_bail("store");
	s = (struct cs_chunk_sink){
		.img = cs_chunks_dir_open(b, true), .store = sfd, .stmp = stmp, .parent = -1
	};
	a = openat(top, "a", O_RDONLY | O_DIRECTORY);
	s.parent = cs_chunks_dir_open(a, false);
	ret = cs_chunk_put(&s, ids[0], data, CHUNK, NULL, &from, err, sizeof(err));
	tap_ok(!ret && from == CS_CHUNK_FROM_PARENT && nlink_of(s.parent, 0) == 2,
	       "a chunk the parent has is linked from it (%d, %u links)", from, nlink_of(s.parent, 0));
	ret = cs_chunk_put(&s, ids[1], data + CHUNK, CHUNK, &xxh3, &from, err, sizeof(err));
	tap_ok(!ret && from == CS_CHUNK_WRITTEN && nlink_of(sfd, 1) == 2 && nlink_of(s.img, 1) == 2,
	       "a new chunk goes into the store and is linked from there (%u links)", nlink_of(sfd, 1));
	ret = cs_chunk_known_hash(&s, ids[1], CHUNK, &got);
	tap_ok(!ret && got == xxh3, "a chunk written with its XXH3 gives it back (%d, %#llx)", ret,
	       (unsigned long long)got);
	ret = cs_chunk_known_hash(&s, ids[0], CHUNK, &got);
	tap_ok(ret == -ENODATA, "one written without gives none (%d)", ret);
	ret = cs_chunk_known_hash(&s, ids[1], CHUNK / 2, &got);
	tap_ok(ret == -ENOENT, "nor a chunk of another length, nor a missing one (%d, %d)", ret,
	       cs_chunk_known_hash(&s, ids[2], CHUNK, &got));
	cs_chunk_rel(ids[2], rel);
	cs_chunk_write(sfd, stmp, ids[2], data, 10, NULL); /* a damaged store chunk: 10 bytes */
	err[0] = '\0';
	tap_ok(cs_chunk_put(&s, ids[2], data + 2 * CHUNK, len_of(2), NULL, &from, err, sizeof(err)) ==
		       -EBADMSG &&
		   strstr(err, "chunk store is damaged") && strstr(err, rel),
	       "a store chunk of the wrong length is refused, named: \"%s\"", err);
	unlinkat(sfd, rel, 0);
	fd = openat(stmp, "tmp-left-by-a-killed-dump", O_CREAT | O_WRONLY, 0600);
	close(fd);
	close(s.img);
	close(s.parent);
	close(a);
	close(b);
	close(st);
	close(sfd);
	close(stmp);
}

static void gc(int top)
{
	struct cs_gc_stats g;
	int sfd, stmp, shared, excl, b, r1, r2;

	cs_store_open(top, "store", &sfd, &stmp);
	shared = cs_store_lock(sfd, false, true);
	excl = cs_store_lock(sfd, true, false);
	tap_ok(shared >= 0 && excl == -EWOULDBLOCK, "gc's lock is refused while a dump holds it (%d)", excl);
	close(shared);
	excl = cs_store_lock(sfd, true, false);
	r1 = excl >= 0 ? cs_store_gc(sfd, &g) : excl;
	tap_ok(!r1 && g.removed == 0 && g.kept == 1 && g.tmp_removed == 1,
	       "gc keeps the linked chunk, removes the leftover (%llu kept, %llu removed, %llu tmp)",
	       (unsigned long long)g.kept, (unsigned long long)g.removed, (unsigned long long)g.tmp_removed);
	b = openat(top, "b", O_RDONLY | O_DIRECTORY);
	r1 = cs_chunks_dir_clear(b, NULL);
	r2 = cs_store_gc(sfd, &g);
	tap_ok(!r1 && !r2 && g.removed == 1 && g.removed_bytes == CHUNK && nlink_of(sfd, 1) == 0,
	       "once no images directory links it, gc removes it (%d %d, %llu removed)", r1, r2,
	       (unsigned long long)g.removed);
	close(b);
	close(excl);
	close(sfd);
	close(stmp);
}

static void manifest_and_check(int top)
{
	int p = sub(top, "p");
	struct cs_chunk_sink s = {
		.img = cs_chunks_dir_open(p, true), .store = -1, .stmp = -1, .parent = -1
	};
	struct cs_manifest m;
	char err[512], rel[CS_CHUNK_REL];

	dump_into(p, &s, NULL);
	tap_ok(!cs_manifest_read(p, "cudastore-7.img", &m, err, sizeof(err)) && m.format_minor == 5 &&
		   m.dev[0].ids && !memcmp(m.dev[0].ids, ids, sizeof(ids)),
	       "a chunked manifest is of format 1.5 and keeps its ids");
	tap_ok(!cs_manifest_check_extents(p, &m, err, sizeof(err)), "every chunk there: accepted");
	cs_chunk_rel(ids[1], rel);
	renameat(s.img, rel, top, "aside");
	tap_ok(cs_manifest_check_extents(p, &m, err, sizeof(err)) == -ENOENT && strstr(err, rel) &&
		   strstr(err, "is missing"),
	       "a deleted chunk refuses the images: \"%s\"", err);
	renameat(top, "aside", s.img, rel);
	{
		int fd = openat(s.img, rel, O_WRONLY);

		if (fd < 0 || ftruncate(fd, 100) < 0)
			tap_bail("truncate");
		close(fd);
	}
	tap_ok(cs_manifest_check_extents(p, &m, err, sizeof(err)) == -EBADMSG && strstr(err, "is 100 bytes"),
	       "a truncated chunk refuses the images: \"%s\"", err);
	{
		int fd = openat(s.img, rel, O_WRONLY);

		if (fd < 0 || pwrite(fd, data + CHUNK, CHUNK, 0) != CHUNK)
			tap_bail("repair");
		close(fd);
	}
	cs_manifest_free(&m);
	close(s.img);
	close(p);
}

static void parents(int top)
{
	struct cs_chunk_parent par;
	struct cs_index xc;
	char err[768], shm[] = "/dev/shm/cs-parent.XXXXXX";
	int c = sub(top, "c"), q = sub(top, "q"), ret;
	struct cs_chunk_sink s;

	ret = cs_chunk_parent_open(c, "../nothing", &par, err, sizeof(err));
	tap_ok(ret == -ENOENT && strstr(err, "../nothing"), "a missing parent is refused: \"%s\"", err);
	ret = cs_chunk_parent_open(c, ".", &par, err, sizeof(err));
	tap_ok(ret == -ELOOP && strstr(err, "itself"), "the directory itself is refused: \"%s\"", err);
	ret = cs_chunk_parent_open(c, "../q", &par, err, sizeof(err));
	tap_ok(ret == -EPROTO && strstr(err, "no cudastore-index.img"),
	       "a directory without an index: \"%s\"", err);
	if (mkdtemp(shm)) {
		char rel[4200];

		snprintf(rel, sizeof(rel), "%s", shm);
		ret = cs_chunk_parent_open(c, rel, &par, err, sizeof(err));
		tap_ok(ret == -EXDEV && strstr(err, "another filesystem"), "a parent on tmpfs: \"%s\"", err);
		rmdir(shm);
	} else {
		tap_skip(1, "no /dev/shm");
	}
	ret = cs_chunk_parent_open(c, "../p", &par, err, sizeof(err));
	tap_ok(!ret, "a chunked dump is a parent (%d %s)", ret, ret ? err : "");
	tap_ok(cs_chunk_parent_check_proc(&par, 8, err, sizeof(err)) == -ESRCH &&
		   strstr(err, "another process tree"),
	       "a parent without the process: \"%s\"", err);
	tap_ok(!cs_chunk_parent_check_proc(&par, 7, err, sizeof(err)), "its process's images are usable");
	/* c dumped with p as parent; then p dumped with c as parent: a loop through c's index */
	s = (struct cs_chunk_sink){
		.img = cs_chunks_dir_open(c, true), .store = -1, .stmp = -1, .parent = par.chunks
	};
	memset(&xc, 0, sizeof(xc));
	xc.has_parent = true;
	snprintf(xc.parent_dir, sizeof(xc.parent_dir), "../p");
	dump_into(c, &s, &xc);
	cs_chunk_parent_close(&par);
	close(s.img);
	{
		int p = openat(top, "p", O_RDONLY | O_DIRECTORY);

		ret = cs_chunk_parent_open(p, "../c", &par, err, sizeof(err));
		tap_ok(ret == -ELOOP && strstr(err, "chain"), "a parent whose chain leads back: \"%s\"", err);
		close(p);
	}
	/* q: an extent dump of ns pid 7 */
	{
		struct cs_manifest m;
		struct cs_index x = { .n = 1, .ns_pid = { 7 } };

		unit_sample(&m, 1);
		m.ns_pid = 7;
		m.has_dump_id = true;
		cs_manifest_write(q, "cudastore-7.img", &m, err, sizeof(err));
		cs_manifest_free(&m);
		cs_index_write(q, &x);
		ret = cs_chunk_parent_open(c, "../q", &par, err, sizeof(err));
		tap_ok(ret == -EPROTO && strstr(err, "not a chunked dump"),
		       "an extent dump is no parent: \"%s\"", err);
	}
	close(c);
	close(q);
}

int main(void)
{
	char path[4096];
	int top;

	tap_plan(24);
	for (unsigned i = 0; i < SIZE; i++)
		data[i] = (uint8_t)(i * 7 + i / 4096);
	for (unsigned c = 0; c < NCH; c++)
		if (cs_chunk_id(data + c * CHUNK, len_of(c), ids[c]))
			tap_bail("chunk id");
	top = unit_tmpdir(path, sizeof(path));
	if (chdir(path))
		tap_bail("chdir");
	puts_and_links(top);
	gc(top);
	manifest_and_check(top);
	parents(top);
	unit_rmtree(path);
	return tap_done();
}
