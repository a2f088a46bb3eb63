/* SPDX-License-Identifier: MIT */
/* le.h - little-endian integers in the image files' frames (manifest and index) */
#ifndef CUDASTORE_LE_H
#define CUDASTORE_LE_H

#include <stdint.h>

static inline void cs_put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t cs_get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

#endif /* CUDASTORE_LE_H */
