/* SPDX-License-Identifier: MIT */
/*
 * restore_plan.h - can this host restore these images, and onto which GPUs: the one judgement
 * that both the restore (cudastore-helper, before any process is touched) and `cudastore check
 * --images` make, so that the check never says yes where the restore then refuses for a reason
 * of the host, and never no where it would succeed.
 *
 * Input: the manifests of every process the images hold (a tree is placed as one: processes
 * that shared a GPU keep sharing one, and their memory on it is added up), the host as probed
 * (gpu_probe.h: its driver, and its GPUs with their free memory now) and the device map of the
 * options (none: automatic, placement.h). Pure: no I/O, no logging.
 *
 * The host rules, each a reason when broken (all of them are listed, not only the first):
 *  - a usable NVIDIA driver (cuInit answered);
 *  - the CPU architecture the images were dumped on;
 *  - CustomStorage images need a driver that has CustomStorage (CUDA 13.4, R615+);
 *  - a CUDA driver API at least the images' (cuDriverGetVersion);
 *  - the images' driver branch (580 of 580.159.04), at the images' version or a later one of
 *    the branch: the checkpoint's driver state is the driver's own, not a documented format;
 *  - a place for every checkpointed GPU (placement.h): the same product, compute capability and
 *    memory size, MIG off, enough free memory, one GPU each.
 * Images that record no facts (format before 1.4) are judged by what they have: their GPUs'
 * UUIDs (custom mode) and their CUDA version; a note says which facts were missing.
 */
#ifndef CUDASTORE_RESTORE_PLAN_H
#define CUDASTORE_RESTORE_PLAN_H

#include <stdbool.h>

#include "facts.h"
#include "manifest.h"
#include "options.h"
#include "placement.h"

#define CS_PLAN_REASONS	   8
#define CS_PLAN_REASON_MAX 1024
#define CS_PLAN_NOTES	   4
#define CS_PLAN_NOTE_MAX   256

/* The answer: yes (cs_restore_plan returned 0) with a place for each checkpointed GPU, or every
 * reason for no. */
struct cs_restore_plan {
	unsigned n;				    /* distinct checkpointed GPUs */
	struct cs_place_want want[CS_MAX_DEVICES];  /* each, with its memory summed over the tree */
	int dest[CS_MAX_DEVICES];		    /* want[i] goes to host gpu[dest[i]] */
	char how[CS_MAX_DEVICES][CS_PLACE_HOW_MAX]; /* why there */
	unsigned nreason;
	char reason[CS_PLAN_REASONS][CS_PLAN_REASON_MAX];
	unsigned nnote; /* said, not refused */
	char note[CS_PLAN_NOTES][CS_PLAN_NOTE_MAX];
};

/*
 * The plan for restoring the processes of m[0..nm) on h with the device map map[0..nmap) (none:
 * automatic). 0: the host can; -ENODEV (no place for a GPU, no driver), -EPROTONOSUPPORT (a host
 * rule) or -EINVAL (a bad map), with every reason in p->reason.
 */
int cs_restore_plan(const struct cs_manifest *const *m, unsigned nm, const struct cs_restore_host *h,
		    const struct cs_device_pair *map, unsigned nmap, struct cs_restore_plan *p);

/* The destination UUID of the checkpointed GPU uuid in an accepted plan: 0, or -ENOENT. */
int cs_restore_plan_dest(const struct cs_restore_plan *p, const struct cs_restore_host *h, const CUuuid *uuid,
			 CUuuid *dest);

#endif /* CUDASTORE_RESTORE_PLAN_H */
