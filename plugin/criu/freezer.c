// SPDX-License-Identifier: MIT
/*
 * freezer.c - whether criu may keep its cgroup freezer (freezer.h).
 *
 * A task counts as a CUDA process when it uses the CUDA driver, as /proc shows it
 * (cs_procfs_cuda_driver: the NVIDIA device files it maps or holds open, or the driver library
 * mapped), and when that cannot be told: the driver opens its device files in cuInit, before the
 * process can hold GPU state, so a process that starts using it between this scan and its PAUSE
 * is the only one missed, and cs_freezer_check_late() catches it there. Tasks that exit during
 * the scan are skipped. The scan is bounded (CS_FREEZER_MAX_TASKS tasks, cgroups
 * CS_FREEZER_MAX_DEPTH deep); a tree beyond that is treated as one that has a CUDA process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "freezer.h"
#include "log.h"
#include "procfs.h"

#define CS_FREEZER_MAX_TASKS 65536
#define CS_FREEZER_MAX_DEPTH 16

struct scan {
	unsigned seen;	/* tasks looked at */
	pid_t cuda;	/* the first that uses the driver (or may), 0 none, -1 over the bound */
	bool told;	/* it does (else: cannot be told) */
	const char *at; /* where it was found */
	char what[256]; /* what showed it (cs_procfs_cuda_driver) */
};

static bool gone(pid_t pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

/* look at one task; false stops the scan */
static bool scan_task(struct scan *s, pid_t pid, const char *at)
{
	int ret;

	if (pid <= 0)
		return true;
	if (++s->seen > CS_FREEZER_MAX_TASKS) {
		s->cuda = -1;
		return false;
	}
	ret = cs_procfs_cuda_driver(pid, s->what, sizeof(s->what));
	if (!ret || gone(pid))
		return true;
	s->cuda = pid;
	s->told = ret > 0;
	s->at = at;
	return false;
}

static bool scan_procs_file(struct scan *s, int dfd, const char *at)
{
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	bool go_on = true;
	int pid;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	while (go_on && fscanf(f, "%d", &pid) == 1)
		go_on = scan_task(s, pid, at);
	fclose(f);
	return go_on;
}

/* the cgroup open at dfd and its sub-cgroups; takes dfd */
static bool scan_cgroup(struct scan *s, int dfd, const char *at, int depth)
{
	DIR *d = fdopendir(dfd);
	bool go_on;
	struct dirent *e;

	if (!d) {
		close(dfd);
		return true;
	}
	go_on = scan_procs_file(s, dfd, at);
	while (go_on && (e = readdir(d))) {
		int sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (depth >= CS_FREEZER_MAX_DEPTH) {
			s->cuda = -1;
			go_on = false;
			break;
		}
		sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			go_on = scan_cgroup(s, sub, at, depth + 1);
	}
	closedir(d);
	return go_on;
}

/* pid and its descendants, from /proc/PID/task/TID/children */
static bool scan_tree(struct scan *s, pid_t pid, const char *at, int depth)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	bool go_on = scan_task(s, pid, at);

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = go_on ? opendir(path) : NULL;
	while (d && go_on && (e = readdir(d))) {
		char cpath[128];
		FILE *f;
		int child;

		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%.16s/children", pid, e->d_name);
		f = fopen(cpath, "re");
		while (f && go_on && fscanf(f, "%d", &child) == 1)
			go_on = depth < 4096 ? scan_tree(s, child, at, depth + 1) : scan_task(s, -1, at);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return go_on;
}

bool cs_freezer_may_keep(const struct cs_criu_view *v, char *why, size_t whylen)
{
	struct scan s = { 0 };
	int dfd;

	if (!v->freeze_cgroup[0]) {
		snprintf(why, whylen, "%s",
			 v->known || v->from_cmdline ? "criu has no --freeze-cgroup"
						     : "criu's freeze cgroup is not known");
		return false;
	}
	dfd = open(v->freeze_cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(why, whylen, "freeze cgroup %.200s cannot be read: %s", v->freeze_cgroup,
			 strerror(errno));
		return false;
	}
	if (scan_cgroup(&s, dfd, "the freeze cgroup", 0) && v->tree > 0)
		scan_tree(&s, v->tree, "the dumped tree", 0);
	if (s.cuda > 0)
		snprintf(why, whylen, "pid %d in %s %s the CUDA driver: %s", s.cuda, s.at,
			 s.told ? "uses" : "may use", s.what);
	else if (s.cuda < 0)
		snprintf(why, whylen, "the tree has more than %u tasks or cgroups deeper than %d",
			 CS_FREEZER_MAX_TASKS, CS_FREEZER_MAX_DEPTH);
	else
		snprintf(why, whylen, "none of the %u tasks of freeze cgroup %.200s%s uses the CUDA driver",
			 s.seen, v->freeze_cgroup, v->tree > 0 ? " and of the dumped tree" : "");
	return s.cuda == 0;
}

int cs_freezer_check_late(pid_t pid, const char *cgroup)
{
	char what[256];
	int ret = cs_procfs_cuda_driver(pid, what, sizeof(what));

	if (!ret)
		return -ENOTSUP;
	cs_err("pid %d %s the CUDA driver now (%s), but no task did when the dump began, so criu "
	       "freezes the tree with the cgroup freezer (%.200s), which would also freeze the "
	       "driver's restore thread. Nothing was locked or checkpointed and criu resumes the "
	       "tree: retry the dump (it will then seize the tree thread by thread)",
	       pid, ret > 0 ? "uses" : "may use", what, cgroup);
	return -EAGAIN;
}
