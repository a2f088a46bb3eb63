// SPDX-License-Identifier: MIT
/* run_capture.c - run a program and keep what it prints, bounded in bytes and time (run_capture.h) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "run_capture.h"

/*
 * In the child: stdin from /dev/null, stdout (and stderr) into out, else stderr to /dev/null;
 * then path. On failure the exec's errno goes to the parent through errfd. Never returns; only
 * async-signal-safe calls, as the parent may have threads.
 */
static void run_child(const char *path, char *const argv[], unsigned flags, int out, int errfd)
{
	int devnull = open("/dev/null", O_RDWR), e;

	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		if (!(flags & CS_RUN_STDERR))
			dup2(devnull, STDERR_FILENO);
	}
	dup2(out, STDOUT_FILENO);
	if (flags & CS_RUN_STDERR)
		dup2(out, STDERR_FILENO);
	execv(path, argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		e = 0;
	_exit(127);
}

/* n bytes of buf into out (len - 1 at most: the first ones, or the last with CS_RUN_TAIL) */
static void keep(struct cs_run *r, unsigned flags, char *out, size_t len, const char *buf, size_t n)
{
	size_t room = len - 1 - r->len, drop;

	if (n <= room) {
		memcpy(out + r->len, buf, n);
		r->len += n;
		return;
	}
	r->truncated = true;
	if (!(flags & CS_RUN_TAIL)) {
		memcpy(out + r->len, buf, room);
		r->len += room;
		return;
	}
	if (n >= len - 1) { /* the new bytes alone fill it */
		memcpy(out, buf + n - (len - 1), len - 1);
		r->len = len - 1;
		return;
	}
	drop = n - room; /* the oldest bytes kept make way */
	memmove(out, out + drop, r->len - drop);
	memcpy(out + r->len - drop, buf, n);
	r->len = len - 1;
}

/* milliseconds to the deadline for poll: -1 without one, 0 once passed */
static int ms_left(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return -1;
	now = cs_now_ns();
	if (now >= deadline)
		return 0;
	return (int)((deadline - now + 999999) / 1000000);
}

/* fd to its end or the deadline into out: 0, -ETIMEDOUT or -errno */
static int read_output(int fd, unsigned flags, uint64_t deadline, char *out, size_t len, struct cs_run *r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;
	int wait;

	for (;;) {
		wait = ms_left(deadline);
		if (!wait)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, wait);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return 0;
		keep(r, flags, out, len, buf, (size_t)n);
	}
}

/* the child waited for, its end into r; ECHILD (another waiter reaped it) leaves exit_code -1 */
static void reap(pid_t child, struct cs_run *r)
{
	int status;

	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
	}
}

/* the exec's errno from the child, or 0 once the exec closed fd (it ran) */
static int exec_errno(int fd)
{
	int e = 0;
	ssize_t n;

	do
		n = read(fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(e) && e > 0 ? e : 0;
}

int cs_run_capture(const char *path, char *const argv[], unsigned flags, unsigned timeout_ms, char *out,
		   size_t len, struct cs_run *r)
{
	uint64_t deadline = timeout_ms ? cs_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
	int pout[2], perr[2], ret, e;
	pid_t child;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	if (!len)
		return -EINVAL;
	out[0] = '\0';
	if (pipe2(pout, O_CLOEXEC))
		return -errno;
	if (pipe2(perr, O_CLOEXEC)) {
		ret = -errno;
		goto err_pout;
	}
	child = fork();
	if (child < 0) {
		ret = -errno;
		goto err_perr;
	}
	if (!child)
		run_child(path, argv, flags, pout[1], perr[1]);
	close(pout[1]);
	close(perr[1]);
	e = exec_errno(perr[0]);
	close(perr[0]);
	ret = e ? -e : read_output(pout[0], flags, deadline, out, len, r);
	close(pout[0]);
	if (ret && !e)
		kill(child, SIGKILL); /* timed out, or its output could not be read */
	reap(child, r);
	out[r->len] = '\0';
	return ret;

err_perr:
	close(perr[0]);
	close(perr[1]);
err_pout:
	close(pout[0]);
	close(pout[1]);
	return ret;
}
