// SPDX-License-Identifier: MIT
/* batch.c - the GPU phase of every process of a tree at once (see batch.h) */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "engine.h"
#include "log.h"
#include "phase_timer.h"
#include "progress.h"
#include "criu_door.h"

struct worker_pool {
	struct cs_ctx *ctx;
	struct cs_batch *b;
	const bool *ready; /* the process's restore thread runs: fn may be called */
	atomic_uint next;  /* the next process to take */
};

unsigned cs_batch_width(const struct cs_ctx *ctx, unsigned n)
{
	unsigned w = ctx->opt.parallel ? ctx->opt.parallel : CS_PARALLEL_AUTO;

	return n < w ? n : w;
}

static void run_one(struct worker_pool *wp, struct cs_proc *p)
{
	p->batch.t_begin = cs_now();
	cs_progress_note(p->pid);
	p->batch.result = wp->b->fn(wp->ctx, p, wp->b->arg);
	cs_progress_note(p->pid);
	p->batch.t_end = cs_now();
}

static void *worker_main(void *arg)
{
	struct worker_pool *wp = arg;
	unsigned i;

	while ((i = atomic_fetch_add(&wp->next, 1)) < wp->b->n)
		if (wp->ready[i])
			run_one(wp, wp->b->procs[i]);
	return NULL;
}

/* Start up to want workers (every signal blocked in them); how many started. */
static unsigned start_workers(struct worker_pool *wp, pthread_t *tids, unsigned want)
{
	sigset_t all, old;
	unsigned n;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (n = 0; n < want; n++)
		if (pthread_create(&tids[n], NULL, worker_main, wp))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n;
}

/* Let the restore thread of every process run; ready[i] says which run. */
static void run_threads(struct cs_batch *b, struct cs_criu_rt *rt, bool *ready)
{
	unsigned i;

	for (i = 0; i < b->n; i++) {
		struct cs_proc *p = b->procs[i];

		p->batch.done = true;
		p->batch.result = cs_criu_rt_run(&rt[i], p->restore_tid);
		ready[i] = !p->batch.result;
		if (ready[i]) /* its driver thread's work counts as progress (progress.h) */
			cs_progress_watch(p->pid, p->restore_tid);
		if (p->batch.result)
			cs_err("pid %d: its CUDA restore thread %d cannot be let run for the %s; it is left "
			       "out",
			       p->pid, p->restore_tid, b->what);
	}
}

static void stop_threads(struct cs_batch *b, struct cs_criu_rt *rt, const bool *ready)
{
	unsigned i;
	int ret;

	for (i = 0; i < b->n; i++) {
		if (!ready[i])
			continue;
		cs_progress_unwatch(b->procs[i]->pid);
		ret = cs_criu_rt_stop(&rt[i]);
		if (ret && !b->procs[i]->batch.result)
			b->procs[i]->batch.result = ret;
	}
}

static void note_times(struct cs_batch *b, const bool *ready)
{
	double first = 0, last = 0;
	unsigned i;

	b->sum = 0;
	for (i = 0; i < b->n; i++) {
		struct cs_proc *p = b->procs[i];

		if (!ready[i])
			continue;
		if (!first || p->batch.t_begin < first)
			first = p->batch.t_begin;
		if (p->batch.t_end > last)
			last = p->batch.t_end;
		b->sum += p->batch.t_end - p->batch.t_begin;
	}
	b->wall = last > first ? last - first : 0;
	for (i = 0; i < b->n; i++)
		if (ready[i])
			cs_info("pid %d: %s from +%.3f s to +%.3f s of the GPU phase (%.1f MiB)%s",
				b->procs[i]->pid, b->what, b->procs[i]->batch.t_begin - first,
				b->procs[i]->batch.t_end - first, b->procs[i]->batch.bytes / 1048576.0,
				b->procs[i]->batch.result ? ", failed" : "");
}

/*
 * The engine copies that run at once share one budget (threads, pinned memory, CPUs). When every
 * process runs at once and the size of every copy is known, each copy gets a part in proportion
 * to its bytes, so that they end together; else (fewer workers than processes, a copy of unknown
 * size, a lone copy) the even 1/sharers.
 */
