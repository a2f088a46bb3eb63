// SPDX-License-Identifier: MIT
/* imgset.c - which cudastore files belong to this dump; processes the images lack (imgset.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "errmsg.h"
#include "imgdir.h"
#include "imgframe.h"
#include "imgset.h"
#include "log.h"

int cs_imgset_dump_begin(struct cs_ctx *ctx, int dirfd)
{
	unsigned removed = 0;
	int ret;

	memset(&ctx->index, 0, sizeof(ctx->index));
	if (getrandom(ctx->index.dump_id, sizeof(ctx->index.dump_id), 0) != sizeof(ctx->index.dump_id)) {
		ret = -errno;
		cs_err("cannot draw a random dump id: %s", strerror(-ret));
		return ret;
	}
	ret = cs_imgdir_remove_ours(dirfd, &removed);
	if (ret) {
		cs_err("cannot remove the cudastore files of an earlier dump from the images directory: %s. "
		       "A dump must not leave them next to its own: remove them, or dump into an empty "
		       "directory",
		       strerror(-ret));
		return ret;
	}
	if (removed)
		cs_info("removed %u cudastore file(s) of an earlier dump from the images directory", removed);
	return 0;
}

int cs_imgset_dump_note(struct cs_ctx *ctx, pid_t ns_pid)
{
	if (cs_index_has(&ctx->index, ns_pid))
		return 0;
	if (ctx->index.n >= CS_INDEX_MAX_PIDS)
		return -E2BIG;
	ctx->index.ns_pid[ctx->index.n++] = ns_pid;
	return 0;
}

int cs_imgset_dump_flush(struct cs_ctx *ctx, int dirfd)
{
	int ret = cs_index_write(dirfd, &ctx->index);

	if (ret)
		cs_err("cannot write %s (%u manifests) in the images directory: %s", CS_INDEX_NAME,
		       ctx->index.n, strerror(-ret));
	return ret;
}

static void format_id(const uint8_t id[CS_DUMP_ID_BYTES], char out[2 * CS_DUMP_ID_BYTES + 1])
{
	for (unsigned i = 0; i < CS_DUMP_ID_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

int cs_imgset_check_manifest(const struct cs_index *idx, const struct cs_manifest *m, const char *name,
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

static int check_loaded(int dirfd, const struct cs_index_file *ix, pid_t ns_pid, const struct cs_manifest *m,
			const char *name, char *err, size_t errlen)
{
	if (ix->err && ix->err != -ENOENT)
		return cs_fail(ix->err, err, errlen,
			       "the images' index is unusable, so no manifest can be trusted: %s", ix->why);
	if (check_ns_pid(m, name, ns_pid, err, errlen))
		return -EBADMSG;
	if (cs_imgset_check_manifest(ix->err ? NULL : &ix->x, m, name, err, errlen))
		return -EBADMSG;
	if (m->mode == CS_MODE_CUSTOM)
		return cs_manifest_check_extents(dirfd, m, err, errlen);
	return 0;
}

int cs_imgset_load(int dirfd, const struct cs_index_file *ix, pid_t ns_pid, struct cs_manifest *m, char *err,
		   size_t errlen)
{
	char name[CS_NAME_MAX];
	int ret;

	cs_name_manifest(name, ns_pid);
	if (!ix->err && !cs_index_has(&ix->x, ns_pid))
		return not_listed(dirfd, name, ns_pid, err, errlen);
	ret = cs_manifest_read(dirfd, name, m, err, errlen);
	if (ret)
		return ret;
	ret = check_loaded(dirfd, ix, ns_pid, m, name, err, errlen);
	if (ret)
		cs_manifest_free(m);
	/* -ENOENT says "no manifest": a missing extent is incomplete images instead */
	return ret == -ENOENT ? -EBADMSG : ret;
}

int cs_imgset_restore_load(struct cs_ctx *ctx, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen)
{
	if (!ctx->index_loaded) {
		ctx->index_loaded = true;
		cs_index_file_read(dirfd, &ctx->rindex);
		if (ctx->rindex.err == -ENOENT)
			cs_debug("no %s: images of format 1.0; every cudastore-<nspid>.img is read",
				 CS_INDEX_NAME);
		else if (ctx->rindex.err)
			cs_err(
			    "the images' index is unusable: %s. No process with a manifest can get its GPU "
			    "state back from these images",
			    ctx->rindex.why);
	}
	return cs_imgset_load(dirfd, &ctx->rindex, ns_pid, m, err, errlen);
}
