/* SPDX-License-Identifier: MIT */
/*
 * sha256_ref.h - SHA-256 written from FIPS 180-4 for the tests alone, a second construction that
 * shares no code with libcrypto, and the chunk id ("sha256-tree-4k") built on it.
 */
#ifndef CUDASTORE_TESTS_SHA256_REF_H
#define CUDASTORE_TESTS_SHA256_REF_H

#include <stddef.h>
#include <stdint.h>

void sha256_ref(const void *buf, size_t len, uint8_t out[32]);
/* SHA-256 of each 4096-byte leaf, then of the digests followed by le64(len) */
void sha256_ref_tree(const void *buf, size_t len, uint8_t out[32]);

#endif /* CUDASTORE_TESTS_SHA256_REF_H */
