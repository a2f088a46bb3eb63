// SPDX-License-Identifier: MIT
/*
 * The image-set rules of the helper (imgset.c), two tables of cases on real images directories.
 *
 * Ownership: a dump's first PAUSE removes every file of ours an earlier dump left (not
 * directories, not other names) and no second call removes anything.
 *
 * Reading: a dump (cs_imgset_dump_*) writes the manifests of some processes and, if it
 * finished, its index naming its criu run; stale manifests of another dump lie beside them; a
 * restore (tied to the run its CRIU inventory names) or a recovery then asks for each process.
 * Expected: each process's answer (0: acted on; -ENOENT: no manifest; -ENOTSUP: a file the
 * index does not list, ignored; -ESTALE: an index of another CRIU dump; -EBADMSG: a manifest
 * the rules refuse, the images unusable) and how many listed processes a restore would still
 * wait for (cs_imgset_left).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgdir.h"
#include "imgset.h"
#include "tap.h"
#include "unit.h"

#define NPID 4 /* ns pids 1..4 */

/* ---- ownership ---- */

struct own_case {
	const char *name;
	const char *before[8]; /* files ("d:" prefix: a directory) */
	const char *after[8];  /* what is left */
};

static const struct own_case own_cases[] = {
	{ "an earlier dump's manifest, extent, summary, index and temporaries go",
	  { "cudastore-7.img", "cudastore-7-gpu0.ext", "cudastore-7.json", "cudastore-index.img",
	    "cudastore-7.img.tmp" },
	  { NULL } },
	{ "other names stay: criu's images, a log named cudastore-dump.log",
	  { "cudastore-dump.log", "pages-1.img", "cudastore-7.img" },
	  { "cudastore-dump.log", "pages-1.img" } },
	{ "a directory with one of our names stays",
	  { "d:cudastore-8.img", "cudastore-9.img" },
	  { "d:cudastore-8.img" } },
	{ "an empty directory: nothing to do", { NULL }, { NULL } },
};

static bool exists(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static void make(int dirfd, const char *name)
{
	int fd;

	if (!strncmp(name, "d:", 2)) {
		if (mkdirat(dirfd, name + 2, 0700))
			tap_bail("mkdir %s", name);
		return;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, "x", 1) != 1)
		tap_bail("cannot create %s", name);
	close(fd);
}

/* entries of dirfd besides . and .. */
static unsigned count_entries(int dirfd)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 999;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static bool check_own(const struct own_case *c)
{
	struct cs_dump_session ds;
	char path[256];
	int dirfd = unit_tmpdir(path, sizeof(path));
	unsigned i, nafter = 0;
	bool ok;

	memset(&ds, 0, sizeof(ds));
	for (i = 0; i < 8 && c->before[i]; i++)
		make(dirfd, c->before[i]);
	ok = cs_imgset_dump_own(&ds, dirfd) == 0 && ds.imgdir_owned;
	for (i = 0; i < 8 && c->after[i]; i++, nafter++)
		ok = ok && exists(dirfd, c->after[i] + (strncmp(c->after[i], "d:", 2) ? 0 : 2));
	ok = ok && count_entries(dirfd) == nafter;
	/* owned once: a file of ours written now is this dump's and stays */
	make(dirfd, "cudastore-5.img");
	ok = ok && cs_imgset_dump_own(&ds, dirfd) == 0 && exists(dirfd, "cudastore-5.img");
	close(dirfd);
	unit_rmtree(path);
	return ok;
}

/* ---- reading ---- */

enum reader { RESTORE, RECOVER };

struct read_case {
	const char *name;
	bool dumped[NPID + 1]; /* this dump wrote pid's manifest (and noted it) */
	bool stale[NPID + 1];  /* a manifest of another dump lies there for pid */
	bool index;	       /* the dump finished: its index is written */
	const char *dump_run;  /* the run its index names ("": none) */
	enum reader reader;
	const char *restore_run; /* the run the restore's inventory names ("": not known) */
	/* expected */
	int ret[NPID + 1];
	unsigned left;
};

#define RUN_A "7f1d2c3b-0000-4000-8000-00000000000a"
#define RUN_B "7f1d2c3b-0000-4000-8000-00000000000b"

