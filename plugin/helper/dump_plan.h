/* SPDX-License-Identifier: MIT */
/*
 * dump_plan.h - plan a dump before the process is touched (dump only).
 *
 * NVML tells which GPUs a pid has memory on and how much, without locking it. The dump is
 * refused before the lock when the images directory cannot hold that much (CustomStorage
 * has no abort once the checkpoint call returned, so running out of space later would be
 * far worse). NVML may be missing or report nothing (containers, old drivers): then the
 * plan is "unknown", every visible GPU is retained and no space check is made (logged).
 * A process that shares GPU memory through CUDA IPC is refused, before the lock too, when the
 * driver cannot checkpoint it (cs_dump_plan_check_ipc).
 */
#ifndef CUDASTORE_DUMP_PLAN_H
#define CUDASTORE_DUMP_PLAN_H

#include "context.h"

/* Fill p->dump.ndev_plan/dev_plan/bytes_plan. 0 (also when NVML is unavailable) or -errno.
 * NVML is loaded and initialised once per dump, at the first call. */
int cs_dump_plan_process(struct cs_ctx *ctx, struct cs_proc *p);
/* The dump's NVML, loaded and initialised at the first call; NULL when there is none (said once). */
struct cs_nvml_ops *cs_dump_plan_nvml(struct cs_ctx *ctx, pid_t pid);
/* Shut NVML down and unload it (exit(DUMP)); the next cs_dump_plan_process loads it again. */
void cs_dump_plan_release(struct cs_dump_nvml *nvml);
/*
 * CUDA IPC: a process that shares GPU memory with another through CUDA IPC (it maps the
 * driver's /dev/shm/cuda.shm.* file, the exporter and every importer alike) can be
 * checkpointed only by driver branch 610 or newer; older drivers checkpoint it without
 * complaint and its restore then fails. -EPERM with the reason, before the process is touched,
 * when the driver is older or its branch cannot be read (NVML); 0 otherwise.
 */
int cs_dump_plan_check_ipc(struct cs_ctx *ctx, struct cs_proc *p);
/*
 * A tree with several CUDA processes, at the dump's first PAUSE (root: the dumped tree's root),
 * before anything is locked: drivers older than branch 610 checkpoint a process that imports
 * another's GPU memory through CUDA IPC without complaint and can never restore it (measured on
 * driver 580: the restore fails with CUDA_ERROR_INVALID_VALUE, in place too, whatever the
 * order), and such an importer looks like any CUDA process in /proc and NVML. -EPERM with the
 * reason on such a driver (its branch from NVML, else its CUDA version) unless the
 * old_driver_trees option allows it; 0 otherwise. A process is counted when it has the driver
 * mapped (procfs.h) and the driver knows it (it names its restore thread).
 */
int cs_dump_plan_check_tree(struct cs_ctx *ctx, pid_t root);
/*
 * -ENOSPC with a clear message when p->dump.bytes_plan does not fit in the images directory.
 * A chunked dump with a parent writes only what changed, which nothing tells before the lock:
 * it passes here, and cs_dump_plan_check_new_bytes checks it once the chunk ids are known.
 */
int cs_dump_plan_check_space(struct cs_ctx *ctx, struct cs_proc *p, int dirfd);
/*
 * A chunked dump with a parent, locked, its chunk ids hashed on the GPU before any copy:
 * -ENOSPC with a clear message when the new_bytes (of total) of its chunks that are neither
 * all-zero nor known (to the parent, the store or the images directory), with those of the
 * tree's processes checked before it, do not fit in the images directory; the caller then
 * fails the dump before anything is written. 0 otherwise.
 */
int cs_dump_plan_check_new_bytes(struct cs_ctx *ctx, const struct cs_proc *p, int dirfd, uint64_t new_bytes,
				 uint64_t total);

#endif /* CUDASTORE_DUMP_PLAN_H */
