/* SPDX-License-Identifier: MIT */
/*
 * summary.h - machine-readable JSON summary of one process's dump, next to its manifest
 * (cudastore-<nspid>.json, schema in docs/image-format.md, "The summary file").
 *
 * The file is one JSON object written with json-c: "schema" first, then the process, its phases
 * and devices, and the optional timing objects below. A new field is added to struct
 * cs_summary_timing and to timing_json() in summary.c; callers that leave it zero are unaffected.
 */
#ifndef CUDASTORE_SUMMARY_H
#define CUDASTORE_SUMMARY_H

#include <stdint.h>

#include "context.h"
#include "phase_timer.h"

#define CS_SUMMARY_SCHEMA 1

/*
 * Optional timings; every field zero = absent from the file.
 *   gpu_start_ns, gpu_end_ns   the process's GPU phase, CLOCK_REALTIME ns ("gpu_phase" object)
 *   batch_procs                processes checkpointed together with this one (a tree dumped
 *                              in parallel), this one included ("batch" object)
 *   batch_wall_s               wall time of the whole batch
 *   batch_sum_s                sum of the per-process GPU times of the batch
 */
struct cs_summary_timing {
	uint64_t gpu_start_ns, gpu_end_ns;
	unsigned batch_procs;
	double batch_wall_s, batch_sum_s;
};

/* Writes cudastore-<nspid>.json (0600, atomically). Failure is logged, never fatal. */
void cs_summary_write(int dirfd, const struct cs_proc *p, const struct cs_manifest *m,
		      const struct cs_phase_timer *st);
/* The same with timings (t NULL: none). */
void cs_summary_write_timed(int dirfd, const struct cs_proc *p, const struct cs_manifest *m,
			    const struct cs_phase_timer *st, const struct cs_summary_timing *t);

#endif /* CUDASTORE_SUMMARY_H */
