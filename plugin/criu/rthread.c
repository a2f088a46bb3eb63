// SPDX-License-Identifier: MIT
/*
 * rthread.c - ptrace control of the driver's restore thread (see rthread.h).
 *
 * The thread was seized by criu, so it sits in a ptrace stop: on dump a PTRACE_EVENT_STOP
 * (PTRACE_SEIZE + PTRACE_INTERRUPT), on restore the syscall-exit stop of rt_sigreturn
 * (compel_stop_on_syscall stops restored tasks on the *exit* of that call, so the sigframe's
 * mask is already installed and the mask we set here is the one it runs with). We are its
 * tracer (the plugin runs inside the criu master), so PTRACE_CONT, PTRACE_INTERRUPT and
 * waitpid(tid, __WALL) work on it directly.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "procfs.h"
#include "rthread.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

#define SIGBIT(s) (1ull << ((s) - 1))

/*
 * The options criu gave the thread. Linux cannot read them back, so they are known: a seized
 * task (dump) gets TRACESYSGOOD | SUSPEND_SECCOMP, a restored one TRACESYSGOOD, plus
 * SUSPEND_SECCOMP when it has a filter. Suspending seccomp matters only for a thread with a
 * filter, so "TRACESYSGOOD, and SUSPEND_SECCOMP when filtered" is what criu relies on in both.
 */
static long criu_options(const struct cs_thread_status *st)
{
	return PTRACE_O_TRACESYSGOOD | (st->seccomp ? PTRACE_O_SUSPEND_SECCOMP : 0);
}

/* Put the mask and the options back (the thread is in a ptrace stop). */
static int put_back(struct cs_rthread *rt)
{
	int ret = 0;

	if (rt->mask_saved && ptrace(PTRACE_SETSIGMASK, rt->tid, sizeof(rt->saved_mask), &rt->saved_mask)) {
		ret = -errno;
		cs_err("restore thread %d: cannot restore its signal mask: %s", rt->tid, strerror(errno));
	}
	if (rt->options_set && ptrace(PTRACE_SETOPTIONS, rt->tid, NULL, rt->saved_options)) {
		if (!ret)
			ret = -errno;
		cs_err("restore thread %d: cannot restore criu's ptrace options: %s", rt->tid, strerror(errno));
	}
	rt->mask_saved = false;
	rt->options_set = false;
	return ret;
}

/*
 * A stop of the running thread that is not ours. SIGSTOP is the one signal that reaches it
 * (every other is blocked, SIGKILL needs no tracer): take it off, send it to the process again
 * once the thread is stopped. A synchronous fault is delivered as the kernel would.
 */
static int pass_stop(struct cs_rthread *rt, int status)
{
	int sig = WSTOPSIG(status);

	if ((status >> 16) != 0) /* a group stop or event: just go on */
		sig = 0;
	else if (sig == SIGSTOP) {
		rt->resend_stop = true;
		sig = 0;
	}
	return ptrace(PTRACE_CONT, rt->tid, NULL, (void *)(long)sig) ? -errno : 0;
}

/* The thread's next stop: 0, -ESRCH if it died, -EAGAIN with WNOHANG in flags if none yet. */
static int wait_one(pid_t tid, int *status, int flags)
{
	pid_t w;

	for (;;) {
		w = waitpid(tid, status, __WALL | flags);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EAGAIN;
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return -ESRCH;
		if (WIFSTOPPED(*status))
			return 0;
	}
}

/*
 * A SIGSTOP was queued before we let it run: it stops on it at once (every other thread is
 * stopped, none can take it); take it now, not in the middle of a driver call. Bounded, in case
 * it went elsewhere after all.
 */
static int take_sigstop(struct cs_rthread *rt)
{
	int status, ret, i;

	for (i = 0; i < 2000 && !rt->resend_stop; i++) {
		ret = wait_one(rt->tid, &status, WNOHANG);
		if (ret == -EAGAIN) {
			usleep(1000);
			continue;
		}
		if (!ret)
			ret = pass_stop(rt, status);
		if (ret)
			return ret;
	}
	if (rt->resend_stop)
		cs_debug("restore thread %d: holding back the process's pending SIGSTOP until it is "
			 "stopped", rt->tid);
	else
		cs_warn("restore thread %d: a SIGSTOP is queued for its process but it did not stop on it",
			rt->tid);
	return 0;
}

