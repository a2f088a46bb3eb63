// SPDX-License-Identifier: MIT
/* test_hooks_env.c - cudastore-helper-test only, never installed: the hooks of test_hooks_env.h */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "criu_link.h"
#include "log.h"
#include "test_hooks_env.h"

/* our pid into a new file: O_EXCL and O_NOFOLLOW, so no existing file or link is written through */
static void write_pid(const char *file)
{
	char pid[32];
	int fd;

	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		cs_warn("test stall: cannot create %s: %s", file, strerror(errno));
		return;
	}
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (write(fd, pid, strlen(pid)) < 0)
		cs_warn("test stall: writing %s failed", file);
	close(fd);
}

/* phase is one of want's comma-separated names */
static bool wanted(const char *want, const char *phase)
{
	size_t n = strlen(phase);

	for (const char *w = want; w && *w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL)
		if (!strncmp(w, phase, n) && (w[n] == ',' || w[n] == '\0'))
			return true;
	return false;
}

static void env_stall(const char *phase)
{
	const char *want = getenv("CUDASTORE_TEST_STALL"), *file = getenv("CUDASTORE_TEST_STALL_FILE");
	struct pollfd pfd = { .fd = cs_criu_link_sock(), .events = POLLRDHUP };
	static atomic_bool done; /* batch workers reach the same phase at once: one stalls */
	int i;

	if (!want || !wanted(want, phase) || !file || atomic_exchange(&done, true))
		return;
	write_pid(file);
	cs_info("test stall at %s: waiting until criu is gone or %s is removed", phase, file);
	for (i = 0; i < 600 && access(file, F_OK) == 0; i++)
		if (poll(&pfd, 1, 100) > 0)
			break;
}

static bool env_prefetch_complete(void)
{
	return getenv("CUDASTORE_TEST_PREFETCH_COMPLETE") != NULL;
}

const struct cs_test_hooks cs_test_hooks_env = {
	.stall = env_stall,
	.prefetch_complete = env_prefetch_complete,
};
