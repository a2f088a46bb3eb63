/* SPDX-License-Identifier: MIT */
/*
 * tap.h - minimal TAP producer for C tests run by automake's tap-driver.sh.
 *
 *   tap_plan(n);  tap_ok(cond, "fmt", ...);  tap_skip_all("why");  return tap_done();
 *   TAP_CHECK(cond, "fmt", ...) reports and returns the condition (for early exits).
 * Every check prints "ok N - ..." or "not ok N - ..." with the file:line of a failure.
 */
#ifndef CUDASTORE_TAP_H
#define CUDASTORE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed, tap_planned;

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_ok_(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}
#define tap_ok(cond, ...) tap_ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline void tap_skip(int count, const char *why)
{
	for (int i = 0; i < count; i++)
		printf("ok %d # SKIP %s\n", ++tap_n, why);
	fflush(stdout);
}

static inline void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(0);
}

static inline void tap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(99);
}

/* Call last: pads a short run with failures so a crash-free early return cannot pass. */
static inline int tap_done(void)
{
	while (tap_planned && tap_n < tap_planned)
		tap_ok_(0, __FILE__, __LINE__, "test did not run (plan %d, ran %d)", tap_planned, tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* CUDASTORE_TAP_H */
