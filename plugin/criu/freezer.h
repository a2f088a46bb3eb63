/* SPDX-License-Identifier: MIT */
/*
 * freezer.h - init(DUMP): may criu keep its cgroup freezer for this tree?
 *
 * criu-side only: no driver calls, /proc and the cgroup filesystem only. With --freeze-cgroup
 * (what container runtimes pass) criu freezes the whole cgroup, and a frozen CUDA process cannot
 * be locked or checkpointed: the driver's work runs on the process's own restore thread. So a
 * tree with a CUDA process must be seized thread by thread (CRIU's interrupt-only mode), and a
 * tree without one keeps the freezer, which seizes a tree whose threads keep changing in one
 * step. The choice is made at init, before criu seizes anything, from the tasks of the freeze
 * cgroup and of the tree under the dumped pid. A task is a CUDA process when it uses the driver
 * as /proc shows it, whatever its driver library is called: an NVIDIA device file (nvidiactl,
 * nvidiaN, nvidia-uvm) mapped or open, or libcuda.so mapped (cs_procfs_cuda_driver), or when
 * that cannot be read. A process that starts using the driver after that choice fails the dump
 * (bounded: one pass over its /proc entries, no driver call), and a retry chooses again.
 */
#ifndef CUDASTORE_FREEZER_H
#define CUDASTORE_FREEZER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "criu_opts.h"

/*
 * true when criu may keep its cgroup freezer: v names the freeze cgroup and no task in it (its
 * sub-cgroups included) nor in the tree under v->tree uses the CUDA driver. why (always set)
 * says what decided (the task and the file that showed the driver), for the log.
 */
bool cs_freezer_may_keep(const struct cs_criu_view *v, char *why, size_t whylen);

/*
 * PAUSE or CHECKPOINT of pid while criu uses the cgroup freezer (cgroup): -ENOTSUP when pid does
 * not use the CUDA driver (not ours), else -EAGAIN after logging what happened and what to do.
 */
int cs_freezer_check_late(pid_t pid, const char *cgroup);

#endif /* CUDASTORE_FREEZER_H */
