// SPDX-License-Identifier: MIT
/*
 * The progress watch (progress.h) tells a process whose driver thread works from one that waits:
 * a child spinning on the CPU and one growing its resident memory while it mostly sleeps are seen
 * moving at every look, a sleeping child and one that wakes up now and then (a poller) are idle,
 * also to a look that comes seconds late (a loaded host: the poller's wake-ups of that time are
 * no work), a noted step counts once, and the helper's own CPU time is judged the same way.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "progress.h"
#include "tap.h"

enum kind { SPIN, GROW, SLEEP, POLL };

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static void child(enum kind k)
{
	volatile unsigned long x = 0;
	char *p;

	for (;;) {
		switch (k) {
		case SPIN:
			x++;
			break;
		case GROW: /* 8 MiB more every 100 ms, touched */
			p = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p != MAP_FAILED)
				memset(p, 1, 8 << 20);
			sleep_ms(100);
			break;
		case SLEEP:
			pause();
			break;
		case POLL: /* a wake-up every 10 ms that does nothing */
			sleep_ms(10);
			break;
		}
	}
}

static pid_t start(enum kind k)
{
	pid_t pid = fork();

	if (pid == 0)
		child(k);
	return pid;
}

/* ticks for about ms, with the helper's own CPU time standing still; true if any tick moved */
static bool tick_for(long ms)
{
	bool moved = false;

	for (long t = 0; t < ms; t += CS_PROGRESS_TICK_MS) {
		sleep_ms(CS_PROGRESS_TICK_MS);
		moved |= cs_progress_tick(1000);
	}
	return moved;
}

int main(void)
{
	pid_t kids[4];
	double idle[4];
	const char *name[4] = { "spinning", "growing", "sleeping", "polling" };

	tap_plan(11);
	for (int k = 0; k < 4; k++)
		kids[k] = start((enum kind)k);
	for (int k = 0; k < 4; k++)
		cs_progress_watch(kids[k], kids[k]); /* each one's main thread is its "driver thread" */
	tick_for(1500);
	for (int k = 0; k < 4; k++)
		idle[k] = cs_progress_idle(kids[k]);
	tap_ok(idle[SPIN] < 0.6, "the %s child moved within the last look (idle %.2f s)", name[SPIN],
	       idle[SPIN]);
	tap_ok(idle[GROW] < 0.6, "the %s child moved within the last look (idle %.2f s)", name[GROW],
	       idle[GROW]);
	tap_ok(idle[SLEEP] > 1.2, "the %s child is idle (%.2f s)", name[SLEEP], idle[SLEEP]);
	tap_ok(idle[POLL] > 1.2, "the %s child is idle (%.2f s)", name[POLL], idle[POLL]);
	cs_progress_unwatch(kids[SPIN]);
	cs_progress_unwatch(kids[GROW]);
	tick_for(500); /* the last moves of the unwatched are counted and done with */
	tap_ok(!tick_for(1000), "with only the sleeping and the polling child watched, nothing moves");
	sleep_ms(4000);
	tap_ok(!cs_progress_tick(1000) && cs_progress_idle(kids[POLL]) > 5.0,
	       "a look 4 s late: the polling child's wake-ups of that time are no work (idle %.2f s)",
	       cs_progress_idle(kids[POLL]));
	cs_progress_note(kids[SLEEP]);
	tap_ok(tick_for(CS_PROGRESS_TICK_MS) && cs_progress_idle(kids[SLEEP]) < 0.5,
	       "a noted step moves once, and its process with it");
	tap_ok(!tick_for(CS_PROGRESS_TICK_MS), "and only once");
	tap_ok(cs_progress_tick(1000 + 50 * 1000000ull), "the helper's own CPU time rising counts too");
	sleep_ms(4000);
	tap_ok(!cs_progress_tick(1000 + 80 * 1000000ull),
	       "30 ms of the helper's own CPU time over a look 4 s late are no work (a poller)");
	tap_ok(cs_progress_tick(1000 + 200 * 1000000ull), "120 ms over the next tick are");
	for (int k = 0; k < 4; k++) {
		kill(kids[k], SIGKILL);
		waitpid(kids[k], NULL, 0);
	}
	return tap_done();
}
