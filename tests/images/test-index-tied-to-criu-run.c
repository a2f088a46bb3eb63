// SPDX-License-Identifier: MIT
/*
 * test-index-tied-to-criu-run - format 1.3: cudastore-index.img names the run of the criu that
 * made its dump (criu_run_id), and a restore (and cudastore verify) acts on its manifests only
 * when CRIU's images name the same run (imgindex.h, cs_index_file_bind): an index of another
 * CRIU dump makes every manifest fail with both runs named; an index without a run (format
 * 1.0-1.2) or an unknown run of the CRIU dump is accepted as before, with a note.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "imgframe.h"
#include "imgindex.h"
#include "unit.h"

#define RUN_A "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
#define RUN_B "1f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"

static void the_run_round_trips(int dirfd)
{
	struct cs_index a = { .n = 1, .ns_pid = { 7 }, .criu_run = RUN_A }, b;
	char err[512] = "";
	size_t len;
	void *buf;
	int ret;

	ret = cs_index_write(dirfd, &a);
	ret = ret ? ret : cs_index_read(dirfd, &b, err, sizeof(err));
	tap_ok(ret == 0 && !strcmp(b.criu_run, RUN_A) && b.n == 1, "the run is written and read back (%d %s)",
	       ret, err);
	a.criu_run[0] = '\0';
	if (cs_index_encode(&a, &buf, &len))
		tap_bail("encode");
	ret = cs_index_decode(buf, len, &b, err, sizeof(err));
	tap_ok(ret == 0 && b.criu_run[0] == '\0',
	       "an index without a run (format 1.1-1.2) decodes, run \"\"");
	free(buf);
	snprintf(a.criu_run, sizeof(a.criu_run), "not a run!");
	tap_ok(cs_index_encode(&a, &buf, &len) == -EINVAL, "a run id that is not one is never written");
	unlinkat(dirfd, CS_INDEX_NAME, 0);
}

/* an index payload with criu_run_id set to run, as no cudastore writes it */
static int raw_index(const char *run, void **buf, size_t *len)
{
	uint8_t id[CS_DUMP_ID_BYTES] = { 1 };
	CsIndex pi = CS_INDEX__INIT;

	pi.has_format_major = pi.has_format_minor = pi.has_dump_id = 1;
	pi.format_major = CS_FORMAT_MAJOR;
	pi.format_minor = 3;
	pi.dump_id.len = sizeof(id);
	pi.dump_id.data = id;
	pi.criu_run_id = (char *)run;
	return cs_imgframe_encode(&pi.base, "CSIX", CS_INDEX_MAX_BYTES, buf, len);
}

static void a_bad_run_is_refused(void)
{
	static const char *const bad[] = { "", "run id with spaces", "0123456789012345678901234567890123456",
					   "ru\x1b[2Jn" };
	struct cs_index x;
	char err[512];
	size_t len;
	void *buf;
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (raw_index(bad[i], &buf, &len))
			tap_bail("encode");
		tap_ok(cs_index_decode(buf, len, &x, err, sizeof(err)) == -EBADMSG &&
			   strstr(err, "criu_run_id") && x.criu_run[0] == '\0',
		       "an index whose criu_run_id is %zu bytes of no run id is refused: %s", strlen(bad[i]),
		       err);
		free(buf);
	}
	raw_index(RUN_B, &buf, &len);
	tap_ok(cs_index_decode(buf, len, &x, err, sizeof(err)) == 0 && !strcmp(x.criu_run, RUN_B),
	       "a 36-character UUID is one");
	free(buf);
}

static void the_rule(void)
{
	struct cs_index x = { .criu_run = RUN_A };
	char err[768] = "";

	tap_ok(cs_index_check_run(&x, RUN_A, err, sizeof(err)) == 0, "the same run: the CRIU dump's own");
	tap_ok(cs_index_check_run(&x, RUN_B, err, sizeof(err)) == -ESTALE &&
		   strstr(err, "belong to another CRIU dump (run " RUN_A
			       "), not to the one being restored (run " RUN_B ")") &&
		   strstr(err, "restore the CRIU images and the cudastore files of one dump together"),
	       "another run is refused, naming both and what to do: %s", err);
	tap_ok(cs_index_check_run(&x, NULL, err, sizeof(err)) == 0 &&
		   cs_index_check_run(&x, "", err, sizeof(err)) == 0 &&
		   cs_index_check_run(&x, "\x7f", err, sizeof(err)) == 0,
	       "an unknown run of the CRIU dump checks nothing");
	x.criu_run[0] = '\0';
	tap_ok(cs_index_check_run(&x, RUN_B, err, sizeof(err)) == 0, "an index without a run checks nothing");
}

