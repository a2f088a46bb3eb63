/* SPDX-License-Identifier: MIT */
/* clock.h - the monotonic clock every timing of the plugin, the helper and the command reads */
#ifndef CUDASTORE_CLOCK_H
#define CUDASTORE_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: for deadlines and durations, never for dates */
uint64_t cs_now_ns(void);
/* the same clock in seconds */
double cs_now(void);

#endif /* CUDASTORE_CLOCK_H */
