/* SPDX-License-Identifier: MIT */
/*
 * errmsg.h - the one formatter for "what went wrong" strings that functions hand back through
 * an (err, errlen) pair for their caller to log. err may be NULL or errlen 0: nothing is written.
 */
#ifndef CUDASTORE_ERRMSG_H
#define CUDASTORE_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline void __attribute__((format(printf, 3, 4)))
cs_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* cs_seterr, then evaluates to ret: "return cs_fail(-EINVAL, err, len, "...", ...);" */
#define cs_fail(ret, err, errlen, ...) (cs_seterr(err, errlen, __VA_ARGS__), (ret))

#endif /* CUDASTORE_ERRMSG_H */
