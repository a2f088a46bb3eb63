// SPDX-License-Identifier: MIT
/* log.c - cs_log_line and the sink registered at run time (log.h) */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "log.h"

/* stderr, at most CS_LOG_INFO: what a program that registered no sink gets */
static void default_sink(unsigned int loglevel, const char *line)
{
	if (loglevel <= CS_LOG_INFO)
		fputs(line, stderr);
}

static _Atomic(cs_log_sink *) sink = default_sink;

void cs_log_set_sink(cs_log_sink *to)
{
	atomic_store(&sink, to ? to : default_sink);
}

void cs_log_line(unsigned int loglevel, const char *format, ...)
{
	cs_log_sink *to = atomic_load(&sink);
	char line[CS_LOG_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	if (n >= 0)
		to(loglevel, line);
}
