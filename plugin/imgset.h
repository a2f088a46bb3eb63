/* SPDX-License-Identifier: MIT */
/*
 * imgset.h - a dump owns exactly the cudastore files of the processes it dumped, and a restore
 * resumes no CUDA process whose GPU state the images lack (docs/image-format.md, section 1).
 *
 * Dump: before the first file is written, cs_imgset_dump_begin() removes every file of the
 * plugin's names (cs_name_is_ours: cudastore-<n>.img, .json, -gpu<i>.ext, and their .tmp) that an
 * earlier dump left in the images directory (containers reuse small ns pids, so a stale
 * cudastore-<nspid>.img could otherwise be taken for a process of this dump). Other files, such
 * as a criu log named cudastore-dump.log, are left alone.
 *
 * Restore: cs_imgset_no_manifest() decides about a restored process that has no manifest.
 */
#ifndef CUDASTORE_IMGSET_H
#define CUDASTORE_IMGSET_H

#include <sys/types.h>

#include "context.h"

/* Remove stale files of ours (not directories) from dirfd. 0 or -errno (logged). */
int cs_imgset_dump_begin(int dirfd);

/*
 * Restore (RESUME_DEVICES_LATE) of pid, for which the images hold no manifest `name`. The plugin
 * is active, so CRIU's inventory says the dump used it (or CRIU predates the inventory). Returns
 * -ENOTSUP when pid is not a CUDA process or the driver reports it RUNNING: nothing to do. When
 * the driver reports any other state (CHECKPOINTED: its GPU state was dumped and is lost with the
 * manifest) it logs why the process cannot be resumed and returns -ENOENT: the caller kills it.
 */
int cs_imgset_no_manifest(struct cs_ctx *ctx, pid_t pid, const char *name);

#endif /* CUDASTORE_IMGSET_H */