static void share_by_size(struct cs_batch *b, const bool *ready, unsigned workers)
{
	uint64_t total = 0, largest = 0;
	unsigned i, ncopies = 0;

	for (i = 0; i < b->n; i++)
		b->procs[i]->batch.copy_part = 0;
	for (i = 0; i < b->n; i++) {
		uint64_t c = b->procs[i]->batch.copy_bytes;

		if (!ready[i] || !c)
			continue;
		if (c == CS_COPY_UNKNOWN)
			return;
		total += c;
		largest = c > largest ? c : largest;
		ncopies++;
	}
	if (ncopies < 2 || workers < b->n)
		return;
	for (i = 0; i < b->n; i++) {
		struct cs_proc *p = b->procs[i];

		if (!ready[i] || !p->batch.copy_bytes)
			continue;
		p->batch.copy_part = cs_engine_part_of(p->batch.copy_bytes, total);
		cs_debug("pid %d: its copy (%.1f of %.1f MiB) takes %.1f%% of the copy threads and pinned "
			 "memory",
			 p->pid, p->batch.copy_bytes / 1048576.0, total / 1048576.0,
			 100.0 * p->batch.copy_part / CS_ENGINE_PART_WHOLE);
	}
	cs_info("%s: the %u copies running at once share the copy threads and pinned memory by their "
		"sizes (the largest, %.1f MiB, takes %.0f%%)",
		b->what, ncopies, largest / 1048576.0, 100.0 * largest / total);
}

/*
 * Run the processes on up to b->width workers; the main thread works when none starts. The
 * engine budget is shared out before any worker starts, since a worker reads its share as soon
 * as it copies (cs_copy_engine_opts); if fewer workers start, the shares stay as planned for
 * b->width (each copy gets less than it could, never more than the budget).
 */
/* every process's share of the engine budget: sharers copies at once, each its part */
static void share(struct cs_batch *b, const bool *ready, unsigned sharers)
{
	for (unsigned i = 0; i < b->n; i++)
		b->procs[i]->batch.sharers = sharers;
	share_by_size(b, ready, sharers);
}

static void run_workers(struct cs_ctx *ctx, struct cs_batch *b, const bool *ready)
{
	struct worker_pool wp = { .ctx = ctx, .b = b, .ready = ready };
	pthread_t *tids = calloc(b->width, sizeof(*tids));
	unsigned started = 0, i, sharers = tids && b->width > 1 ? b->width : 1;

	atomic_init(&wp.next, 0);
	share(b, ready, sharers);
	if (sharers > 1)
		started = start_workers(&wp, tids, b->width);
	if (!started) { /* one at a time, here, as without a batch: each copy alone */
		share(b, ready, 1);
		worker_main(&wp);
	}
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (b->width > 1 && started < b->width)
		cs_warn("%s: %u of %u worker threads started; the processes ran %u at a time", b->what,
			started, b->width, started ? started : 1);
	b->width = started ? started : 1;
	share(b, ready, 0); /* out of the batch: a later copy of these processes is alone */
	free(tids);
}

int cs_batch_run(struct cs_ctx *ctx, struct cs_batch *b)
{
	struct cs_criu_rt *rt;
	bool *ready;
	unsigned i;
	int ret = 0;

	if (!b->n)
		return 0;
	rt = calloc(b->n, sizeof(*rt));
	ready = calloc(b->n, sizeof(*ready));
	if (!rt || !ready) {
		free(rt);
		free(ready);
		for (i = 0; i < b->n; i++)
			b->procs[i]->batch.done = true, b->procs[i]->batch.result = -ENOMEM;
		return -ENOMEM;
	}
	b->width = cs_batch_width(ctx, b->n);
	if (b->limit && b->limit < b->width)
		b->width = b->limit;
	run_threads(b, rt, ready);
	run_workers(ctx, b, ready);
	stop_threads(b, rt, ready);
	note_times(b, ready);
	for (i = 0; i < b->n && !ret; i++)
		ret = b->procs[i]->batch.result;
	if (b->n > 1)
		cs_info("GPU %s phase of %u processes, at most %u at once: %.3f s wall, %.3f s summed over "
			"the processes (%.2fx)",
			b->what, b->n, b->width, b->wall, b->sum, b->wall > 0 ? b->sum / b->wall : 1.0);
	free(rt);
	free(ready);
	return ret;
}
