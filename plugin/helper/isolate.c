// SPDX-License-Identifier: MIT
/* isolate.c - the helper out of the workload's memory cgroup and OOM killing (see isolate.h) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isolate.h"
#include "log.h"
#include "procfs.h"

#define OOM_SCORE_ADJ "-999" /* every ordinary process (0) goes first; -1000 would exempt it */

/*
 * The mount point of the hierarchy that holds the memory controller: v1's "memory" when mounted
 * (on a hybrid host the cgroup2 tree beside it has no memory controller), else cgroup2.
 */
static int memcg_mount(char *mnt, size_t len, bool *v2)
{
	char line[1024], point[PATH_MAX], unified[PATH_MAX] = "", *sep;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	mnt[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		if (!strncmp(sep, " - cgroup2 ", 11) && !unified[0])
			snprintf(unified, sizeof(unified), "%s", point);
		else if (!strncmp(sep, " - cgroup ", 10) && strstr(sep, "memory") && !mnt[0])
			snprintf(mnt, len, "%s", point);
	}
	fclose(f);
	*v2 = !mnt[0];
	if (*v2)
		snprintf(mnt, len, "%s", unified);
	return mnt[0] ? 0 : -ENOENT;
}

int cs_isolate_parse_cgroup_line(char *line, bool v2, char *path, size_t len)
{
	char *ctl, *p;

	line[strcspn(line, "\n")] = '\0';
	ctl = strchr(line, ':');
	p = ctl ? strchr(ctl + 1, ':') : NULL;
	if (!p)
		return -ENOENT;
	*p = '\0';
	/* v2: "0::/path" (hierarchy 0, no controller list); v1: "N:...,memory,...:/path" */
	if (v2 ? ctl != line + 1 || line[0] != '0' || p != ctl + 1 : !strstr(ctl + 1, "memory"))
		return -ENOENT;
	snprintf(path, len, "%s", p + 1);
	return 0;
}

/* pid's path in the hierarchy */
static int memcg_path(pid_t pid, bool v2, char *path, size_t len)
{
	char name[64], line[1024];
	FILE *f;
	int ret = -ENOENT;

	snprintf(name, sizeof(name), "/proc/%d/cgroup", pid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f))
		ret = cs_isolate_parse_cgroup_line(line, v2, path, len);
	fclose(f);
	return ret;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* into the memory cgroup of criu's parent, when criu's is another */
static void leave_criu_memcg(pid_t criu_pid)
{
	char mnt[PATH_MAX], mine[PATH_MAX], theirs[PATH_MAX], procs[PATH_MAX * 2 + 16], pid[32];
	pid_t parent = cs_procfs_status_pid(criu_pid, "PPid");
	bool v2 = false;
	int ret;

	if (parent <= 0 || memcg_mount(mnt, sizeof(mnt), &v2) ||
	    memcg_path(criu_pid, v2, mine, sizeof(mine)) || memcg_path(parent, v2, theirs, sizeof(theirs)) ||
	    !strcmp(mine, theirs))
		return; /* criu runs where its caller does: nothing to leave */
	if ((size_t)snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", mnt, theirs) >= sizeof(procs))
		return;
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	ret = write_text(procs, pid);
	if (ret)
		cs_warn("cannot leave criu's memory cgroup %s for %s (%s): the helper's memory is charged to "
			"it, as the restored workload's is",
			mine, theirs, strerror(-ret));
	else
		cs_info("helper moved out of criu's memory cgroup %s into %s, its caller's: its pinned "
			"buffers are not charged to the workload",
			mine, theirs);
}

void cs_isolate(pid_t criu_pid)
{
	int ret = write_text("/proc/self/oom_score_adj", OOM_SCORE_ADJ);

	if (ret)
		cs_info(
		    "the helper's OOM score is left as it is (%s: lowering it takes CAP_SYS_RESOURCE): the "
		    "OOM killer may take it like any other process",
		    strerror(-ret));
	if (criu_pid > 0)
		leave_criu_memcg(criu_pid);
}
