// SPDX-License-Identifier: MIT
/* imgset.c - the helper's bookkeeping of one dump's files: stale ones removed, the index kept (imgset.h) */
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
	if (ctx->index.n >= CS_MAX_PROCS)
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

int cs_imgset_restore_load(struct cs_ctx *ctx, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen)
{
	if (!ctx->index_loaded) {
		ctx->index_loaded = true;
		cs_index_file_read(dirfd, &ctx->rindex);
		if (ctx->rindex.err == -ENOENT)
			cs_debug("no %s: images of format 1.0; every cudastore-<nspid>.img is read",
				 CS_INDEX_NAME);
		/* an unusable index fails each manifest's load below, with its reason in err */
	}
	return cs_index_load_manifest(dirfd, &ctx->rindex, ns_pid, m, err, errlen);
}
