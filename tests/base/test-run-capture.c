// SPDX-License-Identifier: MIT
/*
 * test-run-capture.c - cs_run_capture (run_capture.h), the one fork + exec + pipe behind
 * `criu --version` in the plugin and `criu check` / `criu --help` in the cudastore command:
 * exit codes and signals, stdout alone or with stderr, the first or the last bytes kept within
 * the bound, the timeout (the child killed and reaped, what it printed kept), and programs that
 * cannot be run.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "run_capture.h"
#include "tap.h"

/* sh -c SCRIPT with flags, timeout and a buffer of len bytes */
static int sh(const char *script, unsigned flags, unsigned timeout_ms, char *out, size_t len,
	      struct cs_run *r)
{
	char *const argv[] = { "sh", "-c", (char *)script, NULL };

	return cs_run_capture("/bin/sh", argv, flags, timeout_ms, out, len, r);
}

/* no child of ours is left, running or a zombie */
static int no_child_left(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static void test_exit_codes(void)
{
	struct cs_run r;
	char out[64];
	int ret;

	ret = sh("exit 0", 0, 5000, out, sizeof(out), &r);
	tap_ok(!ret && r.exit_code == 0 && !r.signal && !r.len && !out[0], "exit 0: 0, nothing printed");
	ret = sh("exit 3", 0, 5000, out, sizeof(out), &r);
	tap_ok(!ret && r.exit_code == 3 && !r.signal, "exit 3: 0 with exit_code 3 (%d, %d)", ret,
	       r.exit_code);
	ret = sh("kill -TERM $$", 0, 5000, out, sizeof(out), &r);
	tap_ok(!ret && r.exit_code == -1 && r.signal == SIGTERM, "ended by SIGTERM: exit_code -1, signal %d",
	       r.signal);
	tap_ok(no_child_left(), "every child reaped");
}

static void test_streams(void)
{
	struct cs_run r;
	char out[64];
	int ret;

	ret = sh("echo out; echo err >&2", 0, 5000, out, sizeof(out), &r);
	tap_ok(!ret && !strcmp(out, "out\n") && r.len == 4 && !r.truncated, "stdout kept, stderr dropped");
	ret = sh("echo out; echo err >&2", CS_RUN_STDERR, 5000, out, sizeof(out), &r);
	tap_ok(!ret && !strcmp(out, "out\nerr\n"), "CS_RUN_STDERR: both, in order");
	ret = sh("read x && echo got $x || echo eof", 0, 5000, out, sizeof(out), &r);
	tap_ok(!ret && !strcmp(out, "eof\n"), "stdin is /dev/null: a read gets end of file");
}

static void test_bound(void)
{
	const char *lots = "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done; printf END";
	struct cs_run r;
	char out[16], one[1];
	int ret;

	ret = sh(lots, 0, 20000, out, sizeof(out), &r);
	tap_ok(!ret && r.truncated && r.len == 15 && !strcmp(out, "line0\nline1\nlin") && r.exit_code == 0,
	       "more than fits: the first 15 bytes, truncated, and it ran to its end");
	ret = sh(lots, CS_RUN_TAIL, 20000, out, sizeof(out), &r);
	tap_ok(!ret && r.truncated && r.len == 15 && !strcmp(out, "98\nline1999\nEND"),
	       "CS_RUN_TAIL: the last 15 bytes");
	ret = sh("printf 0123456789", CS_RUN_TAIL, 5000, out, sizeof(out), &r);
	tap_ok(!ret && !r.truncated && !strcmp(out, "0123456789"), "what fits is kept whole ('%s')", out);
	ret = sh("echo x", 0, 5000, one, sizeof(one), &r);
	tap_ok(!ret && r.truncated && !r.len && !one[0], "a one-byte buffer holds the NUL only");
	ret = sh("echo x", 0, 5000, one, 0, &r);
	tap_ok(ret == -EINVAL, "no buffer at all: -EINVAL, nothing run (%d)", ret);
}

static void test_timeout(void)
{
	struct cs_run r;
	char out[64];
	uint64_t t0 = cs_now_ns();
	double s;
	int ret;

	ret = sh("echo partial; exec sleep 30", 0, 300, out, sizeof(out), &r);
	s = (double)(cs_now_ns() - t0) / 1e9;
	tap_ok(ret == -ETIMEDOUT && s >= 0.29 && s < 5, "past 300 ms: -ETIMEDOUT after %.2f s", s);
	tap_ok(r.signal == SIGKILL && r.exit_code == -1 && !strcmp(out, "partial\n"),
	       "killed with SIGKILL, what it printed before kept");
	tap_ok(no_child_left(), "the killed child is reaped");
	ret = sh("sleep 0.2; echo done", 0, 0, out, sizeof(out), &r);
	tap_ok(!ret && !strcmp(out, "done\n"), "timeout 0: no limit");
}

static void test_cannot_run(const char *dir)
{
	char *const argv[] = { "prog", NULL };
	char path[128], out[64];
	struct cs_run r;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/missing", dir);
	ret = cs_run_capture(path, argv, 0, 5000, out, sizeof(out), &r);
	tap_ok(ret == -ENOENT && !out[0], "a missing program: -ENOENT (%d)", ret);
	snprintf(path, sizeof(path), "%s/not-executable", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("#!/bin/sh\necho ran\n", f);
		fclose(f);
	}
	ret = cs_run_capture(path, argv, 0, 5000, out, sizeof(out), &r);
	tap_ok(ret == -EACCES && !out[0], "a file without x permission: -EACCES (%d)", ret);
	unlink(path);
	tap_ok(no_child_left(), "no child left after failed execs");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[64];

	snprintf(dir, sizeof(dir), "%s/cs-run.XXXXXX", tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	tap_plan(19);
	test_exit_codes();
	test_streams();
	test_bound();
	test_timeout();
	test_cannot_run(dir);
	rmdir(dir);
	return tap_done();
}
