/* SPDX-License-Identifier: MIT */
/*
 * batch.h - the GPU phase of every CUDA process of a tree at once.
 *
 * CRIU calls CHECKPOINT_DEVICES (dump) and RESUME_DEVICES_LATE (restore) for every task of the
 * tree, one call after another and nothing in between. The driver checkpoints and restores
 * different processes concurrently, so the first call does the work of all of them
 * (dump.c, restore.c) through cs_batch_run() and every call answers with its own process's
 * result (cs_proc.result). The exit(DUMP) rollback (rollback.c) runs the same way.
 *
 * cs_batch_run(), on the helper's main thread:
 *  1. asks criu to let the restore thread of every process run (only criu, the tracer, can;
 *     the restore-thread calls to criu are made from the main thread only);
 *  2. runs fn for each process on worker threads, at most `width` at once (the parallel option),
 *     every signal blocked in them; a process whose restore thread could not be let run gets
 *     that error as its result and no fn;
 *  3. stops every restore thread again and records each process's start, end and result.
 * fn may use the driver, the copy engine (whose copies then share one thread and pinned budget:
 * engine opts.sharers, cs_copy_engine_opts; when every process runs at once and the caller gave
 * every copy's size, cs_proc.copy_bytes, each copy's part is in proportion to it, so that the
 * copies end together: opts.part) and what ctx->mu guards (devices.c, the pool,
 * the dump's index); it must not ask criu for anything (no cs_criu_rt_* calls).
 */
#ifndef CUDASTORE_BATCH_H
#define CUDASTORE_BATCH_H

#include "context.h"

typedef int (*cs_batch_fn)(struct cs_ctx *ctx, struct cs_proc *p, void *arg);

struct cs_batch {
	const char *what; /* "checkpoint", "restore", "rollback": names the phase in the log */
	struct cs_proc **procs;
	unsigned n;
	cs_batch_fn fn;
	void *arg;
	unsigned limit; /* at most this many at once, below the parallel option's width (0: none) */
	/* out */
	unsigned width; /* processes that ran at once, at most */
	double wall;	/* seconds from the first start to the last end */
	double sum;	/* the processes' own times added up */
};

/*
 * Run b->fn for b->procs (see the top). Each process's result, t_begin, t_end are set (bytes
 * is fn's to set). Returns 0 when every result is 0, else the first non-zero result.
 */
int cs_batch_run(struct cs_ctx *ctx, struct cs_batch *b);

/* How many processes may run at once: the parallel option, for n processes. */
unsigned cs_batch_width(const struct cs_ctx *ctx, unsigned n);

#endif /* CUDASTORE_BATCH_H */
