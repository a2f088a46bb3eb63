// SPDX-License-Identifier: MIT
/* dump_chunks.c - a chunked dump's parent, store and chunk directory (dump_chunks.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chunk_parent.h"
#include "chunkstore.h"
#include "dump_chunks.h"
#include "imgset.h"
#include "log.h"

static void sink_reset(struct cs_dump_session *ds)
{
	ds->sink = (struct cs_chunk_sink){ .img = -1, .store = -1, .stmp = -1, .parent = -1 };
	ds->parent.dir = ds->parent.chunks = -1;
	ds->store_lock = -1;
}

static int open_store(struct cs_ctx *ctx, int dirfd)
{
	struct cs_dump_session *ds = &ctx->dump;
	const char *path = ctx->opt.chunk_store;
	int ret = cs_store_open(dirfd, path, &ds->sink.store, &ds->sink.stmp);

	if (ret) {
		cs_err("chunk store %s cannot be opened or made: %s; no process was touched. Give "
		       "chunk_store a directory root can write",
		       path, strerror(-ret));
		return ret;
	}
	ret = cs_same_fs(dirfd, ds->sink.store);
	if (ret) {
		cs_err("chunk store %s is on another filesystem than the images directory: chunks are hard "
		       "links; put the store on the images' filesystem. No process was touched",
		       path);
		return ret;
	}
	ds->store_lock = cs_store_lock(ds->sink.store, false, true);
	if (ds->store_lock < 0) {
		ret = ds->store_lock;
		cs_err("chunk store %s: cannot take its lock: %s; no process was touched", path,
		       strerror(-ret));
		return ret;
	}
	return 0;
}

/* the parent key; else criu's --prev-images-dir (*from_criu set), else "" */
static const char *pick_parent(const struct cs_options *o, bool *from_criu)
{
	*from_criu = false;
	if (o->parent[0]) {
		if (o->criu_parent[0])
			cs_info("chunked dump: the parent key (%s) wins over criu's --prev-images-dir (%s) "
				"as the GPU parent",
				o->parent, o->criu_parent);
		return o->parent;
	}
	*from_criu = o->criu_parent[0] != '\0';
	return o->criu_parent;
}

/*
 * Open the parent. criu's --prev-images-dir may name criu's pre-dump images (criu --track-mem),
 * which hold no GPU state: then the chunks are dumped in full, as criu dumps its pages.
 */
static int open_parent(struct cs_ctx *ctx, int dirfd)
{
	struct cs_dump_session *ds = &ctx->dump;
	bool from_criu;
	const char *path = pick_parent(&ctx->opt, &from_criu);
	char err[768];
	int ret;

	if (!path[0])
		return 0;
	ret = cs_chunk_parent_open(dirfd, path, &ds->parent, err, sizeof(err));
	if ((ret == -EPROTO || ret == -ENOENT) && from_criu) {
		cs_info("no GPU parent in criu's --prev-images-dir %s (%s): the GPU chunks are dumped in "
			"full",
			path, err);
		return 0;
	}
	if (ret) {
		cs_err("%s%s. No process was touched", from_criu ? "criu's --prev-images-dir: " : "", err);
		return ret;
	}
	ds->sink.parent = ds->parent.chunks;
	return 0;
}

int cs_dump_chunks_open(struct cs_ctx *ctx, int dirfd)
{
	struct cs_dump_session *ds = &ctx->dump;
	int ret;

	sink_reset(ds);
	if (!cs_opt_chunked(&ctx->opt) || ctx->stage != CS_STAGE_DUMP)
		return 0;
	ds->chunked = true;
	ret = open_parent(ctx, dirfd);
	if (ret)
		return ret;
	if (ctx->opt.chunk_store[0])
		return open_store(ctx, dirfd);
	return 0;
}

int cs_dump_chunks_begin(struct cs_ctx *ctx, int dirfd)
{
	struct cs_dump_session *ds = &ctx->dump;
	unsigned removed = 0;
	int ret;

	/* an earlier chunked dump's links go whatever this dump writes: left behind, they would
	 * keep that dump's store chunks from gc (and cost nothing to look for when absent) */
	ret = cs_chunks_dir_clear(dirfd, &removed);
	if (ret) {
		cs_err("cannot remove %s of an earlier dump from the images directory: %s. Remove it, or "
		       "dump into an empty directory",
		       CS_CHUNKS_DIR, strerror(-ret));
		return ret;
	}
	if (ds->parent.dir >= 0) { /* the index names the parent (cs_imgset_dump_begin reset it) */
		ds->index.has_parent = true;
		memcpy(ds->index.parent_dump_id, ds->parent.x.dump_id, sizeof(ds->index.parent_dump_id));
		snprintf(ds->index.parent_dir, sizeof(ds->index.parent_dir), "%s", ds->parent.path);
	}
	if (removed)
		cs_info("removed %u chunk link(s) of an earlier dump from the images directory", removed);
	if (!ds->chunked)
		return 0;
	ds->sink.img = cs_chunks_dir_open(dirfd, true);
	if (ds->sink.img < 0) {
		ret = ds->sink.img;
		cs_err("cannot make %s in the images directory: %s", CS_CHUNKS_DIR, strerror(-ret));
		return ret;
	}
	cs_info("chunked dump: parent %s, chunk store %s", ds->parent.dir >= 0 ? ds->parent.path : "none",
		ctx->opt.chunk_store[0] ? ctx->opt.chunk_store : "none");
	return 0;
}

int cs_dump_chunks_check_proc(struct cs_ctx *ctx, const struct cs_proc *p)
{
	char err[768];
	int ret;

	if (!ctx->dump.chunked || ctx->dump.parent.dir < 0)
		return 0;
	ret = cs_chunk_parent_check_proc(&ctx->dump.parent, p->ns_pid, err, sizeof(err));
	if (ret)
		cs_err("pid %d: %s. The process was not touched", p->pid, err);
	return ret;
}

void cs_dump_chunks_discard(struct cs_ctx *ctx, int dirfd)
{
	int ret;

	if (!ctx->dump.chunked || dirfd < 0)
		return;
	ret = cs_chunks_dir_clear(dirfd, NULL);
	if (ret)
		cs_warn("cannot remove the failed dump's %s: %s", CS_CHUNKS_DIR, strerror(-ret));
}

int cs_dump_own_imgdir(struct cs_ctx *ctx, int dirfd)
{
	int ret;

	if (ctx->dump.imgdir_owned)
		return 0;
	ret = cs_dump_chunks_open(ctx, dirfd);
	if (!ret)
		ret = cs_imgset_dump_own(&ctx->dump, dirfd);
	if (!ret)
		ret = cs_dump_chunks_begin(ctx, dirfd);
	if (ret) {
		cs_dump_chunks_close(ctx);
		ctx->dump.chunked = false;
	}
	return ret;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void cs_dump_chunks_close(struct cs_ctx *ctx)
{
	struct cs_dump_session *ds = &ctx->dump;

	if (!ds->chunked)
		return;
	cs_chunk_parent_close(&ds->parent);
	close_fd(&ds->sink.img);
	close_fd(&ds->sink.store);
	close_fd(&ds->sink.stmp);
	close_fd(&ds->store_lock);
	ds->sink.parent = -1;
}
