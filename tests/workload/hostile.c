// SPDX-License-Identifier: MIT
/*
 * hostile.c - what makes a process hard to checkpoint, on request:
 *   --itimer-us N        an ITIMER_REAL of N microseconds whose SIGALRM handler counts ticks;
 *                        the verification at SIGTERM fails unless ticks still arrive
 *   --seccomp-deny-yield a seccomp filter (every thread, TSYNC) making sched_yield() fail with
 *                        EPERM; the verification fails unless it still does
 *   --host-mb N          N MiB of host memory filled with a pattern (CRIU restores it before the
 *                        GPU: the window the plugin's restore prefetch uses); verified at SIGTERM
 *   --cuda-ipc-file      maps /dev/shm/cuda.shm.0.<pid in hex>.1, the file through which the real
 *                        driver shares GPU memory between processes (CUDA IPC): the exporter and
 *                        every importer map it; --fork-cuda children inherit the mapping
 *   --decoy-driver-thread a thread named like the driver emulator's own thread, made first, so
 *                        that the emulated driver names it as the restore thread: a stand-in
 *                        for a target that stalls the thread the driver works on (criu lets the
 *                        decoy run, and the driver's requests are never served)
 * All are set up before CUDA starts, so the driver's threads inherit them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t ticks;
static uint64_t *host;
static size_t host_words;

static uint64_t host_word(uint64_t seed, size_t i)
{
	uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0xbf58476d1ce4e5b9ull);

	x ^= x >> 31;
	return x * 0x94d049bb133111ebull;
}

static int host_fill(const struct wl_opts *o)
{
	size_t bytes = (size_t)o->host_mb << 20;

	host = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (host == MAP_FAILED) {
		host = NULL;
		wl_log("cannot map %d MiB of host memory: %s", o->host_mb, strerror(errno));
		return -1;
	}
	host_words = bytes / sizeof(*host);
	for (size_t i = 0; i < host_words; i++)
		host[i] = host_word(o->seed, i);
	return 0;
}

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

static void *decoy_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "cs-emu-driver", 0, 0, 0);
	for (;;)
		pause();
	return NULL;
}

static int start_decoy(void)
{
	pthread_t t;
	int ret = pthread_create(&t, NULL, decoy_main, NULL);

	if (ret)
		wl_log("cannot start the decoy thread: %s", strerror(ret));
	usleep(10000); /* named before the driver starts its own thread */
	return -ret;
}

static int map_ipc_file(void)
{
	char name[64];
	void *p;
	int fd;

	snprintf(name, sizeof(name), "/dev/shm/cuda.shm.0.%x.1", (unsigned)getpid());
	fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || ftruncate(fd, 4096)) {
		wl_log("cannot make %s: %s", name, strerror(errno));
		return -1;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

int wl_hostile_start(const struct wl_opts *o)
{
	if (o->cuda_ipc_file && map_ipc_file())
		return -1;
	if (o->decoy_driver_thread && start_decoy())
		return -1;
	if (o->seccomp_deny_yield && deny_yield())
		return -1;
	if (o->itimer_us && start_itimer(o->itimer_us))
		return -1;
	if (o->host_mb && host_fill(o))
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
	for (size_t i = 0; host && i < host_words; i++) {
		if (host[i] != host_word(o->seed, i)) {
			snprintf(fail, len, "FAIL: host memory differs at byte %zu", i * sizeof(*host));
			return -1;
		}
	}
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
