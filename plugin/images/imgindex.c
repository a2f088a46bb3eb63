// SPDX-License-Identifier: MIT
/* imgindex.c - cudastore-index.img, and the rules that tie a manifest to its dump (imgindex.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudastore.pb-c.h"
#include "errmsg.h"
#include "imgdir.h"
#include "imgframe.h"
#include "imgindex.h"

#define IDX_MAGIC "CSIX"

_Static_assert(CS_MAX_PROCS * 5 + CS_CRIU_RUN_MAX + 64 < CS_INDEX_MAX_BYTES, "a full index fits its bound");

bool cs_index_has(const struct cs_index *x, int32_t ns_pid)
{
	for (unsigned i = 0; i < x->n; i++)
		if (x->ns_pid[i] == ns_pid)
			return true;
	return false;
}

int cs_index_encode(const struct cs_index *x, void **buf, size_t *len)
{
	CsIndex pi = CS_INDEX__INIT;

	*buf = NULL;
	*len = 0;
	if (x->n > CS_MAX_PROCS)
		return -EINVAL;
	pi.has_format_major = pi.has_format_minor = pi.has_dump_id = 1;
	pi.format_major = CS_FORMAT_MAJOR;
	pi.format_minor = CS_FORMAT_MINOR;
	pi.dump_id.len = sizeof(x->dump_id);
	pi.dump_id.data = (uint8_t *)x->dump_id;
	pi.n_ns_pids = x->n;
	pi.ns_pids = (int32_t *)x->ns_pid;
	if (x->criu_run[0]) {
		if (!cs_criu_run_ok(x->criu_run, strnlen(x->criu_run, sizeof(x->criu_run))))
			return -EINVAL;
		pi.criu_run_id = (char *)x->criu_run;
	}
	if (x->has_parent) {
		pi.format_minor = CS_FORMAT_MINOR_CHUNKS;
		pi.has_parent_dump_id = 1;
		pi.parent_dump_id.len = sizeof(x->parent_dump_id);
		pi.parent_dump_id.data = (uint8_t *)x->parent_dump_id;
		pi.parent_dir = (char *)x->parent_dir;
	}
	return cs_imgframe_encode(&pi.base, IDX_MAGIC, CS_INDEX_MAX_BYTES, buf, len);
}

/* The frame and payload (imgframe.c) into *pi, or their first fault in the index's words. */
static int frame_decode(const uint8_t *p, size_t len, CsIndex **pi, char *err, size_t errlen)
{
	struct cs_frame f;

	switch (cs_imgframe_decode(p, len, IDX_MAGIC, CS_INDEX_MAX_BYTES, &cs_index__descriptor, &f)) {
	case CS_FRAME_OK:
		*pi = (CsIndex *)f.msg;
		return 0;
	case CS_FRAME_SHORT:
		return cs_fail(-EBADMSG, err, errlen, "%s: shorter than its 16-byte header" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME);
	case CS_FRAME_MAGIC:
		return cs_fail(-EBADMSG, err, errlen, "%s: magic is not \"" IDX_MAGIC "\"" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME);
	case CS_FRAME_BIG:
	case CS_FRAME_LENGTH:
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: header says %u payload bytes (limit %u), file has %zu" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME, f.plen, CS_INDEX_MAX_BYTES, f.have);
	case CS_FRAME_HASH:
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: payload XXH3-64 does not match its header" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME);
	case CS_FRAME_PAYLOAD:
		break;
	}
	return cs_fail(-EBADMSG, err, errlen, "%s: payload is not a valid CsIndex message" CS_IMAGES_CORRUPT,
		       CS_INDEX_NAME);
}

