// SPDX-License-Identifier: MIT
/*
 * test-engine-hash-builds-agree: the AVX2 build of XXH3-64 that eng_hash() picks on CPUs that
 * have AVX2 gives the same value as the baseline build for every length class
 * XXH3 treats differently (0-16, 17-128, 129-240, stripes, blocks, a full 16 MiB chunk) and
 * unaligned starts, and so does the streaming hash fed in uneven pieces (buffered I/O hashes a
 * chunk piece by piece), so images hash the same whichever machine dumps or restores them.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"
#include "tap.h"

#define BIG (16u << 20)

static const size_t lens[] = { 0,   1,	 3,    4,    8,	   9,	 16,	17,    64,	128,	 129, 200,
			       240, 241, 1023, 1024, 1025, 4096, 65536, 65537, 1000003, BIG - 1, BIG };
#define NLENS (sizeof(lens) / sizeof(lens[0]))

/* the streaming hash of len bytes fed in pieces of 1, 7, 255, 4096, 65537, ... bytes */
static uint64_t streamed(const unsigned char *p, size_t len)
{
	static const size_t step[] = { 1, 7, 255, 4096, 65537, 262144 };
	struct eng_hstate h;
	size_t done = 0, k = 0;

	eng_hstate_reset(&h);
	while (done < len) {
		size_t n = len - done < step[k] ? len - done : step[k];

		eng_hstate_update(&h, p + done, n);
		done += n;
		k = (k + 1) % (sizeof(step) / sizeof(step[0]));
	}
	return eng_hstate_digest(&h);
}

int main(void)
{
	unsigned char *buf = malloc(BIG + 64);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i, off, bad;

	if (!buf)
		tap_bail("out of memory");
#if defined(__x86_64__) && defined(__GNUC__)
	for (i = 0; i < BIG + 64; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)x;
	}
	tap_plan((int)(4 * NLENS + 1));
	for (off = 0; off < 2; off++) {
		for (i = 0; i < NLENS; i++) {
			const unsigned char *p = buf + off * 7;
			uint64_t want = eng_hash_sse2(p, lens[i]);

			if (__builtin_cpu_supports("avx2"))
				tap_ok(eng_hash_avx2(p, lens[i]) == want,
				       "%zu bytes at offset %zu: AVX2 and SSE2 hashes agree", lens[i],
				       off * 7);
			else
				tap_skip(1, "this CPU has no AVX2");
			tap_ok(streamed(p, lens[i]) == want,
			       "%zu bytes at offset %zu: the streaming hash in uneven pieces agrees", lens[i],
			       off * 7);
		}
	}
	for (bad = 0, i = 0; i < 4096; i++)
		bad += eng_hash(buf + i, 300 + i) != eng_hash_sse2(buf + i, 300 + i);
	tap_ok(bad == 0, "eng_hash() equals the baseline for 4096 lengths and starts (%zu differ)", bad);
#else
	tap_skip_all("not an x86-64 GCC build");
#endif
	free(buf);
	return tap_done();
}
