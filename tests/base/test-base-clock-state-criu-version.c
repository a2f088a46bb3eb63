// SPDX-License-Identifier: MIT
/*
 * test-base-clock-state-criu-version.c - three small base functions every side shares: the
 * monotonic clock (clock.h), the name of a CUDA process state (cuda_ops.h) and criu's version
 * read from `criu --version` (criu_version.h), here from stand-in scripts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "criu_version.h"
#include "cuda_ops.h"
#include "tap.h"

static char dir[64];

static void test_clock(void)
{
	uint64_t a = cs_now_ns(), b;
	double s = cs_now();

	usleep(2000);
	b = cs_now_ns();
	tap_ok(b - a >= 2000000ull, "cs_now_ns advances by the time slept (%llu ns)",
	       (unsigned long long)(b - a));
	tap_ok(s >= (double)a / 1e9 && s <= (double)b / 1e9, "cs_now reads the same clock in seconds");
}

static void test_state_names(void)
{
	static const char *const want[] = { "running", "locked",	"checkpointed",
					    "failed",  "checkpointing", "restoring" };
	int bad = 0;

	for (int i = 0; i < 6; i++)
		bad += strcmp(cs_cuda_state_name((CUprocessState)i), want[i]) != 0;
	tap_ok(!bad, "the six states are named in lower case");
	tap_ok(!strcmp(cs_cuda_state_name((CUprocessState)6), "unknown") &&
		   !strcmp(cs_cuda_state_name((CUprocessState)-1), "unknown"),
	       "a state the API does not define is 'unknown'");
}

/* dir/NAME: a shell script with body; its path into path */
static void script(const char *name, const char *body, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "#!/bin/sh\n%s\n", body) < 0 || fclose(f) || chmod(path, 0700)) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void test_criu_version(void)
{
	char path[128], ver[32], tiny[4];
	int ret;

	script("criu", "echo noise >&2; echo 'Version: 4.2.1'; echo 'GitID: v4.2.1-7-gabc'", path,
	       sizeof(path));
	ret = cs_criu_version(path, ver, sizeof(ver));
	tap_ok(!ret && !strcmp(ver, "4.2.1"), "the word after 'Version: ' (%d, '%s')", ret, ver);
	ret = cs_criu_version(path, tiny, sizeof(tiny));
	tap_ok(!ret && !strcmp(tiny, "4.2"), "cut to the caller's buffer ('%s')", tiny);

	script("big", "yes 'padding line' | head -c 200000; echo 'Version: 9.9'", path, sizeof(path));
	ret = cs_criu_version(path, ver, sizeof(ver));
	tap_ok(ret == -ENOENT, "a version past what is kept is not found, and the child ends (%d)", ret);

	script("quiet", "echo 'criu: unknown option' >&2; exit 1", path, sizeof(path));
	ret = cs_criu_version(path, ver, sizeof(ver));
	tap_ok(ret == -ENOENT && !ver[0], "no version line: -ENOENT, ver empty (%d)", ret);

	snprintf(path, sizeof(path), "%s/missing", dir);
	ret = cs_criu_version(path, ver, sizeof(ver));
	tap_ok(ret == -ENOENT, "a binary that cannot run: -ENOENT (%d)", ret);
}

static void cleanup(void)
{
	static const char *const names[] = { "criu", "big", "quiet" };
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/cs-base.XXXXXX", tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	tap_plan(9);
	test_clock();
	test_state_names();
	test_criu_version();
	cleanup();
	return tap_done();
}
