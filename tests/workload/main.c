// SPDX-License-Identifier: MIT
/*
 * main.c - cuda-workload's processes: the root, --fork-cuda children (same work, own seed),
 * --fork-cpu children (never touch CUDA), --daemon detaching, pidfile/ready/outfile.
 *
 * Children are forked before the root loads libcuda: CUDA state must not cross a fork.
 * Descriptors above 2 inherited from the launcher are closed first. SIGTERM only sets a flag; the loop then verifies every byte, forwards SIGTERM to the
 * children, waits for them and writes "PASS" or "FAIL: ..." to the outfile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

volatile sig_atomic_t wl_stop;
static volatile sig_atomic_t wl_refill; /* SIGUSR1: fill the buffers anew (see cuda_work) */

struct wl_children {
	int n;
	pid_t pid[2 * 64];
	bool cuda[2 * 64];
};

void wl_log(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cuda-workload[%d]: ", getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_term(int sig)
{
	wl_stop = 1;
}

static void on_usr1(int sig)
{
	wl_refill = 1;
}

/*
 * Publish TEXT as PATH whole or not at all: written beside it, then renamed over it, so a
 * reader polling for the file never sees it empty or half written.
 */
static int write_text(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text);
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		wl_log("cannot create %s: %s", tmp, strerror(errno));
		return ret;
	}
	if (write(fd, text, len) != (ssize_t)len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -EIO;
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		wl_log("cannot rename %s to %s: %s", tmp, path, strerror(errno));
	}
	if (ret)
		unlink(tmp);
	return ret;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* 10 ms, whatever signal handlers run meanwhile (--itimer-us) */
static void nap(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 10000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * SIGUSR1: every byte of the buffers changes (the pattern of the next seed), as between two
 * dumps of a process whose memory moved on; then "<ready file>.refill" holds the refills so far.
 */
static int refill(const struct wl_opts *o, struct wl_gpu *g)
{
	static unsigned refills;
	char text[32];

	wl_refill = 0;
	g->pat.seed += 0x9e3779b97f4a7c15ULL;
	if (wl_gpu_fill(g))
		return -1;
	refills++;
	wl_log("SIGUSR1: filled every buffer anew (refill %u, seed %llu)", refills,
	       (unsigned long long)g->pat.seed);
	snprintf(text, sizeof(text), "%u\n", refills);
	if (o->ready) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s.refill", o->ready);
		write_text(path, text);
	}
	return 0;
}

/* The CUDA work of one process; on_ready runs once the buffers are filled. 0 = all good. */
static int cuda_work(const struct wl_opts *o, uint64_t seed, int (*on_ready)(void *), void *arg, char *result,
		     size_t len)
{
	uint64_t last_check = now_ms(), last_log = last_check;
	struct wl_gpu g;
	int ret = -1;

	if (wl_gpu_open(&g, o, seed) || wl_gpu_fill(&g))
		goto out;
	wl_log("filled %d buffer(s) of %zu bytes on %d device(s), seed %llu", o->buffers, o->size, o->devices,
	       (unsigned long long)seed);
	if (on_ready(arg)) {
		snprintf(g.fail, sizeof(g.fail), "FAIL: a child failed before it was ready");
		goto out;
	}
	while (!wl_stop) {
		bool due = now_ms() - last_check >= 100;

		if (wl_refill && refill(o, &g))
			goto out;
		if (wl_gpu_step(&g, due))
			goto out;
		if (due)
			last_check = now_ms();
		if (now_ms() - last_log >= 5000) {
			wl_log("alive: %llu iterations, %zu windows verified", (unsigned long long)g.iter, g.cursor);
			last_log = now_ms();
		}
		nap();
	}
	wl_log("SIGTERM: verifying every byte");
	if (wl_gpu_verify_all(&g) || wl_hostile_check(o, g.fail, sizeof(g.fail)))
		goto out;
	snprintf(g.fail, sizeof(g.fail), "PASS");
	ret = 0;
out:
	snprintf(result, len, "%s", g.fail[0] ? g.fail : "FAIL: unknown error");
	wl_gpu_close(&g);
	return ret;
}

static int child_ready(void *arg)
{
	int fd = *(int *)arg;

	if (write(fd, "R", 1) != 1)
		return -1;
	close(fd);
	return 0;
}