static const struct read_case read_cases[] = {
	{ "finished dump, same run: its processes read, others have none",
	  { 0, 1, 1, 0, 0 },
	  { 0 },
	  true,
	  RUN_A,
	  RESTORE,
	  RUN_A,
	  { 0, 0, 0, -ENOENT, -ENOENT },
	  2 },
	{ "a stale manifest the index does not list is ignored as not this dump's",
	  { 0, 1, 0, 0, 0 },
	  { 0, 0, 0, 1, 0 },
	  true,
	  RUN_A,
	  RESTORE,
	  RUN_A,
	  { 0, 0, -ENOENT, -ENOTSUP, -ENOENT },
	  1 },
	{ "another dump's manifest in place of a listed one: the images are unusable",
	  { 0, 1, 1, 0, 0 },
	  { 0, 0, 1, 0, 0 },
	  true,
	  RUN_A,
	  RESTORE,
	  RUN_A,
	  { 0, 0, -EBADMSG, -ENOENT, -ENOENT },
	  2 },
	{ "index of another CRIU run: every manifest refused",
	  { 0, 1, 1, 0, 0 },
	  { 0 },
	  true,
	  RUN_A,
	  RESTORE,
	  RUN_B,
	  { 0, -ESTALE, -ESTALE, -ENOENT, -ENOENT },
	  0 },
	{ "restore run not known: the index is used as it is",
	  { 0, 1, 0, 0, 0 },
	  { 0 },
	  true,
	  RUN_A,
	  RESTORE,
	  "",
	  { 0, 0, -ENOENT, -ENOENT, -ENOENT },
	  1 },
	{ "index naming no run (criu without one): used as it is",
	  { 0, 1, 1, 0, 0 },
	  { 0 },
	  true,
	  "",
	  RESTORE,
	  RUN_A,
	  { 0, 0, 0, -ENOENT, -ENOENT },
	  2 },
	{ "dump that did not finish (no index), restored: its manifests are refused",
	  { 0, 1, 1, 0, 0 },
	  { 0 },
	  false,
	  "",
	  RESTORE,
	  RUN_A,
	  { 0, -EBADMSG, -EBADMSG, -ENOENT, -ENOENT },
	  0 },
	{ "dump that did not finish, recovered: its manifests are read without an index",
	  { 0, 1, 1, 0, 0 },
	  { 0 },
	  false,
	  "",
	  RECOVER,
	  "",
	  { 0, 0, 0, -ENOENT, -ENOENT },
	  0 },
	{ "finished dump, recovered: the index applies, a stale manifest is not this dump's",
	  { 0, 1, 0, 0, 0 },
	  { 0, 0, 1, 0, 0 },
	  true,
	  RUN_A,
	  RECOVER,
	  "",
	  { 0, 0, -ENOTSUP, -ENOENT, -ENOENT },
	  1 },
};

/* pid's manifest of this dump (dump_id) or of another, with its extent file */
static void write_manifest(int dirfd, pid_t pid, const uint8_t *dump_id)
{
	struct cs_manifest m;
	char name[CS_NAME_MAX], err[256];
	int fd;

	unit_sample(&m, 1);
	m.pid = m.ns_pid = pid;
	m.has_dump_id = true;
	memcpy(m.dump_id, dump_id, sizeof(m.dump_id));
	cs_name_extent(m.dev[0].extent, pid, 0);
	memcpy(m.dev[0].stripe[0], m.dev[0].extent, sizeof(m.dev[0].extent));
	m.dev[0].nstripes = 1;
	fd = openat(dirfd, m.dev[0].extent, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)m.dev[0].size))
		tap_bail("cannot write extent %s", m.dev[0].extent);
	close(fd);
	cs_name_manifest(name, pid);
	if (cs_manifest_write(dirfd, name, &m, err, sizeof(err)))
		tap_bail("cannot write %s: %s", name, err);
	cs_manifest_free(&m);
}

static bool check_read(const struct read_case *c, char *got, size_t len)
{
	static const uint8_t other_id[CS_DUMP_ID_BYTES] = { 0xee, 0xee };
	struct cs_dump_session ds;
	struct cs_imgset set;
	struct cs_manifest m;
	char path[256], err[1024];
	int dirfd = unit_tmpdir(path, sizeof(path)), ret;
	bool ok = true;
	pid_t pid;

	memset(&ds, 0, sizeof(ds));
	snprintf(ds.criu_run, sizeof(ds.criu_run), "%s", c->dump_run);
	if (cs_imgset_dump_own(&ds, dirfd))
		tap_bail("dump_own failed");
	for (pid = 1; pid <= NPID; pid++)
		if (c->dumped[pid]) {
			write_manifest(dirfd, pid, ds.index.dump_id);
			cs_imgset_dump_note(&ds, pid);
		}
	if (c->index && cs_imgset_dump_flush(&ds, dirfd))
		tap_bail("flush failed");
	for (pid = 1; pid <= NPID; pid++)
		if (c->stale[pid])
			write_manifest(dirfd, pid, other_id);

	memset(&set, 0, sizeof(set));
	set.tie = c->reader == RESTORE;
	snprintf(set.criu_run, sizeof(set.criu_run), "%s", c->restore_run);
	got[0] = '\0';
	for (pid = 1; pid <= NPID; pid++) {
		size_t at = strlen(got);

		memset(&m, 0, sizeof(m));
		ret = c->reader == RESTORE ? cs_imgset_restore_load(&set, dirfd, pid, &m, err, sizeof(err))
					   : cs_imgset_recover_load(&set, dirfd, pid, &m, err, sizeof(err));
		if (!ret) {
			ok = ok && m.ns_pid == pid;
			cs_manifest_free(&m);
		}
		snprintf(got + at, len - at, "%s%d: %d", pid > 1 ? ", " : "", pid, ret);
		ok = ok && ret == c->ret[pid];
	}
	ok = ok && cs_imgset_left(&set, 0) == c->left;
	snprintf(got + strlen(got), len - strlen(got), "; left %u", cs_imgset_left(&set, 0));
	close(dirfd);
	unit_rmtree(path);
	return ok;
}

int main(void)
{
	unsigned i, nown = sizeof(own_cases) / sizeof(own_cases[0]);
	unsigned nread = sizeof(read_cases) / sizeof(read_cases[0]);
	char got[256];

	tap_plan((int)(nown + nread));
	for (i = 0; i < nown; i++)
		tap_ok(check_own(&own_cases[i]), "dump owns the directory: %s", own_cases[i].name);
	for (i = 0; i < nread; i++) {
		bool ok = check_read(&read_cases[i], got, sizeof(got));

		tap_ok(ok, "%s (%s)", read_cases[i].name, got);
	}
	return tap_done();
}
