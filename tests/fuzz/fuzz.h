/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what every fuzz target (tests/fuzz/fuzz-*.c) provides: the libFuzzer entry point and,
 * for the replay driver (fuzz-replay.c) built from the same target by any compiler, its name,
 * one input run and its cleanup. A broken property abort()s in both.
 */
#ifndef CUDASTORE_FUZZ_H
#define CUDASTORE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the target's name: its corpus is tests/fuzz/corpus/<name>, its crashes tests/fuzz/regressions/<name> */
extern const char cs_fuzz_name[];
/* Runs one input; abort()s when a property breaks. */
int cs_fuzz_one(const uint8_t *data, size_t size);
/* Removes what the target made (work directories); also done at exit. */
void cs_fuzz_cleanup(void);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reports a broken property as "fuzz-<name>: property broken: what[: detail]" and abort()s. */
static inline void cs_fuzz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz-%s: property broken: %s%s%s\n", cs_fuzz_name, what, detail ? ": " : "",
		detail ? detail : "");
	abort();
}

/* Makes a fresh work directory "$TMPDIR/cs-fuzz.XXXXXX" (/tmp when TMPDIR is unset or long) in work. */
static inline void cs_fuzz_mkdtemp(char *work, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(work, len, "%s/cs-fuzz.XXXXXX", tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(work))
		cs_fuzz_fail("mkdtemp", work);
}

#endif
