// SPDX-License-Identifier: MIT
/*
 * test-helper-spawn-when-child-reaped - the plugin's start of cudastore-helper (helper_link.c's
 * spawn, compiled in here) when its intermediate child cannot be waited for (SIGCHLD ignored:
 * the kernel reaps it, as it would be reaped by another handler): it succeeds and hands back
 * the socket, never reading a status it did not get.
 */
#include <signal.h>
#include <string.h>

/* unoptimised: spawn's locals stay in its stack frame, where dirty_stack leaves garbage */
#if defined(__clang__)
#pragma clang optimize off
#elif defined(__GNUC__)
#pragma GCC optimize("O0")
#endif

#include "../../plugin/criu/helper_link.c"
#include "tap.h"

/* criu's side of the restore-thread calls: never reached here */
int cs_rthread_run(struct cs_rthread *rt, pid_t tid)
{
	return -ENOSYS;
}

int cs_rthread_stop(struct cs_rthread *rt)
{
	return 0;
}

int cs_rthread_poll(struct cs_rthread *rt)
{
	return 0;
}

/* leave garbage where spawn's locals will be, so an unset one cannot pass for a good status */
static __attribute__((noinline)) void dirty_stack(void)
{
	volatile unsigned char junk[16384];

	memset((void *)junk, 0xff, sizeof(junk));
}

/* called at the depth dirty_stack ran at, so spawn's frame lies on the garbage */
static __attribute__((noinline)) int try_spawn(const char *path, char **env, int *sock)
{
	int errfd = -1, ret = spawn(path, env, sock, &errfd);

	if (errfd >= 0)
		close(errfd);
	return ret;
}

int main(void)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	char buf[16];
	int sock = -1, ret, i, bad = 0;

	tap_plan(2);
	signal(SIGCHLD, SIG_IGN);
	for (i = 0; i < 20; i++) {
		dirty_stack();
		ret = try_spawn("/bin/true", env, &sock);
		if (ret) {
			tap_diag("try %d: spawn: %s", i, strerror(-ret));
			bad++;
			continue;
		}
		/* the "helper" exits at once: its end closes */
		if (read(sock, buf, sizeof(buf)) != 0)
			bad++;
		close(sock);
	}
	tap_ok(bad == 0, "with SIGCHLD ignored, 20 starts succeed and hand back the socket (%d did not)",
	       bad);
	signal(SIGCHLD, SIG_DFL);
	dirty_stack();
	ret = try_spawn("/nonexistent/helper", env, &sock);
	tap_ok(ret == 0 && sock >= 0, "a helper that cannot run: the socket tells (start %d)", ret);
	return tap_done();
}
