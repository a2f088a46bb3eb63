// SPDX-License-Identifier: MIT
/*
 * engine_chunk.c - what the engine computes over a chunk's bytes: zero test and XXH3-64.
 *
 * XXH3 is used header-only (XXH_INLINE_ALL), so there is no link dependency on libxxhash.
 */
#include <stdint.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "engine_priv.h"

/*
 * Most non-zero chunks differ from zero in their first bytes, so test a prefix first; then
 * memcmp(p, p + 64, len - 64) compares the buffer with itself shifted by 64 bytes, which is
 * true exactly when every 64-byte block equals the (zero) first one - and memcmp is the
 * fastest vectorised loop libc has.
 */
bool eng_is_zero(const void *buf, size_t len)
{
	static const unsigned char zero[64];
	const unsigned char *p = buf;

	if (len <= sizeof(zero))
		return memcmp(p, zero, len) == 0;
	if (memcmp(p, zero, sizeof(zero)))
		return false;
	return memcmp(p, p + sizeof(zero), len - sizeof(zero)) == 0;
}

uint64_t eng_hash_sse2(const void *buf, size_t len)
{
	return XXH3_64bits(buf, len);
}

/* XXH3-64 of a chunk: the AVX2 build (engine_hash_avx2.c) where the CPU has AVX2 */
uint64_t eng_hash(const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2"))
		return eng_hash_avx2(buf, len);
#endif
	return eng_hash_sse2(buf, len);
}

/* XXH3 of len zero bytes, without a len-sized buffer (streaming gives the same value). */
uint64_t eng_hash_zeros(uint64_t len)
{
	static const unsigned char zero[64 << 10];
	XXH3_state_t st;

	if (len <= sizeof(zero))
		return XXH3_64bits(zero, (size_t)len);
	XXH3_64bits_reset(&st);
	while (len) {
		size_t n = len < sizeof(zero) ? (size_t)len : sizeof(zero);

		XXH3_64bits_update(&st, zero, n);
		len -= n;
	}
	return XXH3_64bits_digest(&st);
}

_Static_assert(sizeof(XXH3_state_t) <= sizeof(((struct eng_hstate *)0)->opaque), "hash state fits");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "hash state alignment");

void eng_hstate_reset(struct eng_hstate *h)
{
	XXH3_64bits_reset((XXH3_state_t *)h->opaque);
}

void eng_hstate_update(struct eng_hstate *h, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		eng_hstate_update_avx2(h, buf, len);
		return;
	}
#endif
	XXH3_64bits_update((XXH3_state_t *)h->opaque, buf, len);
}

uint64_t eng_hstate_digest(struct eng_hstate *h)
{
	return XXH3_64bits_digest((XXH3_state_t *)h->opaque);
}

int eng_pieces(const char *buf, size_t len, bool hash_first, int (*move)(void *arg, size_t at, size_t n),
	       void *arg, uint64_t *hash)
{
	struct eng_hstate h;
	size_t done = 0;
	int ret;

	if (hash)
		eng_hstate_reset(&h);
	while (done < len) {
		size_t n = len - done < ENG_PIECE ? len - done : ENG_PIECE;

		if (hash && hash_first)
			eng_hstate_update(&h, buf + done, n);
		ret = move(arg, done, n);
		if (ret)
			return ret;
		if (hash && !hash_first)
			eng_hstate_update(&h, buf + done, n);
		done += n;
	}
	if (hash)
		*hash = eng_hstate_digest(&h);
	return 0;
}
