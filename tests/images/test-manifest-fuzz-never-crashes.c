// SPDX-License-Identifier: MIT
/* test-manifest-fuzz-never-crashes - 10,000 mutated manifests decode to 0 or -errno, never a crash. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "unit.h"

#define ITERATIONS 10000
#define SLACK	   64 /* room for inserted bytes */

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static void set_len(uint8_t *b, size_t len)
{
	uint32_t n = (uint32_t)(len - 16);

	for (int i = 0; i < 4; i++)
		b[4 + i] = (uint8_t)(n >> (8 * i));
}

/* Mutate b (len bytes, capacity len + SLACK); returns the new length. Most kinds re-hash so
 * that the mutation reaches the protobuf parser and the field checks behind the frame. */
static size_t mutate(uint8_t *b, size_t len)
{
	size_t plen = len - 16, at = 16 + rng_below(plen), n;
	int kind = (int)rng_below(7);

	switch (kind) {
	case 0: /* flip 1..4 bits */
		for (int i = 1 + (int)rng_below(4); i > 0; i--)
			b[16 + rng_below(plen)] ^= (uint8_t)(1u << rng_below(8));
		break;
	case 1: /* random bytes */
		for (int i = 1 + (int)rng_below(3); i > 0; i--)
			b[16 + rng_below(plen)] = (uint8_t)rng();
		break;
	case 2: /* truncate the payload */
		len = at;
		break;
	case 3: /* insert random bytes */
		n = 1 + rng_below(SLACK);
		memmove(b + at + n, b + at, len - at);
		for (size_t i = 0; i < n; i++)
			b[at + i] = (uint8_t)rng();
		len += n;
		break;
	case 4: /* delete a span */
		n = 1 + rng_below(len - at);
		memmove(b + at, b + at + n, len - at - n);
		len -= n;
		break;
	case 5: /* small varints become huge: set a byte's continuation bit */
		b[at] |= 0x80;
		break;
	default: /* header damage, not re-hashed */
		b[rng_below(16)] ^= (uint8_t)(1u << rng_below(8));
		return len;
	}
	set_len(b, len);
	unit_rehash(b, len);
	return len;
}

struct tally {
	unsigned accepted, refused, bad_ret, bad_invariant, bad_reencode;
	char first[512];
};

/* A decoded manifest must re-encode and decode to the same thing (the encoder writes our minor). */
static bool reencodes(const struct cs_manifest *m)
{
	struct cs_manifest *again = calloc(1, sizeof(*again));
	char why[256], err[512];
	bool same = false;
	size_t len;
	void *buf;

	if (again && !cs_manifest_encode(m, &buf, &len)) {
		if (!cs_manifest_decode(buf, len, again, err, sizeof(err))) {
			again->format_minor = m->format_minor;
			same = unit_manifest_equal(m, again, why, sizeof(why));
		}
		free(buf);
	}
	cs_manifest_free(again);
	free(again);
	return same;
}

static void one(const uint8_t *good, size_t glen, uint8_t *b, struct tally *t, unsigned iter)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	char err[512] = "", why[256] = "";
	size_t len;
	int ret;

	memcpy(b, good, glen);
	len = mutate(b, glen);
	ret = cs_manifest_decode(b, len, m, err, sizeof(err));
	if (ret == 0) {
		t->accepted++;
		if (!unit_manifest_invariants(m, why, sizeof(why))) {
			if (!t->bad_invariant++)
				snprintf(t->first, sizeof(t->first), "iteration %u: invariant %s", iter, why);
		} else if (!reencodes(m)) {
			if (!t->bad_reencode++)
				snprintf(t->first, sizeof(t->first), "iteration %u: re-encode differs", iter);
		}
	} else if (ret < 0 && ret >= -4095 && *err && m->ndev == 0) {
		t->refused++;
	} else if (!t->bad_ret++) {
		snprintf(t->first, sizeof(t->first), "iteration %u: returned %d, err \"%s\"", iter, ret, err);
	}
	cs_manifest_free(m);
	free(m);
}

int main(void)
{
	static const unsigned shapes[] = {1, 2, 3};
	const char *seed = getenv("CS_FUZZ_SEED");
	struct tally t = {0};
	void *good[4];
	size_t glen[4], max = 0;
	struct cs_manifest *s = calloc(1, sizeof(*s));
	uint8_t *b;

	tap_plan(5);
	rng_state = seed ? strtoull(seed, NULL, 0) : 0x5eed1234abcdull;
	tap_diag("seed 0x%" PRIx64 " (set CS_FUZZ_SEED to replay)", rng_state);
	for (int i = 0; i < 4; i++) {
		unit_sample(s, i < 3 ? shapes[i] : 0);
		if (i == 3)
			s->mode = CS_MODE_DRIVER;
		if (cs_manifest_encode(s, &good[i], &glen[i]))
			tap_bail("cannot encode sample %d", i);
		max = glen[i] > max ? glen[i] : max;
		cs_manifest_free(s);
	}
	b = malloc(max + SLACK);
	if (!b)
		tap_bail("out of memory");
	for (unsigned it = 0; it < ITERATIONS; it++) {
		/* the 1-device sample most often: its payload is mostly fields, not hash values */
		int k = it % 8 < 5 ? 0 : (int)(it % 8) - 5 + 1;

		one(good[k], glen[k], b, &t, it);
	}
	tap_diag("%u accepted, %u refused", t.accepted, t.refused);
	if (*t.first)
		tap_diag("first problem: %s", t.first);
	tap_ok(t.bad_ret == 0, "every call returned 0 or -errno with a message (%u did not)", t.bad_ret);
	tap_ok(t.bad_invariant == 0, "every accepted manifest keeps the decoder's invariants (%u did not)",
	       t.bad_invariant);
	tap_ok(t.bad_reencode == 0, "every accepted manifest re-encodes to itself (%u did not)",
	       t.bad_reencode);
	tap_ok(t.refused > ITERATIONS / 2, "most mutations are refused (%u)", t.refused);
	tap_ok(t.accepted > 0, "some mutations (hash values, ids) are still valid manifests (%u)",
	       t.accepted);
	for (int i = 0; i < 4; i++)
		free(good[i]);
	free(b);
	free(s);
	return tap_done();
}
