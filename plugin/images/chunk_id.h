/* SPDX-License-Identifier: MIT */
/*
 * chunk_id.h - the identity of a chunk of GPU memory, "sha256-tree-4k" in the image format
 * (docs/image-format.md, "Chunk identity"): two chunks with the same id hold the same bytes.
 *
 * For a byte string of length len: n = ceil(len / 4096) leaves, the last one possibly short
 * (len 0: no leaf); L_i = SHA-256(leaf i); id = SHA-256(L_0 || ... || L_{n-1} || le64(len)).
 * The leaves are independent, so a GPU hashes them in parallel (engine/gpu_hash.h) and reaches
 * the same id. SHA-256 (OpenSSL's libcrypto) gives the collision resistance; the extents' XXH3
 * stays their fast integrity check.
 */
#ifndef CUDASTORE_CHUNK_ID_H
#define CUDASTORE_CHUNK_ID_H

#include <stddef.h>
#include <stdint.h>

#define CS_CHUNK_ID_LEN 32u
#define CS_CHUNK_LEAF	4096u

/* The id of len bytes at buf. 0, or -EINVAL (buf NULL with len > 0), -ENOMEM, -EIO (libcrypto). */
int cs_chunk_id(const void *buf, size_t len, uint8_t id[CS_CHUNK_ID_LEN]);

/*
 * The id from the leaves' digests already computed (nleaves * CS_CHUNK_ID_LEN bytes at leaves)
 * of a chunk of len bytes. 0, or -EINVAL when nleaves is not ceil(len / CS_CHUNK_LEAF), -ENOMEM,
 * -EIO (libcrypto).
 */
int cs_chunk_id_from_leaves(const uint8_t *leaves, size_t nleaves, uint64_t len, uint8_t id[CS_CHUNK_ID_LEN]);

/* The id as 64 lower-case hex digits and a NUL. */
void cs_chunk_id_hex(const uint8_t id[CS_CHUNK_ID_LEN], char hex[2 * CS_CHUNK_ID_LEN + 1]);

#endif /* CUDASTORE_CHUNK_ID_H */
