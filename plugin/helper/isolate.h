/* SPDX-License-Identifier: MIT */
/*
 * isolate.h - the helper's memory is the checkpoint tool's, not the workload's.
 *
 * A container runtime restores by running criu inside the container's cgroup (runc moves criu
 * there before it restores the tasks), so a helper forked by criu would be charged to the
 * container's memory limit: its pinned buffers and copy threads count against the workload, and
 * the container's OOM killer can take the helper in the middle of a restore. At INIT the helper
 * therefore moves itself into the memory cgroup of criu's parent (the runtime) whenever criu's
 * differs from it (cgroup v2, or v1's memory hierarchy), and lowers its OOM score so that the
 * kernel's OOM killer takes every ordinary process before it. Both are logged; neither can fail
 * the operation (the helper then works where it is, as before).
 */
#ifndef CUDASTORE_ISOLATE_H
#define CUDASTORE_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The OOM score, and the move out of criu's memory cgroup when criu's parent is elsewhere. */
void cs_isolate(pid_t criu_pid);

/*
 * One line of /proc/PID/cgroup: its path into path when it is the memory hierarchy's (v2: the
 * "0::" line; v1: the line whose controllers include memory). line is cut up. 0 or -ENOENT.
 */
int cs_isolate_parse_cgroup_line(char *line, bool v2, char *path, size_t len);

#endif /* CUDASTORE_ISOLATE_H */
