// SPDX-License-Identifier: MIT
/*
 * hostile.c - what makes a process hard to checkpoint, on request:
 *   --itimer-us N        an ITIMER_REAL of N microseconds whose SIGALRM handler counts ticks;
 *                        the verification at SIGTERM fails unless ticks still arrive
 *   --seccomp-deny-yield a seccomp filter (every thread, TSYNC) making sched_yield() fail with
 *                        EPERM; the verification fails unless it still does
 * Both are set up before CUDA starts, so the driver's threads inherit them.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static int start_itimer(long us)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { .it_interval = { us / 1000000, us % 1000000 },
				.it_value = { us / 1000000, us % 1000000 } };

	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL)) {
		wl_log("cannot start the interval timer: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int deny_yield(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_yield, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog)) {
		wl_log("cannot install the seccomp filter: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int wl_hostile_start(const struct wl_opts *o)
{
	if (o->seccomp_deny_yield && deny_yield())
		return -1;
	if (o->itimer_us && start_itimer(o->itimer_us))
		return -1;
	return 0;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int wl_hostile_check(const struct wl_opts *o, char *fail, size_t len)
{
	if (o->seccomp_deny_yield && !(syscall(SYS_sched_yield) == -1 && errno == EPERM)) {
		snprintf(fail, len, "FAIL: the seccomp filter is gone (sched_yield was allowed)");
		return -1;
	}
	if (o->itimer_us) {
		/* wait 50 periods (at least 50 ms): ticks must keep coming */
		uint64_t end = now_us() + (o->itimer_us > 1000 ? 50 * (uint64_t)o->itimer_us : 50000);
		sig_atomic_t before = ticks;

		while (now_us() < end)
			usleep(1000);
		if (ticks == before) {
			snprintf(fail, len, "FAIL: the interval timer stopped ticking (%ld ticks in all)",
				 (long)ticks);
			return -1;
		}
		wl_log("interval timer: %ld ticks in all, %ld in the last check", (long)ticks,
		       (long)(ticks - before));
	}
	return 0;
}
