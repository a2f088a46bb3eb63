// SPDX-License-Identifier: MIT
/* progress.c - what moves while a request is in flight (see progress.h) */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "clock.h"
#include "context.h" /* CS_MAX_PROCS */
#include "log.h"
#include "procfs.h"
#include "progress.h"

/*
 * A driver thread at work uses more than this share of one CPU between two looks, in parts per
 * thousand: 4 %, 10 ms of a tick. One that copies uses all of a CPU (the test emulator's slow
 * driver 15 %). One that wakes up now and then to poll uses far less: on a virtual machine a
 * wake-up costs about 55 us of CPU, so one every 10 ms is about 0.6 %. A share of the time since
 * the last look, not an amount per look: a look that comes late (the host is loaded) must not
 * add a poller's wake-ups up to work.
 */
#define CPU_AT_WORK_PERMILLE 40
/* resident memory that grows or shrinks by this much is being copied into or freed */
#define RSS_AT_WORK_PAGES 256
/* a watched process's deltas go to the debug log this often, in ticks */
#define REPORT_TICKS 8

struct watch {
	pid_t pid, tid;
	unsigned refs;
	uint64_t cpu_ns, rss_pages; /* at the last tick */
	uint64_t seen_ns;	    /* cs_now_ns() of that sample */
	uint64_t last_ns;	    /* cs_now_ns() when it last moved */
	uint64_t cpu_sum, ticks;    /* since the last debug line */
	int64_t rss_sum;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct watch watched[CS_MAX_PROCS];
static atomic_uint_fast64_t steps;
static uint64_t steps_seen, self_seen, self_seen_ns; /* the ticker's own */

/*
 * cpu_ns of CPU used in span_ns is work: at least CPU_AT_WORK_PERMILLE of one CPU. A look that
 * comes early is judged as a whole tick would be (a poller stays idle).
 */
static bool cpu_at_work(uint64_t cpu_ns, uint64_t span_ns)
{
	uint64_t tick = CS_PROGRESS_TICK_MS * 1000000ull;

	return cpu_ns * 1000 >= CPU_AT_WORK_PERMILLE * (span_ns < tick ? tick : span_ns);
}

static struct watch *find(pid_t pid)
{
	for (unsigned i = 0; i < CS_MAX_PROCS; i++)
		if (watched[i].refs && watched[i].pid == pid)
			return &watched[i];
	return NULL;
}

void cs_progress_note(pid_t pid)
{
	struct watch *w;

	atomic_fetch_add(&steps, 1);
	if (pid <= 0)
		return;
	pthread_mutex_lock(&mu);
	w = find(pid);
	if (w)
		w->last_ns = cs_now_ns();
	pthread_mutex_unlock(&mu);
}

static void sample(struct watch *w, uint64_t *cpu, uint64_t *rss)
{
	if (cs_procfs_thread_cpu_ns(w->pid, w->tid, cpu))
		*cpu = w->cpu_ns;
	if (cs_procfs_rss_pages(w->pid, rss))
		*rss = w->rss_pages;
}

void cs_progress_watch(pid_t pid, pid_t tid)
{
	struct watch *w;

	pthread_mutex_lock(&mu);
	w = find(pid);
	for (unsigned i = 0; !w && i < CS_MAX_PROCS; i++)
		if (!watched[i].refs) {
			w = &watched[i];
			memset(w, 0, sizeof(*w));
			w->pid = pid;
			w->tid = tid;
			sample(w, &w->cpu_ns, &w->rss_pages);
			w->seen_ns = cs_now_ns();
		}
	if (w) {
		w->refs++;
		w->last_ns = cs_now_ns();
	}
	pthread_mutex_unlock(&mu);
}

void cs_progress_unwatch(pid_t pid)
{
	struct watch *w;

	pthread_mutex_lock(&mu);
	w = find(pid);
	if (w)
		w->refs--;
	pthread_mutex_unlock(&mu);
}

/* one watched process at this tick: true when its driver thread is at work */
static bool look_at(struct watch *w, uint64_t now)
{
	uint64_t cpu, rss;
	int64_t drss;
	bool moved;

	sample(w, &cpu, &rss);
	drss = (int64_t)(rss - w->rss_pages);
	moved = cpu_at_work(cpu - w->cpu_ns, now - w->seen_ns) || drss >= RSS_AT_WORK_PAGES ||
		-drss >= RSS_AT_WORK_PAGES;
	w->seen_ns = now;
	w->cpu_sum += cpu - w->cpu_ns;
	w->rss_sum += drss;
	w->cpu_ns = cpu;
	w->rss_pages = rss;
	if (moved)
		w->last_ns = now;
	if (++w->ticks == REPORT_TICKS) {
		cs_debug(
		    "pid %d: its driver thread %d used %.1f ms of CPU and its resident memory changed by "
		    "%+.1f MiB in %.1f s; last moved %.1f s ago",
		    w->pid, w->tid, w->cpu_sum / 1e6, w->rss_sum * 4096.0 / 1048576.0,
		    REPORT_TICKS * CS_PROGRESS_TICK_MS / 1000.0, (now - w->last_ns) / 1e9);
		w->ticks = w->cpu_sum = 0;
		w->rss_sum = 0;
	}
	return moved;
}

bool cs_progress_tick(uint64_t self_cpu_ns)
{
	uint64_t now = cs_now_ns(), n = atomic_load(&steps);
	bool moved = n != steps_seen;

	steps_seen = n;
	/* the helper's own threads, judged as a driver thread is; one that ended takes its time out
	 * of the sum: only a rise counts */
	if (self_cpu_ns > self_seen && cpu_at_work(self_cpu_ns - self_seen, now - self_seen_ns))
		moved = true;
	self_seen = self_cpu_ns;
	self_seen_ns = now;
	pthread_mutex_lock(&mu);
	for (unsigned i = 0; i < CS_MAX_PROCS; i++)
		if (watched[i].refs && look_at(&watched[i], now))
			moved = true;
	pthread_mutex_unlock(&mu);
	return moved;
}

double cs_progress_idle(pid_t pid)
{
	struct watch *w;
	double idle = 0;

	pthread_mutex_lock(&mu);
	w = find(pid);
	if (w)
		idle = (cs_now_ns() - w->last_ns) / 1e9;
	pthread_mutex_unlock(&mu);
	return idle;
}
