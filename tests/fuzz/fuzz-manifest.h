/* SPDX-License-Identifier: MIT */
/* fuzz-manifest.h - the manifest fuzz target's entry points (fuzz-manifest.c). */
#ifndef CUDASTORE_FUZZ_MANIFEST_H
#define CUDASTORE_FUZZ_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input; abort()s when a property of the decoder or the extent checks breaks. */
int cs_fuzz_manifest_one(const uint8_t *data, size_t size);
/* Removes the target's work directory (also done at exit). */
void cs_fuzz_manifest_cleanup(void);

#endif
