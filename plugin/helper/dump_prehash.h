/* SPDX-License-Identifier: MIT */
/*
 * dump_prehash.h - a chunked dump: each GPU region's chunk ids hashed on the GPU where the
 * memory lies, before any copy (engine/gpu_hash.h), and, with a parent, looked up in the
 * parent's manifest of the same process. A chunk the parent has (id and XXH3 from its manifest)
 * and an all-zero chunk are then recorded by the engine without crossing PCIe
 * (cs_engine_region.known); the others are copied and named by their GPU ids, so that the copy
 * threads do not hash them again (cs_engine_region.pre_ids). Without a GPU hasher (the driver
 * cannot run the kernels) nothing is marked: every chunk is copied and hashed on the CPU.
 */
#ifndef CUDASTORE_DUMP_PREHASH_H
#define CUDASTORE_DUMP_PREHASH_H

#include <stdbool.h>

#include "context.h"
#include "engine.h"

struct cs_prehash {
	uint8_t *known[CS_MAX_DEVICES];
	uint8_t *ids[CS_MAX_DEVICES];
	uint64_t *hash[CS_MAX_DEVICES];
	uint64_t new_bytes; /* gpu: the bytes of the chunks to copy (not all-zero, not known) */
	bool gpu;	    /* the ids were hashed on the GPU */
	char why[160]; /* else why not */
};

/*
 * Fill ph for the n regions of process p (ptr, size, ctx set) and point regs[i] at it. Nothing
 * to do (not a chunked dump, or no GPU hasher): 0 with ph->gpu false. -errno only for a failure that
 * fails the dump (no memory, a hash launch that failed).
 */
int cs_prehash_regions(struct cs_ctx *ctx, const struct cs_proc *p, struct cs_engine_region *regs, unsigned n,
		       struct cs_prehash *ph);
void cs_prehash_free(struct cs_prehash *ph);

#endif /* CUDASTORE_DUMP_PREHASH_H */
