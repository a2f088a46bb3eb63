// SPDX-License-Identifier: MIT
/*
 * rthread.c - ptrace control of the driver's restore thread (see rthread.h).
 *
 * The thread was seized by criu (PTRACE_SEIZE + PTRACE_INTERRUPT), so it sits in a
 * PTRACE_EVENT_STOP; on restore it sits in a syscall stop at rt_sigreturn. In both cases we
 * are its tracer (the plugin runs inside the criu master), so PTRACE_CONT, PTRACE_INTERRUPT
 * and waitpid(tid, __WALL) work on it directly.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "log.h"
#include "rthread.h"

#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#define PTRACE_SETSIGMASK 0x420b
#endif
#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

int cs_rthread_run(struct cs_rthread *rt, pid_t tid, bool block_signals)
{
	uint64_t block = ~(1ull << (SIGTRAP - 1));

	memset(rt, 0, sizeof(*rt));
	rt->tid = tid;
	if (block_signals) {
		if (ptrace(PTRACE_GETSIGMASK, tid, sizeof(rt->saved_mask), &rt->saved_mask)) {
			if (errno == ESRCH) {
				/* not stopped by us (e.g. exit(DUMP) after a failed PAUSE): it runs anyway */
				cs_debug("restore thread %d is not stopped by criu; leaving it alone", tid);
				return 0;
			}
			cs_err("restore thread %d: cannot read its signal mask: %s (is it stopped by criu?)",
			       tid, strerror(errno));
			return -errno;
		}
		if (ptrace(PTRACE_SETSIGMASK, tid, sizeof(block), &block)) {
			cs_err("restore thread %d: cannot block its signals: %s", tid, strerror(errno));
			return -errno;
		}
		rt->mask_saved = true;
	}
	if (ptrace(PTRACE_CONT, tid, NULL, NULL)) {
		int ret = -errno;

		cs_err("restore thread %d: PTRACE_CONT failed: %s", tid, strerror(errno));
		if (rt->mask_saved)
			ptrace(PTRACE_SETSIGMASK, tid, sizeof(rt->saved_mask), &rt->saved_mask);
		rt->mask_saved = false;
		return ret;
	}
	rt->running = true;
	cs_debug("restore thread %d running", tid);
	return 0;
}

/* Wait until the thread is in a ptrace stop we caused; forward signals it picked up meanwhile. */
static int wait_stopped(pid_t tid)
{
	int status;

	for (;;) {
		if (waitpid(tid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return -ESRCH;
		if (!WIFSTOPPED(status))
			continue;
		if ((status >> 16) == PTRACE_EVENT_STOP)
			return 0;
		/* a signal-delivery stop (only unblockable ones reach us): deliver it, stop again */
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)WSTOPSIG(status)) ||
		    ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
			return -errno;
	}
}

int cs_rthread_poll(struct cs_rthread *rt)
{
	int status, sig;
	pid_t r;

	if (!rt->running)
		return 0;
	r = waitpid(rt->tid, &status, __WALL | WNOHANG);
	if (r <= 0)
		return r < 0 && errno != EINTR ? -errno : 0;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		rt->running = false;
		return -ESRCH;
	}
	if (!WIFSTOPPED(status))
		return 0;
	sig = (status >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(status);
	cs_debug("restore thread %d: %s while running; letting it go on", rt->tid,
		 sig ? strsignal(sig) : "ptrace stop");
	if (ptrace(PTRACE_CONT, rt->tid, NULL, (void *)(long)sig))
		return errno == ESRCH ? -ESRCH : -errno;
	return 0;
}

int cs_rthread_stop(struct cs_rthread *rt)
{
	int ret = 0;

	if (!rt->running)
		return 0;
	rt->running = false;
	if (ptrace(PTRACE_INTERRUPT, rt->tid, NULL, NULL)) {
		cs_err("restore thread %d: PTRACE_INTERRUPT failed: %s", rt->tid, strerror(errno));
		return -errno;
	}
	ret = wait_stopped(rt->tid);
	if (ret) {
		cs_err("restore thread %d: did not stop: %s (the process may have died)", rt->tid,
		       strerror(-ret));
		return ret;
	}
	if (rt->mask_saved && ptrace(PTRACE_SETSIGMASK, rt->tid, sizeof(rt->saved_mask), &rt->saved_mask)) {
		cs_err("restore thread %d: cannot restore its signal mask: %s", rt->tid, strerror(errno));
		ret = -errno;
	}
	rt->mask_saved = false;
	cs_debug("restore thread %d stopped", rt->tid);
	return ret;
}
