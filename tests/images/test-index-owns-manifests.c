// SPDX-License-Identifier: MIT
/*
 * test-index-owns-manifests - format 1.1: the dump_id in the manifest, cudastore-index.img, and
 * the rule a restore applies (imgindex.h, cs_index_load_manifest): with an index, only the manifests it lists and that carry
 * its dump_id are the dump's; without one, only format 1.0 manifests (no dump_id) are read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "imgindex.h"
#include "unit.h"

static void manifest_dump_id(void)
{
	struct cs_manifest *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char why[256] = "", err[512] = "";
	size_t len;
	void *buf;
	int ret;

	unit_sample(a, 2);
	a->has_dump_id = true;
	memset(a->dump_id, 0xa5, sizeof(a->dump_id));
	ret = cs_manifest_encode(a, &buf, &len);
	ret = ret ? ret : cs_manifest_decode(buf, len, b, err, sizeof(err));
	tap_ok(ret == 0 && b->format_minor == CS_FORMAT_MINOR && b->format_minor >= 1 &&
		   unit_manifest_equal(a, b, why, sizeof(why)),
	       "a 1.1 (and later) manifest keeps its dump_id through encode/decode (%d %s %s)", ret, err, why);
	if (!ret)
		free(buf);
	cs_manifest_free(b);
	a->has_dump_id = false;
	ret = cs_manifest_encode(a, &buf, &len);
	ret = ret ? ret : cs_manifest_decode(buf, len, b, err, sizeof(err));
	tap_ok(ret == 0 && !b->has_dump_id, "a manifest without dump_id (as format 1.0 wrote it) decodes");
	if (!ret)
		free(buf);
	cs_manifest_free(a);
	cs_manifest_free(b);
	free(a);
	free(b);
}

static void index_file(int dirfd)
{
	struct cs_index a = { .n = 3, .ns_pid = { 1, 2, 4242 } }, b;
	char err[512] = "";
	struct stat st;
	size_t len;
	uint8_t *buf;
	int ret;

	memset(a.dump_id, 0x3c, sizeof(a.dump_id));
	tap_ok(cs_index_read(dirfd, &b, err, sizeof(err)) == -ENOENT, "no index file: -ENOENT (format 1.0)");
	ret = cs_index_write(dirfd, &a);
	tap_ok(ret == 0 && !fstatat(dirfd, CS_INDEX_NAME, &st, 0) && (st.st_mode & 07777) == 0600,
	       "index written, mode 0600 (%d)", ret);
	ret = cs_index_read(dirfd, &b, err, sizeof(err));
	tap_ok(ret == 0 && b.n == 3 && cs_index_has(&b, 4242) && cs_index_has(&b, 1) && !cs_index_has(&b, 3) &&
		       !memcmp(a.dump_id, b.dump_id, sizeof(a.dump_id)),
	       "index read back: same dump_id and ns pids (%d %s)", ret, err);
	ret = cs_index_encode(&a, (void **)&buf, &len);
	if (ret)
		tap_bail("encode");
	buf[len - 1] ^= 1;
	tap_ok(cs_index_decode(buf, len, &b, err, sizeof(err)) == -EBADMSG && strstr(err, "XXH3"),
	       "a flipped bit is refused: %s", err);
	buf[len - 1] ^= 1;
	tap_ok(cs_index_decode(buf, len - 1, &b, err, sizeof(err)) == -EBADMSG && strstr(err, "payload bytes"),
	       "a truncated index is refused: %s", err);
	buf[0] = 'X';
	tap_ok(cs_index_decode(buf, len, &b, err, sizeof(err)) == -EBADMSG && strstr(err, "magic"),
	       "a wrong magic is refused: %s", err);
	free(buf);
	a.ns_pid[2] = 1;
	ret = cs_index_encode(&a, (void **)&buf, &len);
	tap_ok(!ret && cs_index_decode(buf, len, &b, err, sizeof(err)) == -EBADMSG && strstr(err, "twice"),
	       "a pid listed twice is refused: %s", err);
	free(buf);
	a.ns_pid[2] = -5;
	ret = cs_index_encode(&a, (void **)&buf, &len);
	tap_ok(!ret && cs_index_decode(buf, len, &b, err, sizeof(err)) == -EBADMSG && strstr(err, "-5"),
	       "a pid <= 0 is refused: %s", err);
	free(buf);
	unlinkat(dirfd, CS_INDEX_NAME, 0);
}

static void rule(void)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	struct cs_index idx = { .n = 1, .ns_pid = { 4242 } };
	char err[512] = "";

	memset(idx.dump_id, 0x11, sizeof(idx.dump_id));
	unit_sample(m, 1);
	m->has_dump_id = true;
	memcpy(m->dump_id, idx.dump_id, sizeof(m->dump_id));
	tap_ok(cs_index_check_manifest(&idx, m, "cudastore-4242.img", err, sizeof(err)) == 0,
	       "a manifest carrying the index's dump_id is the dump's");
	m->dump_id[15] ^= 1;
	tap_ok(cs_index_check_manifest(&idx, m, "cudastore-4242.img", err, sizeof(err)) == -EBADMSG &&
		   strstr(err, "belongs to another dump") && strstr(err, "cudastore-4242.img"),
	       "another dump's manifest is refused: %s", err);
	m->has_dump_id = false;
	tap_ok(cs_index_check_manifest(&idx, m, "cudastore-4242.img", err, sizeof(err)) == -EBADMSG &&
		   strstr(err, "format 1.0"),
	       "a 1.0 manifest next to a 1.1 index is stale: %s", err);
	tap_ok(cs_index_check_manifest(NULL, m, "cudastore-4242.img", err, sizeof(err)) == 0,
	       "format 1.0 images (no index, no dump_id) are read as before");
	m->has_dump_id = true;
	tap_ok(cs_index_check_manifest(NULL, m, "cudastore-4242.img", err, sizeof(err)) == -EBADMSG &&
		   strstr(err, "cudastore-index.img") && strstr(err, "missing"),
	       "a 1.1 manifest whose index is missing is refused: %s", err);
	cs_manifest_free(m);
	free(m);
}

int main(void)
{
	char path[4096];
	int dirfd;

	tap_plan(2 + 8 + 5);
	manifest_dump_id();
	dirfd = unit_tmpdir(path, sizeof(path));
	index_file(dirfd);
	close(dirfd);
	unit_rmtree(path);
	rule();
	return tap_done();
}
