// SPDX-License-Identifier: MIT
/*
 * gpu_hash.cu - the kernels behind gpu_hash.h: chunk ids "sha256-tree-4k" (images/chunk_id.h).
 *
 * The build turns this file into gpu_hash.ptx when nvcc is there (the PTX is kept in the tree,
 * so machines without the CUDA toolkit build too) and the engine loads it at run time with
 * cuModuleLoadData. The driver emulator (tests/emu/emu_kernel.c) recognises the two kernels by
 * name and runs the same work on the CPU, with the same parameters and grid.
 *
 * cs_sha256_leaves(data, len, chunk, leaves, nleaves): thread t (blockIdx.x * blockDim.x +
 *   threadIdx.x) < nleaves hashes leaf j = t % lpc of chunk c = t / lpc (lpc: leaves per full
 *   chunk, ceil(chunk / 4096)), the bytes [c * chunk + j * 4096, + 4096) of data cut at the
 *   chunk's end and at len, and writes its SHA-256 at leaves + 32 * t (digest bytes in order).
 * cs_sha256_roots(leaves, len, chunk, ids, nchunks): thread c < nchunks hashes chunk c's leaf
 *   digests (from leaves + 32 * c * lpc) followed by le64(its length) into ids + 32 * c.
 *
 * One thread per leaf: the 16 message words of a block are loaded as four 16-byte loads, the
 * schedule stays in 16 registers (every index known at compile time), the rounds are unrolled.
 */
#include <stdint.h>

#define LEAF 4096u

__constant__ uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__device__ __forceinline__ uint32_t rotr(uint32_t x, int n)
{
	return __funnelshift_r(x, x, n);
}

__device__ __forceinline__ uint32_t bswap(uint32_t x)
{
	return __byte_perm(x, 0, 0x0123);
}

__device__ __forceinline__ void sha_init(uint32_t h[8])
{
	h[0] = 0x6a09e667;
	h[1] = 0xbb67ae85;
	h[2] = 0x3c6ef372;
	h[3] = 0xa54ff53a;
	h[4] = 0x510e527f;
	h[5] = 0x9b05688c;
	h[6] = 0x1f83d9ab;
	h[7] = 0x5be0cd19;
}

/* one 64-byte block, w: its 16 big-endian words (overwritten by the schedule) */
__device__ __forceinline__ void compress(uint32_t h[8], uint32_t w[16])
{
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];

#pragma unroll
	for (int t = 0; t < 64; t++) {
		uint32_t wt, t1, t2;

		if (t < 16) {
			wt = w[t];
		} else {
			uint32_t w15 = w[(t + 1) & 15], w2 = w[(t + 14) & 15];
			uint32_t s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3);
			uint32_t s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);

			wt = w[t & 15] + s0 + w[(t + 9) & 15] + s1;
			w[t & 15] = wt;
		}
		t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + wt;
		t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += k;
}

/* a block from 16-byte aligned memory: four wide loads, through the read-only path */
__device__ __forceinline__ void load_block16(const uint8_t *p, uint32_t w[16])
{
	const uint4 *q = (const uint4 *)p;

#pragma unroll
	for (int i = 0; i < 4; i++) {
		uint4 v = __ldg(q + i);

		w[4 * i] = bswap(v.x);
		w[4 * i + 1] = bswap(v.y);
		w[4 * i + 2] = bswap(v.z);
		w[4 * i + 3] = bswap(v.w);
	}
}

/*
 * The block at offset off of a message of n bytes at p (n - off may be short or negative): its
 * bytes, the 0x80 after the message, zeros, and, when last, the length in bits in words 14-15.
 */
__device__ __forceinline__ void load_tail(const uint8_t *p, uint32_t n, uint32_t off, bool last, uint32_t w[16])
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		uint32_t word = 0;

#pragma unroll
		for (int b = 0; b < 4; b++) {
			uint32_t pos = off + 4 * i + b;
			uint32_t byte = pos < n ? p[pos] : pos == n ? 0x80 : 0;

			word = word << 8 | byte;
		}
		w[i] = word;
	}
	if (last) {
		w[14] = 0;
		w[15] = n * 8;
	}
}

