/* SPDX-License-Identifier: MIT */
/*
 * test-chunk-id-sha256-vectors-and-tree - chunk ids ("sha256-tree-4k", chunk_id.h) against the
 * published SHA-256 examples (FIPS 180-2, appendix B: "abc", the 448-bit message, one million
 * 'a') and against the tree built by a second construction: the test's own SHA-256
 * (sha256_ref.c, itself checked against the same examples) and sha256sum(1) run on files the
 * test writes. Lengths: 0, 1, 4095, 4096, 4097, 4 MiB and 4 MiB + 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk_id.h"
#include "sha256_ref.h"
#include "../tap.h"
#include "unit.h"

#define MSG448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define MIB4   (4u << 20)

static const char *const HEX_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char *const HEX_448 = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char *const HEX_MILLION = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

static void unhex(const char *hex, uint8_t out[32])
{
	for (int i = 0; i < 32; i++)
		sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

static int same_hex(const uint8_t d[32], const char *hex)
{
	char got[2 * CS_CHUNK_ID_LEN + 1];

	cs_chunk_id_hex(d, got);
	if (strcmp(got, hex))
		tap_diag("got %s, want %s", got, hex);
	return !strcmp(got, hex);
}

/* SHA-256(digest || le64(len)): the root of a one-leaf chunk whose leaf digest is published */
static void one_leaf_root(const char *leaf_hex, uint64_t len, uint8_t out[32])
{
	uint8_t msg[40];

	unhex(leaf_hex, msg);
	for (int i = 0; i < 8; i++)
		msg[32 + i] = (uint8_t)(len >> (8 * i));
	sha256_ref(msg, sizeof(msg), out);
}

/* a published single-leaf example: the library's id is the root over the published digest */
static void check_published_leaf(const char *name, const char *msg, const char *leaf_hex)
{
	size_t len = strlen(msg);
	uint8_t ref[32], leaf_d[32], id[32], from[32];

	sha256_ref(msg, len, ref);
	tap_ok(same_hex(ref, leaf_hex), "test's own SHA-256 of %s is the published digest", name);
	one_leaf_root(leaf_hex, len, ref);
	unhex(leaf_hex, leaf_d);
	tap_ok(cs_chunk_id(msg, len, id) == 0 && !memcmp(id, ref, 32),
	       "cs_chunk_id(%s) = SHA-256(published digest || le64(%zu))", name, len);
	tap_ok(cs_chunk_id_from_leaves(leaf_d, 1, len, from) == 0 && !memcmp(from, id, 32),
	       "cs_chunk_id_from_leaves(published digest of %s) = cs_chunk_id", name);
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ seed;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (uint8_t)(x >> 24);
	}
}

/* the id of len bytes equals the test's tree, also when the leaves' digests come from it */
static void check_tree(const uint8_t *buf, size_t len)
{
	size_t n = (len + CS_CHUNK_LEAF - 1) / CS_CHUNK_LEAF;
	uint8_t ref[32], id[32], from[32];
	uint8_t *leaves = malloc(32 * n + 1);

	if (!leaves)
		tap_bail("out of memory");
	sha256_ref_tree(buf, len, ref);
	for (size_t i = 0; i < n; i++)
		sha256_ref(buf + CS_CHUNK_LEAF * i,
			   len - CS_CHUNK_LEAF * i < CS_CHUNK_LEAF ? len - CS_CHUNK_LEAF * i : CS_CHUNK_LEAF,
			   leaves + 32 * i);
	tap_ok(cs_chunk_id(buf, len, id) == 0 && !memcmp(id, ref, 32),
	       "len %zu (%zu leaves): cs_chunk_id = tree of the test's SHA-256", len, n);
	tap_ok(cs_chunk_id_from_leaves(leaves, n, len, from) == 0 && !memcmp(from, ref, 32),
	       "len %zu: cs_chunk_id_from_leaves = the same id", len);
	free(leaves);
}

/* sha256sum of a file written with len bytes; 0 or -1 */
static int sha256sum_of(const char *dir, const char *name, const void *p, size_t len, uint8_t out[32])
{
	char path[512], cmd[600], hex[65] = "";
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%64s", hex) == 1 && strlen(hex) == 64;
	if (pclose(f) != 0 || !ok)
		return -1;
	unhex(hex, out);
	return 0;
}

