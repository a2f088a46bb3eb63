// SPDX-License-Identifier: MIT
/* clock.c - the monotonic clock (clock.h) */
#include <time.h>

#include "clock.h"

uint64_t cs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double cs_now(void)
{
	return (double)cs_now_ns() / 1e9;
}
