/* SPDX-License-Identifier: MIT */
/*
 * copy_opts.h - the copy engine's options for a copy made by this helper.
 *
 * Every dump and restore copy starts from these: the plugin options' chunk size, threads,
 * pinned bound, I/O settings and space check, a progress logger, the engine's notes logged
 * into this helper's log, and the copies of other processes running at once (batch.h).
 */
#ifndef CUDASTORE_COPY_OPTS_H
#define CUDASTORE_COPY_OPTS_H

#include "context.h"
#include "engine.h"

/* Engine options from the plugin options, with a progress logger; p (or NULL: a copy of no process
 * of a batch) gives its part of the budget shared with the copies running at once (batch.h). */
void cs_copy_engine_opts(struct cs_ctx *ctx, const struct cs_proc *p, struct cs_engine_opts *eo);

#endif /* CUDASTORE_COPY_OPTS_H */
