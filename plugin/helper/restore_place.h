/* SPDX-License-Identifier: MIT */
/*
 * restore_place.h - where a restore puts each checkpointed GPU, decided once for every process
 * the images hold and before any of them is touched (restore_plan.h holds the rules; `cudastore
 * check --images` applies the same ones).
 *
 * The first caller decides: the warm-up thread (from the images' index, before CRIU's GPU phase)
 * or else the first RESTORE (index, or the tree's manifests without one). It probes this host
 * (cuInit, every visible GPU, NVML's free memory, MIG mode and minor number, the driver's
 * version), reads every manifest, and logs where each GPU goes and why, or every reason the host
 * cannot restore them. Only the GPUs whose device node the restored processes' /dev holds are
 * placed onto (device_view.h): the first RESTORE reads the /dev of its first process (the
 * warm-up runs before criu has set up the restored processes' roots), and when the warm-up's
 * plan uses a GPU missing there, it places again, before any process is touched. Later calls
 * answer the same. The decision lives in ctx->restore.place, written by the warm-up or the first
 * RESTORE and only read after (the warm-up is joined before the first RESTORE reads it).
 */
#ifndef CUDASTORE_RESTORE_PLACE_H
#define CUDASTORE_RESTORE_PLACE_H

#include "context.h"
#include "restore_plan.h"

struct cs_placement {
	int result;  /* 0: the host restores them; -errno: it cannot (reasons logged) */
	bool viewed; /* a restored process's /dev was read (device_view.h) */
	struct cs_restore_host host;
	struct cs_restore_plan plan;
};

/*
 * Decide (once) for the images in dirfd; procs[0..n) are the tree's validated processes (their
 * manifests in p->m) for images without an index (NULL, 0 from the warm-up). 0 or -errno.
 */
int cs_place_restore(struct cs_ctx *ctx, int dirfd, struct cs_proc *const *procs, unsigned n);
/* The GPU the checkpointed GPU from goes to: 0, or -ENOENT when the placement does not name it */
int cs_place_dest(const struct cs_ctx *ctx, const CUuuid *from, CUuuid *to);
/*
 * Driver-managed restore of m: the GPU pairs for the driver when any of m's GPUs moves (every
 * GPU of m listed, as the driver needs), else 0 (it restores onto the same GPUs).
 */
unsigned cs_place_pairs(const struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m,
			CUcheckpointGpuPair *pairs);
void cs_place_free(struct cs_ctx *ctx);

#endif /* CUDASTORE_RESTORE_PLACE_H */