__device__ __forceinline__ void store_digest(const uint32_t h[8], uint8_t *out)
{
	uint4 *o = (uint4 *)out;

	o[0] = make_uint4(bswap(h[0]), bswap(h[1]), bswap(h[2]), bswap(h[3]));
	o[1] = make_uint4(bswap(h[4]), bswap(h[5]), bswap(h[6]), bswap(h[7]));
}

/*
 * SHA-256 of n (<= 4096) bytes at p: one loop over the blocks, each loaded wide while whole and
 * aligned, else byte by byte with the padding (the last one or two), so compress() is inlined once
 */
__device__ void leaf_digest(const uint8_t *p, uint32_t n, uint32_t h[8])
{
	uint32_t w[16], nblocks = (n + 8) / 64 + 1;
	bool aligned = ((uintptr_t)p & 15) == 0;

	sha_init(h);
	for (uint32_t i = 0; i < nblocks; i++) {
		uint32_t off = 64 * i;

		if (aligned && off + 64 <= n)
			load_block16(p + off, w);
		else
			load_tail(p, n, off, i == nblocks - 1, w);
		compress(h, w);
	}
}

extern "C" __global__ void __launch_bounds__(256) cs_sha256_leaves(const uint8_t *data, uint64_t len, uint64_t chunk,
								   uint8_t *leaves, uint64_t nleaves)
{
	uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	uint64_t lpc = (chunk + LEAF - 1) / LEAF, c, j, start, end;
	uint32_t h[8];

	if (t >= nleaves)
		return;
	c = t / lpc;
	j = t % lpc;
	start = c * chunk + j * LEAF;
	end = c * chunk + chunk < len ? c * chunk + chunk : len;
	if (start >= end)
		return;
	leaf_digest(data + start, (uint32_t)(end - start < LEAF ? end - start : LEAF), h);
	store_digest(h, leaves + 32 * t);
}

/*
 * The last block of a root message: the odd leaf's digest (when nl is odd), le64(clen), 0x80,
 * zeros and the message's length in bits.
 */
__device__ __forceinline__ void root_tail(const uint8_t *p, uint64_t nl, uint64_t clen, uint32_t w[16])
{
	uint64_t bits = (32 * nl + 8) * 8;

#pragma unroll
	for (int i = 0; i < 16; i++)
		w[i] = 0;
	if (nl & 1) {
		const uint4 *q = (const uint4 *)p;
		uint4 a = q[0], b = q[1];

		w[0] = bswap(a.x), w[1] = bswap(a.y), w[2] = bswap(a.z), w[3] = bswap(a.w);
		w[4] = bswap(b.x), w[5] = bswap(b.y), w[6] = bswap(b.z), w[7] = bswap(b.w);
		w[8] = bswap((uint32_t)clen);
		w[9] = bswap((uint32_t)(clen >> 32));
		w[10] = 0x80000000u;
	} else {
		w[0] = bswap((uint32_t)clen);
		w[1] = bswap((uint32_t)(clen >> 32));
		w[2] = 0x80000000u;
	}
	w[14] = (uint32_t)(bits >> 32);
	w[15] = (uint32_t)bits;
}

extern "C" __global__ void __launch_bounds__(128) cs_sha256_roots(const uint8_t *leaves, uint64_t len, uint64_t chunk,
								  uint8_t *ids, uint64_t nchunks)
{
	uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	uint64_t lpc = (chunk + LEAF - 1) / LEAF, clen, nl, i;
	const uint8_t *p;
	uint32_t h[8], w[16];

	if (c >= nchunks)
		return;
	clen = len - c * chunk < chunk ? len - c * chunk : chunk;
	nl = (clen + LEAF - 1) / LEAF;
	p = leaves + 32 * c * lpc;
	sha_init(h);
	/* two leaf digests a block, then the last block */
	for (i = 0; i <= nl / 2; i++) {
		if (2 * i + 2 <= nl)
			load_block16(p + 64 * i, w);
		else
			root_tail(p + 64 * i, nl, clen, w);
		compress(h, w);
	}
	store_digest(h, ids + 32 * c);
}
