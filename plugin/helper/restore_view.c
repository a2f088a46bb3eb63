// SPDX-License-Identifier: MIT
/* restore_view.c - the GPU device nodes the restored tree can open (see restore_view.h) */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "restore_view.h"

/* the mount namespace of pid ("mnt:[4026531841]") into out; 0 or -errno */
static int mnt_ns(pid_t pid, char *out, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	n = readlink(path, out, len - 1);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return 0;
}

/* criu's child in another mount namespace than criu's, else its first child, else criu */
static pid_t restored_root(pid_t criu)
{
	char path[80], own[64] = "", ns[64];
	pid_t first = 0, pid;
	FILE *f;
	int v;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)criu, (int)criu);
	f = fopen(path, "re");
	if (!f)
		return criu;
	mnt_ns(criu, own, sizeof(own));
	while (fscanf(f, "%d", &v) == 1) {
		pid = (pid_t)v;
		if (!first)
			first = pid;
		if (!mnt_ns(pid, ns, sizeof(ns)) && strcmp(ns, own)) {
			fclose(f);
			return pid;
		}
	}
	fclose(f);
	return first ? first : criu;
}

int cs_restore_view(pid_t criu_pid, pid_t pid, struct cs_device_view *v)
{
	int ret;

	if (!pid)
		pid = restored_root(criu_pid);
	ret = cs_devview_of_pid(pid, v);
	if (ret)
		cs_warn("placement: cannot read pid %d's /dev (%s): the GPUs are placed without knowing "
			"which ones the restored processes can open",
			pid, strerror(-ret));
	return ret;
}