static int check(const CsIndex *pi, char *err, size_t errlen)
{
	if (!pi->has_format_major || !pi->has_format_minor)
		return cs_fail(-EBADMSG, err, errlen, "%s: format version missing" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME);
	if (pi->format_major != CS_FORMAT_MAJOR)
		return cs_fail(pi->format_major > CS_FORMAT_MAJOR ? -EPROTONOSUPPORT : -EBADMSG, err, errlen,
			       "%s: format is %u.%u; this plugin supports format %d.x%s", CS_INDEX_NAME,
			       pi->format_major, pi->format_minor, CS_FORMAT_MAJOR,
			       pi->format_major > CS_FORMAT_MAJOR ? ": upgrade the plugin"
								  : CS_IMAGES_CORRUPT);
	if (!pi->has_dump_id || pi->dump_id.len != CS_DUMP_ID_BYTES)
		return cs_fail(-EBADMSG, err, errlen, "%s: dump_id is %s, must be %d bytes" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME, pi->has_dump_id ? "of another size" : "missing",
			       CS_DUMP_ID_BYTES);
	if (pi->n_ns_pids > CS_MAX_PROCS)
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: lists %zu processes, limit is %d" CS_IMAGES_CORRUPT, CS_INDEX_NAME,
			       pi->n_ns_pids, CS_MAX_PROCS);
	if (pi->criu_run_id && !cs_criu_run_ok(pi->criu_run_id, strlen(pi->criu_run_id)))
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: criu_run_id is not a CRIU run id (1 to %d characters of "
			       "[0-9A-Za-z-])" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME, CS_CRIU_RUN_MAX);
	if (pi->has_parent_dump_id && pi->parent_dump_id.len != CS_DUMP_ID_BYTES)
		return cs_fail(-EBADMSG, err, errlen, "%s: parent_dump_id is not %d bytes" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME, CS_DUMP_ID_BYTES);
	if (pi->parent_dir && !pi->has_parent_dump_id) /* they name a parent together, or nothing */
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: parent_dir without parent_dump_id" CS_IMAGES_CORRUPT, CS_INDEX_NAME);
	if (pi->parent_dir && strlen(pi->parent_dir) > CS_INDEX_PARENT_MAX)
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: parent_dir is longer than %d bytes" CS_IMAGES_CORRUPT, CS_INDEX_NAME,
			       CS_INDEX_PARENT_MAX);
	for (size_t i = 0; i < pi->n_ns_pids; i++) {
		if (pi->ns_pids[i] <= 0)
			return cs_fail(-EBADMSG, err, errlen,
				       "%s: ns_pids[%zu] is %d, must be > 0" CS_IMAGES_CORRUPT, CS_INDEX_NAME,
				       i, pi->ns_pids[i]);
		for (size_t j = 0; j < i; j++)
			if (pi->ns_pids[j] == pi->ns_pids[i])
				return cs_fail(-EBADMSG, err, errlen,
					       "%s: ns pid %d is listed twice" CS_IMAGES_CORRUPT,
					       CS_INDEX_NAME, pi->ns_pids[i]);
	}
	return 0;
}

int cs_index_decode(const void *buf, size_t len, struct cs_index *x, char *err, size_t errlen)
{
	CsIndex *pi = NULL;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = frame_decode(buf, len, &pi, err, errlen);
	if (ret)
		return ret;
	ret = check(pi, err, errlen);
	if (!ret) {
		memcpy(x->dump_id, pi->dump_id.data, sizeof(x->dump_id));
		x->n = (unsigned)pi->n_ns_pids;
		if (pi->n_ns_pids) /* protobuf-c leaves ns_pids NULL when there are none */
			memcpy(x->ns_pid, pi->ns_pids, pi->n_ns_pids * sizeof(*x->ns_pid));
		if (pi->criu_run_id) /* checked: it fits */
			snprintf(x->criu_run, sizeof(x->criu_run), "%s", pi->criu_run_id);
		x->has_parent = pi->has_parent_dump_id;
		if (x->has_parent)
			memcpy(x->parent_dump_id, pi->parent_dump_id.data, sizeof(x->parent_dump_id));
		if (pi->parent_dir)
			snprintf(x->parent_dir, sizeof(x->parent_dir), "%s", pi->parent_dir);
	}
	cs_index__free_unpacked(pi, NULL);
	return ret;
}

int cs_index_write(int dirfd, const struct cs_index *x)
{
	size_t len;
	void *buf;
	int ret;

	ret = cs_index_encode(x, &buf, &len);
	if (ret)
		return ret;
	ret = cs_imgdir_write_atomic(dirfd, CS_INDEX_NAME, buf, len);
	free(buf);
	return ret;
}

