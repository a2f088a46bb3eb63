// SPDX-License-Identifier: MIT
/*
 * watch.c - what criu does to the dumped processes once it lets them go (watch.h).
 *
 * Each look asks task_fate.h what criu did to a process: gone, still held, stopped or running.
 * A stop held for CS_WATCH_STOP_MS is criu's -s (a stop held that long is not the instant between
 * criu's detach and a thread's wake-up); anything else is final at once. The first seconds are
 * polled every 2 ms, as criu usually lets the tree go within milliseconds of BYE.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "procfs.h"
#include "criu_link.h"
#include "phase_timer.h"
#include "rollback.h"
#include "task_fate.h"
#include "watch.h"

#define CS_WATCH_STOP_MS 100
#define CS_WATCH_FAST_MS 2000

struct cs_watched {
	struct cs_proc *p;
	unsigned long long start; /* its start time while criu still held it */
	enum cs_fate fate;
	pid_t tracer;	/* last tracer seen */
	double stop_at; /* when a job-control stop was first seen (0: none) */
	double at;	/* when its fate was decided, seconds after BYE */
};

/* one look at w at time now (seconds after BYE); true when its fate is decided */
static bool look(struct cs_watched *w, double now)
{
	enum cs_fate f = cs_task_fate(w->p->pid, w->start, &w->tracer);

	if (f == CS_FATE_STOPPED && !w->stop_at)
		w->stop_at = now;
	if (f != CS_FATE_STOPPED)
		w->stop_at = 0;
	if (f == CS_FATE_HELD || (f == CS_FATE_STOPPED && (now - w->stop_at) * 1000 < CS_WATCH_STOP_MS))
		return false;
	w->fate = f;
	w->at = now;
	return true;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* watch until every process's fate is decided or CS_WATCH_MAX_MS passed */
static void watch_all(struct cs_watched *w, unsigned n)
{
	double t0 = cs_now(), now = 0;
	unsigned i, open = n;

	while (open && now * 1000 < CS_WATCH_MAX_MS) {
		now = cs_now() - t0;
		for (i = 0, open = 0; i < n; i++)
			if (w[i].fate == CS_FATE_HELD && !look(&w[i], now))
				open++;
		if (open)
			sleep_ms(now * 1000 < CS_WATCH_FAST_MS ? 2 : 50);
	}
}

static void report(const struct cs_watched *w)
{
	char held[64] = "held (a thread traced, or a SIGSTOP not taken)";

	if (w->tracer)
		snprintf(held, sizeof(held), "traced by pid %d", (int)w->tracer);
	switch (w->fate) {
	case CS_FATE_GONE:
		cs_debug("pid %d: gone %.0f ms after the dump's end (criu killed it): nothing to resume",
			 w->p->pid, w->at * 1000);
		break;
	case CS_FATE_STOPPED:
		cs_info("pid %d: criu left it stopped (-s): it stays checkpointed; restore it with criu "
			"restore, or kill it",
			w->p->pid);
		break;
	case CS_FATE_RUNNING:
		cs_info("pid %d: criu let it run %.0f ms after the dump's end (leave-running): resuming "
			"its GPU state",
			w->p->pid, w->at * 1000);
		break;
	default:
		cs_err("pid %d: still %s %d s after the dump's end: left checkpointed (its CUDA calls "
		       "block until it is killed, or dumped again with --leave-running)",
		       w->p->pid, held, CS_WATCH_MAX_MS / 1000);
	}
}

/* record each process's start time while criu still holds it (no reused pid is mistaken) */
static unsigned snapshot(struct cs_ctx *ctx, struct cs_watched *w)
{
	unsigned i, n = 0;
	char st;

	for (i = 0; i < ctx->nproc; i++) {
		struct cs_proc *p = &ctx->proc[i];

		if (!cs_dump_needs_resume(p))
			continue;
		w[n] = (struct cs_watched){ .p = p, .fate = CS_FATE_HELD };
		if (cs_procfs_task(p->pid, &st, &w[n].start, &w[n].tracer))
			w[n].start = 0; /* already gone: judged so at the first look */
		n++;
	}
	return n;
}

void cs_watch_leave_running(struct cs_ctx *ctx, int sock, int dirfd, const char *log_name)
{
	struct cs_watched w[CS_MAX_PROCS];
	unsigned i, n = snapshot(ctx, w), resume = 0;
	int log_fd = -1;

	cs_criu_link_guardian(-1); /* criu's log is about to close: log lines go to stderr */
	close(sock);	       /* criu goes on and decides the tree's fate */
	watch_all(w, n);
	for (i = 0; i < n; i++) {
		resume += w[i].fate == CS_FATE_RUNNING;
		w[i].p->dump.left = w[i].fate != CS_FATE_RUNNING;
		w[i].p->dump.watched = w[i].fate == CS_FATE_RUNNING;
	}
	if (resume && dirfd >= 0)
		log_fd =
		    openat(dirfd, log_name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	cs_criu_link_guardian(log_fd);
	for (i = 0; i < n; i++)
		report(&w[i]);
	if (resume)
		cs_dump_finish(ctx, 0, true, dirfd);
	if (log_fd >= 0)
		close(log_fd);
}
