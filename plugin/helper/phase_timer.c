// SPDX-License-Identifier: MIT
/* phase_timer.c - phase timing and the one log line per phase (see phase_timer.h) */
#include "log.h"
#include "phase_timer.h"
#include "progress.h"

void cs_phase_timer_begin(struct cs_phase_timer *s)
{
	s->t0 = cs_now();
}

void cs_phase_timer_end(struct cs_phase_timer *s, int pid, const char *name, uint64_t bytes)
{
	double dt = cs_now() - s->t0;

	if (s->n < CS_MAX_PHASES)
		s->phase[s->n++] = (struct cs_phase){ .name = name, .seconds = dt, .bytes = bytes };
	if (bytes)
		cs_info("pid %d: %s: %.1f MiB in %.3f s (%.2f GB/s)", pid, name, bytes / 1048576.0, dt,
			dt > 0 ? bytes / dt / 1e9 : 0.0);
	else
		cs_info("pid %d: %s: %.3f s", pid, name, dt);
	s->t0 = cs_now();
	cs_progress_note(pid);
}

double cs_phase_timer_total(const struct cs_phase_timer *s)
{
	double t = 0;
	unsigned i;

	for (i = 0; i < s->n; i++)
		t += s->phase[i].seconds;
	return t;
}