/* Why the index file could not be read, in the words of the manifest's messages (manifest.c). */
static int read_failed(int dirfd, int ret, char *err, size_t errlen)
{
	struct stat st;

	if (ret == -ELOOP)
		return cs_fail(ret, err, errlen, "%s is a symbolic link; refusing to follow it: remove it",
			       CS_INDEX_NAME);
	if (ret == -EINVAL && !fstatat(dirfd, CS_INDEX_NAME, &st, AT_SYMLINK_NOFOLLOW))
		return cs_fail(ret, err, errlen,
			       "%s is not a regular file (mode %06o): images corrupt or tampered with",
			       CS_INDEX_NAME, (unsigned)st.st_mode);
	if (ret == -EFBIG)
		return cs_fail(-EBADMSG, err, errlen, "%s is larger than the %u-byte limit" CS_IMAGES_CORRUPT,
			       CS_INDEX_NAME, CS_FRAME_HDR + CS_INDEX_MAX_BYTES);
	return cs_fail(ret, err, errlen, "cannot read %s: %s", CS_INDEX_NAME, strerror(-ret));
}

int cs_index_read(int dirfd, struct cs_index *x, char *err, size_t errlen)
{
	size_t len;
	void *buf;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = cs_imgdir_read_all(dirfd, CS_INDEX_NAME, CS_FRAME_HDR + CS_INDEX_MAX_BYTES, &buf, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret)
		return read_failed(dirfd, ret, err, errlen);
	ret = cs_index_decode(buf, len, x, err, errlen);
	free(buf);
	return ret;
}

void cs_index_file_read(int dirfd, struct cs_index_file *f)
{
	f->why[0] = '\0';
	f->bound = CS_BOUND_UNASKED;
	f->err = cs_index_read(dirfd, &f->x, f->why, sizeof(f->why));
}

static bool run_known(const char *run)
{
	return run && cs_criu_run_ok(run, strnlen(run, CS_CRIU_RUN_MAX + 1));
}

int cs_index_check_run(const struct cs_index *x, const char *criu_run, char *err, size_t errlen)
{
	if (!x->criu_run[0] || !run_known(criu_run) || !strcmp(x->criu_run, criu_run))
		return 0;
	return cs_fail(-ESTALE, err, errlen,
		       "these cudastore images belong to another CRIU dump (run %s), not to the one being "
		       "restored (run %s): %s and the files it lists were copied beside the CRIU images of "
		       "another dump; restore the CRIU images and the cudastore files of one dump together "
		       "(the directory that dump wrote), or dump again",
		       x->criu_run, criu_run, CS_INDEX_NAME);
}

void cs_index_file_bind(struct cs_index_file *f, const char *criu_run)
{
	if (f->err == -ENOENT)
		f->bound = CS_BOUND_NO_INDEX_RUN; /* format 1.0 images */
	if (f->err)
		return; /* nor is an unusable index, through which no manifest is read anyway */
	if (cs_index_check_run(&f->x, criu_run, f->why, sizeof(f->why))) {
		f->err = -ESTALE;
		f->bound = CS_BOUND_OTHER;
	} else if (!f->x.criu_run[0]) {
		f->bound = CS_BOUND_NO_INDEX_RUN;
	} else {
		f->bound = run_known(criu_run) ? CS_BOUND_SAME : CS_BOUND_NO_CRIU_RUN;
	}
}

const char *cs_index_bound_note(const struct cs_index_file *f)
{
	switch (f->bound) {
	case CS_BOUND_NO_INDEX_RUN:
		return "the cudastore images name no CRIU run (images of format 1.0-1.2, or dumped by a "
		       "criu that does not export its run id)";
	case CS_BOUND_NO_CRIU_RUN:
		return "the CRIU images name no run of their dump (an inventory.img without "
		       "dump_criu_run_id, or a criu that does not export it)";
	default:
		return NULL;
	}
}

