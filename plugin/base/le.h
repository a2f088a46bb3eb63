/* SPDX-License-Identifier: MIT */
/*
 * le.h - unsigned integers of n bytes (1 to 8) stored little-endian in byte arrays, as the image
 * formats keep them: a frame's length and checksum, a chunk id's length, a chunk's XXH3 attribute.
 */
#ifndef CUDASTORE_LE_H
#define CUDASTORE_LE_H

#include <stdint.h>

static inline void cs_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t cs_get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

#endif /* CUDASTORE_LE_H */
