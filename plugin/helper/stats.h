/* SPDX-License-Identifier: MIT */
/*
 * stats.h - phase timings of one process's dump or restore, for the log and the JSON summary.
 */
#ifndef CUDASTORE_STATS_H
#define CUDASTORE_STATS_H

#include <stdint.h>

#include "clock.h" /* cs_now(), which the phases are timed with */

#define CS_MAX_PHASES 16

struct cs_phase {
	const char *name;
	double seconds;
	uint64_t bytes; /* 0 when the phase moves no data */
};

struct cs_stats {
	unsigned n;
	struct cs_phase phase[CS_MAX_PHASES];
	double t0; /* start of the current phase */
};

void cs_stats_begin(struct cs_stats *s);
/* Close the current phase: logs "pid P: NAME: BYTES in S s (X GB/s)" at info level. */
void cs_stats_end(struct cs_stats *s, int pid, const char *name, uint64_t bytes);
double cs_stats_total(const struct cs_stats *s);

#endif /* CUDASTORE_STATS_H */
