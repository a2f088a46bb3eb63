// SPDX-License-Identifier: MIT
/* criu_version.c - `criu --version`, run and read (criu_version.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "criu_version.h"

/* In the child: stdout into the pipe, stderr to /dev/null, then exe. Never returns. */
static void exec_version(const char *exe, int out)
{
	int devnull = open("/dev/null", O_RDWR);

	dup2(out, STDOUT_FILENO);
	if (devnull >= 0)
		dup2(devnull, STDERR_FILENO);
	execl(exe, "criu", "--version", (char *)NULL);
	_exit(127);
}

/* All of fd into buf (NUL-terminated, the start kept), read to its end */
static void read_all(int fd, char *buf, size_t len)
{
	char rest[256];
	size_t got = 0;
	ssize_t n;

	for (;;) {
		if (got < len - 1)
			n = read(fd, buf + got, len - 1 - got);
		else
			n = read(fd, rest, sizeof(rest)); /* the version came first: drop the rest */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (got < len - 1)
			got += (size_t)n;
	}
	buf[got] = '\0';
}

int cs_criu_version(const char *exe, char *ver, size_t len)
{
	char out[1024], *v;
	int pfd[2], ret;
	pid_t child;

	if (len)
		ver[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (!child)
		exec_version(exe, pfd[1]);
	close(pfd[1]);
	read_all(pfd[0], out, sizeof(out));
	close(pfd[0]);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		; /* ECHILD: reaped by the caller's own handler already */
	v = strstr(out, "Version: ");
	if (!v || !len)
		return -ENOENT;
	v += strlen("Version: ");
	v[strcspn(v, " \t\r\n")] = '\0';
	if (!*v)
		return -ENOENT;
	snprintf(ver, len, "%s", v);
	return 0;
}
