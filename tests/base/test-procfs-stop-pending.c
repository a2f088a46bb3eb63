// SPDX-License-Identifier: MIT
/*
 * test-procfs-stop-pending - cs_procfs_group sees a SIGSTOP queued for a process that is
 * neither traced nor stopped yet: the state criu's -s leaves a task in between its SIGSTOP and the
 * task's next turn on a CPU, which the helper's leave-running watch once took for "running".
 *
 * The stand-in for "not yet run": a process waiting in vfork() for its child, where signals stay
 * queued until the child exits. A process that is merely sleeping, and one that has stopped,
 * have none queued.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "tap.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* state letter of pid from /proc (or '?') */
static char state_of(pid_t pid)
{
	unsigned long long start;
	pid_t tracer;
	char st = '?';

	if (cs_procfs_task(pid, &st, &start, &tracer))
		return '?';
	return st;
}

/* a SIGSTOP is queued for pid, as cs_procfs_group reads it (false when it cannot be read) */
static bool stop_queued(pid_t pid)
{
	struct cs_group_state gs;

	return !cs_procfs_group(pid, &gs) && gs.stop_queued;
}

int main(void)
{
	struct cs_group_state gs;
	pid_t waiter, sleeper;
	int status;
	char st;

	tap_plan(5);
	sleeper = fork();
	if (!sleeper) {
		pause();
		_exit(0);
	}
	waiter = fork();
	if (!waiter) {
		if (!vfork()) { /* the parent waits in the kernel until this child exits */
			sleep_ms(1500);
			_exit(0);
		}
		_exit(0);
	}
	sleep_ms(300);
	tap_ok(!stop_queued(sleeper), "a sleeping process has no SIGSTOP queued");
	kill(waiter, SIGSTOP);
	sleep_ms(100);
	st = state_of(waiter);
	tap_ok(st != 'T' && st != 't', "the process waiting in vfork has not stopped yet (state %c)", st);
	tap_ok(stop_queued(waiter), "its SIGSTOP is seen queued");
	kill(sleeper, SIGSTOP);
	for (int i = 0; i < 100 && state_of(sleeper) != 'T'; i++)
		sleep_ms(10);
	tap_ok(state_of(sleeper) == 'T' && !stop_queued(sleeper),
	       "a process that took its SIGSTOP is stopped with none queued (state %c)", state_of(sleeper));
	tap_ok(cs_procfs_group(99999999, &gs) == -ENOENT, "no such process: -ENOENT");
	kill(waiter, SIGKILL);
	kill(sleeper, SIGKILL);
	waitpid(waiter, &status, 0);
	waitpid(sleeper, &status, 0);
	return tap_done();
}
