// SPDX-License-Identifier: MIT
/*
 * engine_hash_avx2.c - XXH3-64 built for AVX2, chosen at run time by eng_hash() on CPUs that
 * have it. The package is built for baseline x86-64 (SSE2), where XXH3 runs at about half the
 * speed; restore hashes every chunk before its H2D, so the hash is on the critical path.
 * XXH3's value does not depend on the instruction set: both builds give the same hashes
 * (tests/engine/test-engine-hash-builds-agree).
 */
#include <stddef.h>
#include <stdint.h>

#include "engine_priv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2")
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <immintrin.h> /* xxhash.h includes it only when __AVX2__ is set */
#include <xxhash.h>

uint64_t eng_hash_avx2(const void *buf, size_t len)
{
	return XXH3_64bits(buf, len);
}

/* the state is the baseline build's XXH3_state_t (same layout); only the update is vectorised */
void eng_hstate_update_avx2(struct eng_hstate *h, const void *buf, size_t len)
{
	XXH3_64bits_update((XXH3_state_t *)h->opaque, buf, len);
}
#endif
