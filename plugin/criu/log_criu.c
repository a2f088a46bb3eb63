// SPDX-License-Identifier: MIT
/* log_criu.c - the log sink inside criu (log.h): every line goes to criu's own log. */
#include "log.h"
#include "log_criu.h"

/*
 * criu's logging function, which the plugin imports from the criu binary. The installed
 * criu-log.h needs CRIU's uninstalled log.h, so it is declared here.
 */
extern void print_on_level(unsigned int loglevel, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* criu cuts a line longer than its own buffer (8 KiB) itself, as CS_LOG_LINE_MAX does */
static void criu_sink(unsigned int loglevel, const char *line)
{
	print_on_level(loglevel, "%s", line);
}

void cs_log_to_criu(void)
{
	cs_log_set_sink(criu_sink);
}
