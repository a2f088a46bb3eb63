// SPDX-License-Identifier: MIT
/* log-stderr.c - cs_log_line (log.h) for programs that run outside criu (tests, benchmark). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

void cs_log_line(unsigned int loglevel, const char *format, ...)
{
	static int max = -1;
	va_list ap;

	if (max < 0) {
		const char *e = getenv("CUDASTORE_TEST_LOGLEVEL");
		max = e ? atoi(e) : 3;
	}
	if ((int)loglevel > max)
		return;
	va_start(ap, format);
	vfprintf(stderr, format, ap);
	va_end(ap);
}
