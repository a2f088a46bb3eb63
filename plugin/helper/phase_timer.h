/* SPDX-License-Identifier: MIT */
/*
 * phase_timer.h - the per-phase timer of one process's dump or restore: each phase's time (and
 * bytes moved), for the log and the JSON summary.
 */
#ifndef CUDASTORE_PHASE_TIMER_H
#define CUDASTORE_PHASE_TIMER_H

#include <stdint.h>

#include "clock.h" /* cs_now(), which the phases are timed with */

#define CS_MAX_PHASES 16

struct cs_phase {
	const char *name;
	double seconds;
	uint64_t bytes; /* 0 when the phase moves no data */
};

struct cs_phase_timer {
	unsigned n;
	struct cs_phase phase[CS_MAX_PHASES];
	double t0; /* start of the current phase */
};

void cs_phase_timer_begin(struct cs_phase_timer *s);
/* Close the current phase: logs "pid P: NAME: BYTES in S s (X GB/s)" at info level. */
void cs_phase_timer_end(struct cs_phase_timer *s, int pid, const char *name, uint64_t bytes);
double cs_phase_timer_total(const struct cs_phase_timer *s);

#endif /* CUDASTORE_PHASE_TIMER_H */