static void format_id(const uint8_t id[CS_DUMP_ID_BYTES], char out[2 * CS_DUMP_ID_BYTES + 1])
{
	for (unsigned i = 0; i < CS_DUMP_ID_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

int cs_index_check_manifest(const struct cs_index *idx, const struct cs_manifest *m, const char *name,
			    char *err, size_t errlen)
{
	char a[2 * CS_DUMP_ID_BYTES + 1], b[2 * CS_DUMP_ID_BYTES + 1];

	if (!idx) {
		if (!m->has_dump_id)
			return 0; /* format 1.0 images */
		format_id(m->dump_id, a);
		cs_seterr(err, errlen,
			  "%s was written by dump %s, which also wrote %s, and that file is missing: images "
			  "incomplete",
			  name, a, CS_INDEX_NAME);
		return -EBADMSG;
	}
	if (m->has_dump_id && !memcmp(m->dump_id, idx->dump_id, sizeof(m->dump_id)))
		return 0;
	format_id(idx->dump_id, b);
	if (m->has_dump_id)
		format_id(m->dump_id, a);
	cs_seterr(err, errlen,
		  "%s belongs to another dump (dump id %s; %s says %s): a stale file copied into the "
		  "images directory after the dump",
		  name, m->has_dump_id ? a : "none, format 1.0", CS_INDEX_NAME, b);
	return -EBADMSG;
}

/* The manifest in file name says it is of the process name says (its ns_pid field). */
static int check_ns_pid(const struct cs_manifest *m, const char *name, pid_t ns_pid, char *err, size_t errlen)
{
	if (m->ns_pid == ns_pid)
		return 0;
	return cs_fail(-EBADMSG, err, errlen,
		       "%s holds the manifest of ns pid %d, not of ns pid %d as its name says: a file "
		       "renamed or copied in from elsewhere" CS_IMAGES_CORRUPT,
		       name, m->ns_pid, ns_pid);
}

/* the file has no manifest of this dump for ns_pid; err says why, -ENOENT or -ENOTSUP */
static int not_listed(int dirfd, const char *name, pid_t ns_pid, char *err, size_t errlen)
{
	if (faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW))
		return cs_fail(-ENOENT, err, errlen, "%s: no such file", name);
	return cs_fail(-ENOTSUP, err, errlen,
		       "ignoring %s: not a file of this dump (%s does not list ns pid %d); a stale file "
		       "of another dump",
		       name, CS_INDEX_NAME, ns_pid);
}

/* the index has a say: it is usable, or the images must be complete (cs_index_rules) */
static bool index_consulted(const struct cs_index_file *ix, enum cs_index_rules rules)
{
	return !ix->err || rules == CS_INDEX_COMPLETE;
}

static int check_loaded(int dirfd, const struct cs_index_file *ix, enum cs_index_rules rules, pid_t ns_pid,
			const struct cs_manifest *m, const char *name, char *err, size_t errlen)
{
	bool consulted = index_consulted(ix, rules);

	if (consulted && ix->err == -ESTALE) /* of another CRIU dump (cs_index_file_bind) */
		return cs_fail(ix->err, err, errlen, "%s", ix->why);
	if (consulted && ix->err && ix->err != -ENOENT)
		return cs_fail(ix->err, err, errlen,
			       "the images' index is unusable, so no manifest can be trusted: %s", ix->why);
	if (check_ns_pid(m, name, ns_pid, err, errlen))
		return -EBADMSG;
	if (consulted && cs_index_check_manifest(ix->err ? NULL : &ix->x, m, name, err, errlen))
		return -EBADMSG;
	if (m->mode == CS_MODE_CUSTOM)
		return cs_manifest_check_extents(dirfd, m, err, errlen);
	return 0;
}

int cs_index_load_manifest_as(int dirfd, const struct cs_index_file *ix, enum cs_index_rules rules,
			      pid_t ns_pid, struct cs_manifest *m, char *err, size_t errlen)
{
	char name[CS_NAME_MAX];
	int ret;

	cs_name_manifest(name, ns_pid);
	if (!ix->err && !cs_index_has(&ix->x, ns_pid))
		return not_listed(dirfd, name, ns_pid, err, errlen);
	ret = cs_manifest_read(dirfd, name, m, err, errlen);
	if (ret)
		return ret;
	ret = check_loaded(dirfd, ix, rules, ns_pid, m, name, err, errlen);
	if (ret)
		cs_manifest_free(m);
	/* -ENOENT says "no manifest": a missing extent is incomplete images instead */
	return ret == -ENOENT ? -EBADMSG : ret;
}

int cs_index_load_manifest(int dirfd, const struct cs_index_file *ix, pid_t ns_pid, struct cs_manifest *m,
			   char *err, size_t errlen)
{
	return cs_index_load_manifest_as(dirfd, ix, CS_INDEX_COMPLETE, ns_pid, m, err, errlen);
}