/* the 4097-byte tree built with sha256sum alone: two leaf files, then the root's input file */
static void check_with_sha256sum(const uint8_t *buf)
{
	char dir[256];
	uint8_t root_in[2 * 32 + 8], want[32], id[32], million[32];
	const size_t len = CS_CHUNK_LEAF + 1;
	char *a = malloc(1000000);
	int fd, ok;

	if (!a)
		tap_bail("out of memory");
	if (system("sha256sum --version >/dev/null 2>&1") != 0) {
		tap_skip(2, "sha256sum is not installed");
		free(a);
		return;
	}
	fd = unit_tmpdir(dir, sizeof(dir));
	close(fd);
	memset(a, 'a', 1000000);
	tap_ok(sha256sum_of(dir, "million", a, 1000000, million) == 0 && same_hex(million, HEX_MILLION),
	       "sha256sum of one million 'a' is the published digest");
	ok = sha256sum_of(dir, "leaf0", buf, CS_CHUNK_LEAF, root_in) == 0 &&
	     sha256sum_of(dir, "leaf1", buf + CS_CHUNK_LEAF, 1, root_in + 32) == 0;
	for (int i = 0; i < 8; i++)
		root_in[64 + i] = (uint8_t)((uint64_t)len >> (8 * i));
	ok = ok && sha256sum_of(dir, "root", root_in, sizeof(root_in), want) == 0;
	tap_ok(ok && cs_chunk_id(buf, len, id) == 0 && !memcmp(id, want, 32),
	       "len 4097: cs_chunk_id = the tree built with sha256sum");
	unit_rmtree(dir);
	free(a);
}

static void check_refusals_and_hex(void)
{
	uint8_t leaves[64] = { 0 }, id[32], ref[32], zero8[8] = { 0 };
	char hex[65];

	tap_ok(cs_chunk_id_from_leaves(leaves, 1, CS_CHUNK_LEAF + 1, id) == -EINVAL,
	       "from_leaves: 1 leaf for 4097 bytes refused (-EINVAL)");
	tap_ok(cs_chunk_id_from_leaves(leaves, 2, CS_CHUNK_LEAF, id) == -EINVAL,
	       "from_leaves: 2 leaves for 4096 bytes refused (-EINVAL)");
	tap_ok(cs_chunk_id(NULL, 1, id) == -EINVAL, "cs_chunk_id(NULL, 1) refused (-EINVAL)");
	sha256_ref(zero8, sizeof(zero8), ref);
	tap_ok(cs_chunk_id(NULL, 0, id) == 0 && !memcmp(id, ref, 32) &&
		   cs_chunk_id_from_leaves(NULL, 0, 0, leaves) == 0 && !memcmp(leaves, ref, 32),
	       "len 0: no leaf, the id is SHA-256(le64(0)) both ways");
	for (int i = 0; i < 32; i++)
		id[i] = (uint8_t)(i * 0x11);
	cs_chunk_id_hex(id, hex);
	tap_ok(strlen(hex) == 64 && !strncmp(hex, "00112233445566778899aabbccddeeff", 32),
	       "hex: lower case, two digits a byte (%.16s...)", hex);
}

/* one byte changed, or two leaves swapped, changes the id */
static void check_sensitivity(uint8_t *buf)
{
	uint8_t a[32], b[32], c[32], tmp[CS_CHUNK_LEAF];

	cs_chunk_id(buf, MIB4, a);
	buf[MIB4 - 1] ^= 1;
	cs_chunk_id(buf, MIB4, b);
	buf[MIB4 - 1] ^= 1;
	memcpy(tmp, buf, CS_CHUNK_LEAF);
	memcpy(buf, buf + CS_CHUNK_LEAF, CS_CHUNK_LEAF);
	memcpy(buf + CS_CHUNK_LEAF, tmp, CS_CHUNK_LEAF);
	cs_chunk_id(buf, MIB4, c);
	memcpy(buf + CS_CHUNK_LEAF, buf, CS_CHUNK_LEAF);
	memcpy(buf, tmp, CS_CHUNK_LEAF);
	tap_ok(memcmp(a, b, 32) && memcmp(a, c, 32),
	       "4 MiB: the last byte flipped or the first two leaves swapped: other ids");
}

int main(void)
{
	static const size_t lens[] = { 0,    1,	      CS_CHUNK_LEAF - 1, CS_CHUNK_LEAF, CS_CHUNK_LEAF + 1,
				       MIB4, MIB4 + 1 };
	uint8_t *buf = malloc(MIB4 + 1), ref[32], id[32];
	char *million = malloc(1000000);

	if (!buf || !million)
		tap_bail("out of memory");
	tap_plan(2 * 3 + 2 + 2 * 7 + 2 + 5 + 1);
	check_published_leaf("\"abc\"", "abc", HEX_ABC);
	check_published_leaf("the 448-bit message", MSG448, HEX_448);
	memset(million, 'a', 1000000);
	sha256_ref(million, 1000000, ref);
	tap_ok(same_hex(ref, HEX_MILLION), "test's own SHA-256 of one million 'a' is the published digest");
	sha256_ref_tree(million, 1000000, ref);
	tap_ok(cs_chunk_id(million, 1000000, id) == 0 && !memcmp(id, ref, 32),
	       "one million 'a' (245 leaves, the last 576 bytes): cs_chunk_id = the test's tree");
	fill(buf, MIB4 + 1, 7);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		check_tree(buf, lens[i]);
	check_with_sha256sum(buf);
	check_refusals_and_hex();
	check_sensitivity(buf);
	free(buf);
	free(million);
	return tap_done();
}