/* a driver-mode manifest of ns pid 4242 carrying dump id 0x11.. (no extents to check) */
static void write_manifest(int dirfd)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	char err[512] = "";

	m->format_major = CS_FORMAT_MAJOR;
	m->format_minor = CS_FORMAT_MINOR;
	m->mode = CS_MODE_DRIVER;
	m->pid = m->ns_pid = 4242;
	m->driver_version = 13040;
	m->created_unix_ns = 1;
	snprintf(m->plugin_version, sizeof(m->plugin_version), "test");
	m->has_dump_id = true;
	memset(m->dump_id, 0x11, sizeof(m->dump_id));
	if (cs_manifest_write(dirfd, "cudastore-4242.img", m, err, sizeof(err)))
		tap_bail("manifest: %s", err);
	free(m);
}

/* load ns pid 4242's manifest through the index bound to run; its answer, err filled */
static int load_bound(int dirfd, const char *run, struct cs_index_file *f, char *err, size_t errlen)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	int ret;

	cs_index_file_read(dirfd, f);
	cs_index_file_bind(f, run);
	err[0] = '\0';
	ret = cs_index_load_manifest(dirfd, f, 4242, m, err, errlen);
	cs_manifest_free(m);
	free(m);
	return ret;
}

static void a_restore_acts_only_on_its_dumps_set(int dirfd)
{
	struct cs_index x = { .n = 1, .ns_pid = { 4242 }, .criu_run = RUN_A };
	struct cs_index_file f;
	char err[1024];
	int ret;

	memset(x.dump_id, 0x11, sizeof(x.dump_id));
	write_manifest(dirfd);
	cs_index_write(dirfd, &x);
	ret = load_bound(dirfd, RUN_A, &f, err, sizeof(err));
	tap_ok(ret == 0 && f.bound == CS_BOUND_SAME && !cs_index_bound_note(&f),
	       "the index of the CRIU dump being restored: its manifest is read (%s)", err);
	ret = load_bound(dirfd, RUN_B, &f, err, sizeof(err));
	tap_ok(ret == -ESTALE && f.bound == CS_BOUND_OTHER && f.err == -ESTALE && !strcmp(err, f.why) &&
		   strstr(err, "run " RUN_A) && strstr(err, "run " RUN_B),
	       "an index of another CRIU dump fails its manifest with its own words: %s", err);
	ret = load_bound(dirfd, NULL, &f, err, sizeof(err));
	tap_ok(ret == 0 && f.bound == CS_BOUND_NO_CRIU_RUN &&
		   strstr(cs_index_bound_note(&f), "inventory.img"),
	       "the CRIU dump's run unknown: read as before, with a note (%s)", cs_index_bound_note(&f));
	x.criu_run[0] = '\0';
	cs_index_write(dirfd, &x);
	ret = load_bound(dirfd, RUN_B, &f, err, sizeof(err));
	tap_ok(ret == 0 && f.bound == CS_BOUND_NO_INDEX_RUN &&
		   strstr(cs_index_bound_note(&f), "format 1.0-1.2"),
	       "an index without a run (format 1.1-1.2): read as before, with a note (%s)",
	       cs_index_bound_note(&f));
	unlinkat(dirfd, CS_INDEX_NAME, 0);
	cs_index_file_read(dirfd, &f);
	cs_index_file_bind(&f, RUN_B);
	tap_ok(f.err == -ENOENT && f.bound == CS_BOUND_NO_INDEX_RUN && cs_index_bound_note(&f),
	       "no index (format 1.0): nothing tied, a note");
	if (cs_imgdir_write_atomic(dirfd, CS_INDEX_NAME, "junk", 4))
		tap_bail("junk index");
	ret = load_bound(dirfd, RUN_A, &f, err, sizeof(err));
	tap_ok(ret == -EBADMSG && f.bound == CS_BOUND_UNASKED && strstr(err, "index is unusable"),
	       "an unusable index stays unusable for its own reason: %s", err);
	unlinkat(dirfd, CS_INDEX_NAME, 0);
	unlinkat(dirfd, "cudastore-4242.img", 0);
}

int main(void)
{
	char path[4096];
	int dirfd;

	tap_plan(3 + 5 + 4 + 6);
	dirfd = unit_tmpdir(path, sizeof(path));
	the_run_round_trips(dirfd);
	a_bad_run_is_refused();
	the_rule();
	a_restore_acts_only_on_its_dumps_set(dirfd);
	close(dirfd);
	unit_rmtree(path);
	return tap_done();
}
