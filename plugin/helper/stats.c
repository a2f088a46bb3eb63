// SPDX-License-Identifier: MIT
/* stats.c - phase timing and the one log line per phase */
#include "log.h"
#include "stats.h"

void cs_stats_begin(struct cs_stats *s)
{
	s->t0 = cs_now();
}

void cs_stats_end(struct cs_stats *s, int pid, const char *name, uint64_t bytes)
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
}

double cs_stats_total(const struct cs_stats *s)
{
	double t = 0;
	unsigned i;

	for (i = 0; i < s->n; i++)
		t += s->phase[i].seconds;
	return t;
}