static pid_t fork_cuda_child(const struct wl_opts *o, int k, uint64_t seed, int ready_rd, int ready_wr)
{
	struct wl_opts mine = *o;
	char result[512];
	pid_t pid = fork();
	int ret;

	if (pid)
		return pid;
	close(ready_rd);
	if (o->child_size)
		mine.size = o->child_size;
	if (o->child_zero_percent >= 0)
		mine.zero_percent = o->child_zero_percent;
	if (o->gpu_each)
		mine.first_device = k;
	/* read by the emulated driver at the child's first CUDA call (the root made none yet) */
	if (o->child_ipc_import)
		setenv("CUDASTORE_EMU_IPC_IMPORTER", "1", 1);
	ret = cuda_work(&mine, seed, child_ready, &ready_wr, result, sizeof(result));
	if (ret)
		(void)!write(ready_wr, "F", 1);
	wl_log("%s", result);
	_exit(ret ? 1 : 0);
}

static pid_t fork_cpu_child(void)
{
	pid_t pid = fork();
	volatile uint64_t x = 0;

	if (pid)
		return pid;
	while (!wl_stop) {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		usleep(1000);
	}
	_exit(0);
}

struct root_ready {
	const struct wl_opts *o;
	int ready_rd, ncuda, notify_fd;
};

/* the root is ready when it and every CUDA child have filled their buffers */
static int root_ready(void *arg)
{
	struct root_ready *r = arg;
	char c;

	for (int i = 0; i < r->ncuda; i++)
		if (read(r->ready_rd, &c, 1) != 1 || c != 'R')
			return -1;
	close(r->ready_rd);
	r->ready_rd = -1;
	if (r->o->ready && write_text(r->o->ready, "ready\n"))
		return -1;
	if (r->notify_fd >= 0) {
		(void)!write(r->notify_fd, "R", 1);
		close(r->notify_fd);
		r->notify_fd = -1;
	}
	wl_log("ready");
	return 0;
}

/* SIGTERM to every child, then collect them; returns the first failure in msg */
static int reap_children(struct wl_children *ch, char *msg, size_t len)
{
	int ret = 0;

	for (int i = 0; i < ch->n; i++)
		kill(ch->pid[i], SIGTERM);
	for (int i = 0; i < ch->n; i++) {
		int status;

		while (waitpid(ch->pid[i], &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (!ret)
			snprintf(msg, len, "FAIL: %s child %d %s %d", ch->cuda[i] ? "CUDA" : "CPU", ch->pid[i],
				 WIFEXITED(status) ? "exited with" : "killed by signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		ret = -1;
	}
	return ret;
}

/* --daemon: the parent returns once the detached child is ready (exit 0) or failed (exit 1) */
static int daemonize(void)
{
	int p[2], fd;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	return p[1];
}

static void redirect_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0) {
		wl_log("cannot open log %s: %s", path, strerror(errno));
		return;
	}
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static void spawn_children(const struct wl_opts *o, struct wl_children *ch, int ready[2])
{
	for (int i = 0; i < o->fork_cpu; i++) {
		ch->cuda[ch->n] = false;
		ch->pid[ch->n++] = fork_cpu_child();
	}
	for (int i = 0; i < o->fork_cuda; i++) {
		ch->cuda[ch->n] = true;
		ch->pid[ch->n++] = fork_cuda_child(o, i + 1, o->seed + 1 + (uint64_t)i, ready[0], ready[1]);
	}
	close(ready[1]);
}

int main(int argc, char **argv)
{
	struct root_ready rr = { .notify_fd = -1 };
	struct sigaction sa = { .sa_handler = on_term }, usr1 = { .sa_handler = on_usr1 };
	struct wl_children ch = { 0 };
	char result[512], child_msg[512], pid_text[32];
	struct wl_opts o;
	int ready[2], ret;

	if (wl_parse(&o, argc, argv))
		return 2;
	/* inherited descriptors (a test harness's log) would make a CRIU dump of us fragile */
	close_range(3, ~0U, 0);
	if (o.log)
		redirect_log(o.log);
	if (o.daemon && (rr.notify_fd = daemonize()) < 0)
		return 1;
	snprintf(pid_text, sizeof(pid_text), "%d\n", getpid());
	if (o.pidfile && write_text(o.pidfile, pid_text))
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &usr1, NULL);
	if (wl_hostile_start(&o))
		return 1;
	if (pipe(ready))
		return 1;
	spawn_children(&o, &ch, ready);
	rr.o = &o;
	rr.ready_rd = ready[0];
	rr.ncuda = o.fork_cuda;
	ret = cuda_work(&o, o.seed, root_ready, &rr, result, sizeof(result));
	if (rr.ready_rd >= 0)
		close(rr.ready_rd);
	if (reap_children(&ch, child_msg, sizeof(child_msg)) && !ret) {
		snprintf(result, sizeof(result), "%s", child_msg);
		ret = -1;
	}
	wl_log("%s", result);
	strncat(result, "\n", sizeof(result) - strlen(result) - 1);
	if (o.outfile)
		write_text(o.outfile, result);
	return ret ? 1 : 0;
}
