/* SPDX-License-Identifier: MIT */
/*
 * dump_chunks.h - a chunked dump's set-up and end (docs/image-format.md section 10): the parent
 * and the store judged and opened at the dump's first PAUSE, before the images directory is
 * cleared and before any lock; each process's parent images checked at its PAUSE; the store's
 * shared lock held until the dump ends. Each refusal is logged with what to do.
 */
#ifndef CUDASTORE_DUMP_CHUNKS_H
#define CUDASTORE_DUMP_CHUNKS_H

#include "context.h"

/* The dump's first PAUSE (or INIT): chunks_open, cs_imgset_dump_own, chunks_begin; once. */
int cs_dump_own_imgdir(struct cs_ctx *ctx, int dirfd);
/* Before cs_imgset_dump_begin: parent and store opened and judged (nothing chunked: 0). */
int cs_dump_chunks_open(struct cs_ctx *ctx, int dirfd);
/* After it: the images directory's cudastore-chunks/ of an earlier dump cleared (whether this
 * dump is chunked or not), made anew for a chunked one. */
int cs_dump_chunks_begin(struct cs_ctx *ctx, int dirfd);
/* PAUSE of a CustomStorage process, before its lock: its images in the parent usable. */
int cs_dump_chunks_check_proc(struct cs_ctx *ctx, const struct cs_proc *p);
/* A failed dump's chunk links removed (the parent and store are never touched). */
void cs_dump_chunks_discard(struct cs_ctx *ctx, int dirfd);
/* Every fd closed, the store's lock released. */
void cs_dump_chunks_close(struct cs_ctx *ctx);

#endif /* CUDASTORE_DUMP_CHUNKS_H */
