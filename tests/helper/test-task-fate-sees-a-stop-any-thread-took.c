// SPDX-License-Identifier: MIT
/*
 * What criu did to a dumped process (task_fate.h) is read from every thread of it, the signal
 * queue first. criu's -s sends a SIGSTOP and detaches; the helper once read the main thread's
 * state, then the queue, and took a stop taken in between (or by another thread) for "running":
 * it resumed a process criu had left stopped and checkpointed.
 *
 * The stand-in for "taken by one thread, not yet by the main one": a main thread waiting in
 * vfork() for its child, where a stop waits until the child exits, and a second thread that
 * takes a SIGSTOP sent to it. Also: a thread still traced while the main one is free is held, a
 * process whose main thread exited while another runs is running, not gone.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "task_fate.h"
#include "tap.h"

enum shape { SLEEPER, VFORK_AND_THREAD, MAIN_EXITED };

static const char *const fate_names[] = { "held", "gone", "stopped", "running" };

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static pid_t spawn(enum shape s)
{
	pthread_t t;
	pid_t pid = fork();

	if (pid)
		return pid;
	if (s != SLEEPER && pthread_create(&t, NULL, sleep_forever, NULL))
		_exit(1);
	if (s == MAIN_EXITED)
		pthread_exit(NULL);
	if (s == VFORK_AND_THREAD && !vfork()) { /* the main thread waits until this child ends */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			syscall(SYS_pause);
	}
	sleep_forever(NULL);
	_exit(0);
}

/* state letter of thread tid (or '?') */
static char state_of(pid_t tid)
{
	struct cs_thread_status st;

	return cs_procfs_thread_status(tid, &st) ? '?' : st.state;
}

static bool wait_state(pid_t tid, char want)
{
	for (int i = 0; i < 500; i++) {
		if (state_of(tid) == want)
			return true;
		sleep_ms(10);
	}
	tap_diag("thread %d: state %c after 5 s, not %c", tid, state_of(tid), want);
	return false;
}

/* the thread of pid other than its main one (0 when none) */
static pid_t other_thread(pid_t pid)
{
	char path[48];
	struct dirent *e;
	pid_t tid = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	while (d && (e = readdir(d)) && !tid)
		if (atoi(e->d_name) > 0 && atoi(e->d_name) != pid)
			tid = atoi(e->d_name);
	if (d)
		closedir(d);
	return tid;
}

static unsigned long long start_of(pid_t pid)
{
	unsigned long long start = 0;
	pid_t tracer;
	char st;

	return cs_procfs_task(pid, &st, &start, &tracer) ? 0 : start;
}

static enum cs_fate fate(pid_t pid)
{
	pid_t tracer;

	return cs_task_fate(pid, start_of(pid), &tracer);
}

#define FATE_IS(pid, want, what)                                                                             \
	do {                                                                                                 \
		enum cs_fate f_ = fate(pid);                                                                 \
		tap_ok(f_ == (want), "%s: %s (read %s)", what, fate_names[want], fate_names[f_]);            \
	} while (0)

static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static void stop_taken_by_another_thread(void)
{
	pid_t p = spawn(VFORK_AND_THREAD), b;

	tap_ok(wait_state(p, 'D'), "the main thread waits in vfork");
	b = other_thread(p);
	tap_ok(b > 0 && wait_state(b, 'S'), "its second thread sleeps (tid %d)", b);
	syscall(SYS_tgkill, p, b, SIGSTOP);
	tap_ok(wait_state(b, 'T'), "the second thread took the SIGSTOP");
	sleep_ms(100);
	tap_ok(state_of(p) == 'D', "the main thread has not stopped yet (state %c)", state_of(p));
	FATE_IS(p, CS_FATE_STOPPED, "a stop one thread took");
	kill(p, SIGCONT);
	tap_ok(wait_state(b, 'S'), "SIGCONT: the second thread sleeps again");
	FATE_IS(p, CS_FATE_RUNNING, "continued");
	reap(p);
}

static void thread_still_traced(void)
{
	pid_t p = spawn(VFORK_AND_THREAD), b;
	int status;

	wait_state(p, 'D');
	b = other_thread(p);
	if (!tap_ok(b > 0 && !ptrace(PTRACE_SEIZE, b, NULL, NULL), "its second thread is seized: %s",
		    strerror(errno))) {
		reap(p);
		return;
	}
	FATE_IS(p, CS_FATE_HELD, "a thread traced, the main one free");
	ptrace(PTRACE_INTERRUPT, b, NULL, NULL);
	waitpid(b, &status, __WALL);
	ptrace(PTRACE_DETACH, b, NULL, NULL);
	tap_ok(wait_state(b, 'S'), "detached: it sleeps again");
	FATE_IS(p, CS_FATE_RUNNING, "detached");
	reap(p);
}

static void stop_queued_not_taken(void)
{
	pid_t p = spawn(SLEEPER);
	pid_t w = fork();

	if (!w) { /* single-threaded, waiting in vfork: a SIGSTOP stays queued */
		if (!vfork()) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				syscall(SYS_pause);
		}
		_exit(0);
	}
	wait_state(p, 'S');
	FATE_IS(p, CS_FATE_RUNNING, "a sleeping process");
	wait_state(w, 'D');
	kill(w, SIGSTOP);
	sleep_ms(100);
	FATE_IS(w, CS_FATE_HELD, "a SIGSTOP queued, not yet taken");
	kill(p, SIGSTOP);
	wait_state(p, 'T');
	FATE_IS(p, CS_FATE_STOPPED, "a stopped process");
	reap(w);
	reap(p);
}

static void gone_and_main_exited(void)
{
	pid_t p = spawn(MAIN_EXITED), z;
	unsigned long long start;
	pid_t tracer;

	tap_ok(wait_state(p, 'Z'), "the main thread exited");
	sleep_ms(50);
	FATE_IS(p, CS_FATE_RUNNING, "a process whose main thread exited while another runs");
	start = start_of(p);
	tap_ok(cs_task_fate(p, start + 1, &tracer) == CS_FATE_GONE, "another start time: gone");
	tap_ok(cs_task_fate(p, 0, &tracer) == CS_FATE_GONE, "no start time known: gone");
	reap(p);
	z = fork();
	if (!z)
		_exit(0);
	tap_ok(wait_state(z, 'Z') && cs_task_fate(z, start_of(z), &tracer) == CS_FATE_GONE, "a zombie: gone");
	reap(z);
	tap_ok(cs_task_fate(z, start, &tracer) == CS_FATE_GONE, "a reaped pid: gone");
}

int main(void)
{
	tap_plan(20);
	stop_taken_by_another_thread();
	thread_still_traced();
	stop_queued_not_taken();
	gone_and_main_exited();
	return tap_done();
}
