// SPDX-License-Identifier: MIT
/*
 * test-isolate-cgroup-lines: the helper finds its memory cgroup in /proc/PID/cgroup on a cgroup
 * v2 host ("0::/path") and on a v1 or hybrid one (the line whose controllers include memory).
 */
#include <errno.h>
#include <string.h>

#include "isolate.h"
#include "tap.h"

static int parse(const char *text, bool v2, char *path, size_t len)
{
	char line[256];

	snprintf(line, sizeof(line), "%s", text);
	path[0] = '\0';
	return cs_isolate_parse_cgroup_line(line, v2, path, len);
}

int main(void)
{
	char path[128];

	tap_plan(6);
	tap_ok(!parse("0::/process_api/72ab\n", true, path, sizeof(path)) && !strcmp(path, "/process_api/72ab"),
	       "v2: the 0:: line gives its path (%s)", path);
	tap_ok(parse("1:name=systemd:/x\n", true, path, sizeof(path)) == -ENOENT,
	       "v2: a named v1 hierarchy is not the memory cgroup");
	tap_ok(!parse("0::/\n", true, path, sizeof(path)) && !strcmp(path, "/"), "v2: the root cgroup (%s)", path);
	tap_ok(!parse("4:memory:/process_api/d98e\n", false, path, sizeof(path)) &&
		   !strcmp(path, "/process_api/d98e"),
	       "v1: the memory line gives its path (%s)", path);
	tap_ok(!parse("7:cpu,memory:/a/b\n", false, path, sizeof(path)) && !strcmp(path, "/a/b"),
	       "v1: memory among other controllers (%s)", path);
	tap_ok(parse("0::/unified\n", false, path, sizeof(path)) == -ENOENT,
	       "v1: the cgroup2 line of a hybrid host is not the memory cgroup");
	return tap_done();
}
