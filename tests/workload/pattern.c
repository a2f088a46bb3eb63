// SPDX-License-Identifier: MIT
/*
 * pattern.c - the deterministic contents of every workload buffer.
 *
 * Byte o of (seed, dev, buf) is byte (o % 8) of a 64-bit mix of (seed, dev, buf, o / 8),
 * except in the whole 1 MiB blocks chosen to stay zero: with P percent, the last
 * floor(n * P / 100) of the n whole blocks are zero, one contiguous run like an idle pool at the
 * end of a buffer (so chunked copies see whole zero chunks). A trailing partial block is never zero.
 */
#include <string.h>

#include "workload.h"

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

bool wl_block_is_zero(const struct wl_pattern *p, size_t block)
{
	size_t whole = p->size / WL_BLOCK;
	unsigned long long pct = (unsigned long long)p->zero_percent;

	if (block >= whole || !pct)
		return false;
	return block >= whole - whole * pct / 100;
}

static uint64_t word(const struct wl_pattern *p, int dev, int buf, uint64_t idx)
{
	uint64_t key = mix(p->seed ^ ((uint64_t)dev << 56) ^ ((uint64_t)buf << 48));

	return mix(key ^ idx);
}

/* pattern bytes of [off, off+len), ignoring zero blocks */
static void fill_words(const struct wl_pattern *p, int dev, int buf, size_t off, unsigned char *out,
		       size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t o = off + i, skip = o % 8, n = 8 - skip;
		uint64_t w = word(p, dev, buf, o / 8);

		if (n > len - i)
			n = len - i;
		memcpy(out + i, (unsigned char *)&w + skip, n);
		i += n;
	}
}

void wl_expect(const struct wl_pattern *p, int dev, int buf, size_t off, unsigned char *out, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t o = off + done, block = o / WL_BLOCK, n = WL_BLOCK - o % WL_BLOCK;

		if (n > len - done)
			n = len - done;
		if (wl_block_is_zero(p, block))
			memset(out + done, 0, n);
		else
			fill_words(p, dev, buf, o, out + done, n);
		done += n;
	}
}

ssize_t wl_check(const struct wl_pattern *p, int dev, int buf, size_t off, const unsigned char *got,
		 size_t len, unsigned char *scratch)
{
	wl_expect(p, dev, buf, off, scratch, len);
	if (!memcmp(scratch, got, len))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (scratch[i] != got[i])
			return (ssize_t)i;
	return -1;
}
