// SPDX-License-Identifier: MIT
/*
 * log-stderr.c - the log sink (log.h) of programs that run outside criu (tests, benchmark):
 * stderr, up to the level CUDASTORE_TEST_LOGLEVEL names (3, information, when unset). Linking
 * this file registers it before main() runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static int max_level = 3;

static void stderr_sink(unsigned int loglevel, const char *line)
{
	if ((int)loglevel <= max_level)
		fputs(line, stderr);
}

__attribute__((constructor)) static void log_stderr_register(void)
{
	const char *e = getenv("CUDASTORE_TEST_LOGLEVEL");

	if (e)
		max_level = atoi(e);
	cs_log_set_sink(stderr_sink);
}
