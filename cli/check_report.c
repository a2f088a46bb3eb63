// SPDX-License-Identifier: MIT
/*
 * check_report.c - the report's verdict: the problems every probe adds (check.h). Kept apart from
 * check.c, which runs the probes, so that the probe files call down into it and not back up into
 * the command.
 */
#include <stdarg.h>
#include <stdio.h>

#include "check.h"

void cli_check_problem(struct cli_check_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nproblems == sizeof(r->problems) / sizeof(r->problems[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->problems[r->nproblems++], sizeof(r->problems[0]), fmt, ap);
	va_end(ap);
}