int cs_rthread_run(struct cs_rthread *rt, pid_t tid)
{
	uint64_t block = ~0ull; /* the kernel keeps SIGKILL and SIGSTOP deliverable */
	struct cs_thread_status st;
	int ret;

	memset(rt, 0, sizeof(*rt));
	rt->tid = tid;
	ret = cs_procfs_thread_status(tid, &st);
	if (ret == -ENOENT) {
		cs_debug("restore thread %d is gone; leaving it alone", tid);
		return 0;
	}
	if (ret) {
		cs_err("restore thread %d: cannot read /proc/%d/status: %s", tid, tid, strerror(-ret));
		return ret;
	}
	rt->tgid = st.tgid;
	if (ptrace(PTRACE_GETSIGMASK, tid, sizeof(rt->saved_mask), &rt->saved_mask)) {
		if (errno == ESRCH) {
			/* not stopped by us (e.g. exit(DUMP) after a failed PAUSE): it runs anyway */
			cs_debug("restore thread %d is not stopped by criu; leaving it alone", tid);
			return 0;
		}
		ret = -errno;
		cs_err("restore thread %d: cannot read its signal mask: %s (is it stopped by criu?)", tid,
		       strerror(-ret));
		return ret;
	}
	if (ptrace(PTRACE_SETSIGMASK, tid, sizeof(block), &block)) {
		ret = -errno;
		cs_err("restore thread %d: cannot block its signals: %s", tid, strerror(-ret));
		return ret;
	}
	rt->mask_saved = true;
	rt->saved_options = criu_options(&st);
	/* criu keeps seccomp suspended while it holds the thread; the driver's code must not be */
	if (ptrace(PTRACE_SETOPTIONS, tid, NULL, PTRACE_O_TRACESYSGOOD)) {
		ret = -errno;
		cs_err("restore thread %d: cannot clear PTRACE_O_SUSPEND_SECCOMP: %s", tid, strerror(errno));
		goto err_put_back;
	}
	rt->options_set = true;
	if (ptrace(PTRACE_CONT, tid, NULL, NULL)) {
		ret = -errno;
		cs_err("restore thread %d: PTRACE_CONT failed: %s", tid, strerror(errno));
		goto err_put_back;
	}
	rt->running = true;
	cs_debug("restore thread %d running (signals blocked, seccomp %s)", tid,
		 st.seccomp ? "active" : "off");
	if (st.pending & SIGBIT(SIGSTOP)) {
		ret = take_sigstop(rt);
		if (ret) {
			cs_err("restore thread %d: taking its pending SIGSTOP failed: %s", tid, strerror(-ret));
			cs_rthread_stop(rt);
			return ret;
		}
	}
	return 0;

err_put_back:
	put_back(rt);
	return ret;
}

/* Wait until the thread is in a ptrace stop we caused; pass on what it met meanwhile. */
static int wait_stopped(struct cs_rthread *rt)
{
	int status, ret;

	for (;;) {
		ret = wait_one(rt->tid, &status, 0);
		if (ret)
			return ret;
		if ((status >> 16) == PTRACE_EVENT_STOP)
			return 0;
		ret = pass_stop(rt, status);
		if (!ret && ptrace(PTRACE_INTERRUPT, rt->tid, NULL, NULL))
			ret = -errno;
		if (ret)
			return ret;
	}
}

int cs_rthread_poll(struct cs_rthread *rt)
{
	int status, ret;

	if (!rt->running)
		return 0;
	ret = wait_one(rt->tid, &status, WNOHANG);
	if (ret == -EAGAIN)
		return 0;
	if (ret == -ESRCH)
		rt->running = false;
	if (ret)
		return ret;
	cs_debug("restore thread %d: stopped (status %#x) while running; letting it go on", rt->tid,
		 status);
	return pass_stop(rt, status);
}

int cs_rthread_stop(struct cs_rthread *rt)
{
	int ret = 0;

	if (!rt->running)
		return 0;
	rt->running = false;
	if (ptrace(PTRACE_INTERRUPT, rt->tid, NULL, NULL)) {
		ret = -errno;
		cs_err("restore thread %d: PTRACE_INTERRUPT failed: %s", rt->tid, strerror(-ret));
		return ret;
	}
	ret = wait_stopped(rt);
	if (ret) {
		cs_err("restore thread %d: did not stop: %s (the process may have died)", rt->tid,
		       strerror(-ret));
		return ret;
	}
	ret = put_back(rt);
	if (rt->resend_stop) {
		/* every thread is in a ptrace stop: it stays queued until criu lets them go */
		if (kill(rt->tgid, SIGSTOP)) {
			cs_err("pid %d: cannot send back the SIGSTOP held during the GPU work: %s", rt->tgid,
			       strerror(errno));
			if (!ret)
				ret = -errno;
		}
		rt->resend_stop = false;
	}
	cs_debug("restore thread %d stopped", rt->tid);
	return ret;
}
