// SPDX-License-Identifier: MIT
/* log_criu.c - cs_log_line (log.h) inside criu: every line goes to criu's own log. */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/*
 * criu's logging function, which the plugin imports from the criu binary. The installed
 * criu-log.h needs CRIU's uninstalled log.h, so it is declared here.
 */
extern void print_on_level(unsigned int loglevel, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* criu's line buffer: a longer line is cut there by criu itself */
#define CRIU_LOG_LINE_MAX (8 * 1024)

void cs_log_line(unsigned int loglevel, const char *format, ...)
{
	char line[CRIU_LOG_LINE_MAX];
	va_list ap;

	va_start(ap, format);
	vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	print_on_level(loglevel, "%s", line);
}
