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

/* the target's name: its corpus is tests/fuzz/corpus/<name>, its crashes tests/fuzz/regressions/<name> */
extern const char cs_fuzz_name[];
/* Runs one input; abort()s when a property breaks. */
int cs_fuzz_one(const uint8_t *data, size_t size);
/* Removes what the target made (work directories); also done at exit. */
void cs_fuzz_cleanup(void);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
