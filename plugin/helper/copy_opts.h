/* SPDX-License-Identifier: MIT */
/*
 * copy_opts.h - the copy engine's job for a copy made by this helper.
 *
 * Every dump and restore copy starts from these options: the plugin options' chunk size,
 * threads, pinned bound, I/O settings and space check, a progress logger, the engine's notes
 * logged into this helper's log, and the copies of other processes running at once (batch.h).
 * A process's copy through the driver's CustomStorage mapping is built and run the same way in
 * both directions: each region over one GPU's mapping (cs_copy_map), then cs_copy_run.
 */
#ifndef CUDASTORE_COPY_OPTS_H
#define CUDASTORE_COPY_OPTS_H

#include "context.h"
#include "custom_view.h"
#include "engine.h"

/* Engine options from the plugin options, with a progress logger; p (or NULL: a copy of no process
 * of a batch) gives its part of the budget shared with the copies running at once (batch.h). */
void cs_copy_engine_opts(struct cs_ctx *ctx, const struct cs_proc *p, struct cs_engine_opts *eo);

/* r over the driver's mapping of GPU region i of v: its pointer, size and retained context (set
 * after the caller's own fields: the file a dump writes, the chunk table a restore reads) */
void cs_copy_map(const struct cs_ctx *ctx, const struct cs_gpu_view *v, unsigned i,
		 struct cs_engine_region *r);

enum cs_copy_dir { CS_COPY_OUT, CS_COPY_IN };
/*
 * Run pid's copy of regs[0..n) out of the GPUs (a dump) or into them (a restore: chunks the
 * prefetch read and verified are taken from it) with this helper's options, p's part of a
 * batch's budget and the pool lent to these regions. 0, or -errno with the engine's reason in
 * err (not logged).
 */
int cs_copy_run(struct cs_ctx *ctx, pid_t pid, enum cs_copy_dir dir, struct cs_engine_region *regs,
		unsigned n, char *err, size_t len);

#endif /* CUDASTORE_COPY_OPTS_H */
