/* SPDX-License-Identifier: MIT */
/*
 * dump_facts.h - what a dump records of the host and the GPUs each process used, so that a
 * restore elsewhere can be judged and placed (restore_plan.h; image format 1.4, facts.h).
 *
 * At a CUDA process's PAUSE, before it is locked: the host (driver version and branch, the
 * libcuda's build id, the CPU architecture) and every visible GPU (UUID, product, compute
 * capability, memory, PCI bus id, MIG mode, ordinal) are probed once per dump (cuInit in the
 * helper, in both modes), and the process's CUDA_VISIBLE_DEVICES is read from its environment.
 * When its manifest is written: the GPUs it used (CustomStorage: those the driver mapped;
 * driver-managed: those NVML lists its memory on) with their facts, how much of each it used,
 * and the ordinal it saw each as. Nothing here can fail a dump: a fact that cannot be read is
 * left out and the restore judges without it.
 */
#ifndef CUDASTORE_DUMP_FACTS_H
#define CUDASTORE_DUMP_FACTS_H

#include "context.h"

/* PAUSE: the host probed (once per dump), p's CUDA_VISIBLE_DEVICES read */
void cs_dump_facts_probe(struct cs_ctx *ctx, struct cs_proc *p);
/* m's host and GPU facts, for process p (m's devices filled first in CustomStorage mode) */
void cs_dump_facts_fill(const struct cs_ctx *ctx, const struct cs_proc *p, struct cs_manifest *m);

#endif /* CUDASTORE_DUMP_FACTS_H */
