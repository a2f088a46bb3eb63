// SPDX-License-Identifier: MIT
/* test-manifest-rejects-corrupt - every broken frame or field is refused with a message naming it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "unit.h"

static struct cs_manifest sample;
static uint64_t big_hash[2048];
static uint8_t uuid15[15], uuid17[17];
static char long_version[40];
static char *stripes_ok[] = {(char *)"cudastore-4242-gpu0.s1.ext", (char *)"cudastore-4242-gpu0.s2.ext"};
static char *stripes_unsafe[] = {(char *)"../gpu0.s1.ext"};
static char *stripes_dup[] = {(char *)"cudastore-4242-gpu1.ext"};
static char *stripes_many[] = {(char *)"a1", (char *)"a2", (char *)"a3", (char *)"a4", (char *)"a5", (char *)"a6"};

#define MUT(name, body)                                                                                      \
	static void name(struct unit_pb *p)                                                                  \
	{                                                                                                    \
		CsManifest *pm = &p->pm;                                                                     \
		CsDevice *d0 = &p->pd[0], *d1 = &p->pd[1];                                                   \
		(void)pm;                                                                                    \
		(void)d0;                                                                                    \
		(void)d1;                                                                                    \
		body;                                                                                        \
	}

MUT(m_none, )
MUT(m_major_newer, pm->format_major = 2; pm->format_minor = 3)
MUT(m_major_zero, pm->format_major = 0)
MUT(m_major_missing, pm->has_format_major = 0)
MUT(m_minor_missing, pm->has_format_minor = 0)
MUT(m_mode_unknown, pm->mode = (CsManifest__Mode)3)
MUT(m_mode_missing, pm->has_mode = 0)
MUT(m_driver_with_devices, pm->mode = CS_MANIFEST__MODE__DRIVER)
MUT(m_custom_no_devices, pm->n_devices = 0)
MUT(m_too_many_devices, for (int i = 3; i <= CS_MAX_DEVICES; i++) p->pdp[i] = d0;
    pm->n_devices = CS_MAX_DEVICES + 1)
MUT(m_pid_zero, pm->pid = 0)
MUT(m_nspid_negative, pm->ns_pid = -1)
MUT(m_nspid_missing, pm->has_ns_pid = 0)
MUT(m_driver_version_negative, pm->driver_version = -5)
MUT(m_created_missing, pm->has_created_unix_ns = 0)
MUT(m_version_long, memset(long_version, 'v', 39); pm->plugin_version = long_version)
MUT(m_version_missing, pm->plugin_version = NULL)
MUT(m_version_control, pm->plugin_version = (char *)"1.0\n")
MUT(m_uuid_missing, d0->has_uuid = 0)
MUT(m_uuid_short, d0->uuid.data = uuid15; d0->uuid.len = 15)
MUT(m_uuid_long, d1->uuid.data = uuid17; d1->uuid.len = 17)
MUT(m_ordinal_negative, d1->ordinal = -1)
MUT(m_ordinal_big, d1->ordinal = CS_MAX_DEVICES)
MUT(m_size_zero, d0->size = 0)
MUT(m_size_huge, d1->size = CS_MAX_DEVICE_BYTES + 1)
MUT(m_size_2_63, d1->size = 1ull << 63)
MUT(m_size_missing, d0->has_size = 0)
MUT(m_extent_missing, d1->extent = NULL)
MUT(m_chunk_not_pow2, d0->chunk_size = 100000)
MUT(m_chunk_small, d0->chunk_size = 32768)
MUT(m_chunk_big, d1->chunk_size = 1u << 31)
MUT(m_chunk_zero, d1->chunk_size = 0)
MUT(m_chunk_missing, d1->has_chunk_size = 0)
MUT(m_hash_short, d0->n_chunk_hash = 5)
MUT(m_hash_long, d0->chunk_hash = big_hash; d0->n_chunk_hash = 7)
MUT(m_hash_none, d1->n_chunk_hash = 0)
MUT(m_zero_long, d0->zero_chunks.len = 2)
MUT(m_zero_short, d1->zero_chunks.len = 0)
MUT(m_zero_missing, d1->has_zero_chunks = 0)
MUT(m_zero_padding, p->bits[0][0] |= 0x40)
MUT(m_zero_flip, p->bits[1][0] |= 0x01)
MUT(m_stored_off, d0->stored_bytes++)
MUT(m_stored_missing, d0->has_stored_bytes = 0)
MUT(m_dup_uuid, d1->uuid.data = d0->uuid.data)
MUT(m_dup_ordinal, d1->ordinal = d0->ordinal)
MUT(m_dup_extent, d1->extent = d0->extent)
MUT(m_stripes_ok, d0->stripe_extent = stripes_ok; d0->n_stripe_extent = 2)
MUT(m_stripes_v10, pm->format_minor = 0) /* a format 1.0 image: one file per device */
MUT(m_stripe_unsafe, d0->stripe_extent = stripes_unsafe; d0->n_stripe_extent = 1)
MUT(m_stripe_dup, d0->stripe_extent = stripes_dup; d0->n_stripe_extent = 1)
MUT(m_stripe_self, d1->stripe_extent = stripes_ok; d1->n_stripe_extent = 1; d0->stripe_extent = stripes_ok;
    d0->n_stripe_extent = 1)
MUT(m_stripes_many, d0->stripe_extent = stripes_many; d0->n_stripe_extent = 6)
MUT(m_total_off, pm->total_bytes++)
MUT(m_total_stored_off, pm->stored_bytes--)
MUT(m_total_missing, pm->has_total_bytes = 0)

struct pb_case {
	const char *what;
	void (*mut)(struct unit_pb *p);
	int ret;
	const char *expect[2]; /* substrings the error message must contain */
};

static const struct pb_case cases[] = {
    {"valid sample", m_none, 0, {"", ""}},
    {"newer major",
     m_major_newer,
     -EPROTONOSUPPORT,
     {"2.3, made by a newer cudastore", "upgrade the plugin"}},
    {"major 0", m_major_zero, -EBADMSG, {"format_major is 0", "1.x"}},
    {"no format_major", m_major_missing, -EBADMSG, {"format_major is missing", ""}},
    {"no format_minor", m_minor_missing, -EBADMSG, {"format_minor is missing", ""}},
    {"unknown mode", m_mode_unknown, -EBADMSG, {"mode is 3", "1 (custom) and 2 (driver)"}},
    {"no mode", m_mode_missing, -EBADMSG, {"mode is missing", ""}},
    {"driver mode with devices", m_driver_with_devices, -EBADMSG, {"3 devices", "driver mode allows 0..0"}},
    {"custom mode, no devices, totals left", m_custom_no_devices, -EBADMSG, {"total_bytes", "sum"}},
    {"too many devices", m_too_many_devices, -EBADMSG, {"65 devices", "0..64"}},
    {"pid 0", m_pid_zero, -EBADMSG, {"pid is 0", "> 0"}},
    {"ns_pid -1", m_nspid_negative, -EBADMSG, {"ns_pid is -1", "> 0"}},
    {"no ns_pid", m_nspid_missing, -EBADMSG, {"ns_pid is missing", ""}},
    {"negative driver_version", m_driver_version_negative, -EBADMSG, {"driver_version is -5", ">= 0"}},
    {"no created_unix_ns", m_created_missing, -EBADMSG, {"created_unix_ns is missing", ""}},
    {"39-byte plugin_version", m_version_long, -EBADMSG, {"plugin_version is 39 bytes", "limit is 31"}},
    {"no plugin_version", m_version_missing, -EBADMSG, {"plugin_version is missing", ""}},
    {"control character in plugin_version", m_version_control, -EBADMSG, {"plugin_version", "printable"}},
    {"no uuid", m_uuid_missing, -EBADMSG, {"devices[0].uuid is missing", ""}},
    {"15-byte uuid", m_uuid_short, -EBADMSG, {"devices[0].uuid is 15 bytes", "must be 16"}},
    {"17-byte uuid", m_uuid_long, -EBADMSG, {"devices[1].uuid is 17 bytes", "must be 16"}},
    {"ordinal -1", m_ordinal_negative, -EBADMSG, {"devices[1].ordinal is -1", "[0, 64)"}},
    {"ordinal 64", m_ordinal_big, -EBADMSG, {"devices[1].ordinal is 64", "[0, 64)"}},
    {"size 0", m_size_zero, -EBADMSG, {"devices[0].size is 0 bytes", "[1, 4398046511104]"}},
    {"size 4 TiB + 1", m_size_huge, -EBADMSG, {"devices[1].size is 4398046511105", "[1, 4398046511104]"}},
    {"size 2^63", m_size_2_63, -EBADMSG, {"size is 9223372036854775808", "4398046511104"}},
    {"no size", m_size_missing, -EBADMSG, {"devices[0].size is missing", ""}},
    {"no extent", m_extent_missing, -EBADMSG, {"devices[1].extent is missing", ""}},
    {"chunk_size not a power of two",
     m_chunk_not_pow2,
     -EBADMSG,
     {"devices[0].chunk_size is 100000", "power of two in [65536, 1073741824]"}},
    {"chunk_size 32 KiB", m_chunk_small, -EBADMSG, {"chunk_size is 32768", "[65536, 1073741824]"}},
    {"chunk_size 2 GiB", m_chunk_big, -EBADMSG, {"chunk_size is 2147483648", "[65536, 1073741824]"}},
    {"chunk_size 0", m_chunk_zero, -EBADMSG, {"devices[1].chunk_size is 0", ""}},
    {"no chunk_size", m_chunk_missing, -EBADMSG, {"devices[1].chunk_size is missing", ""}},
    {"one hash short", m_hash_short, -EBADMSG, {"devices[0].chunk_hash has 5 entries", "needs 6"}},
    {"one hash too many", m_hash_long, -EBADMSG, {"chunk_hash has 7 entries", "needs 6"}},
    {"no hashes", m_hash_none, -EBADMSG, {"devices[1].chunk_hash has 0 entries", "needs 3"}},
    {"zero bitmap too long", m_zero_long, -EBADMSG, {"devices[0].zero_chunks is 2 bytes", "6 chunks need 1"}},
    {"zero bitmap empty", m_zero_short, -EBADMSG, {"devices[1].zero_chunks is 0 bytes", "3 chunks need 1"}},
    {"no zero bitmap", m_zero_missing, -EBADMSG, {"devices[1].zero_chunks is missing", ""}},
    {"bitmap marks a chunk past the end", m_zero_padding, -EBADMSG, {"marks chunk 6", "only 6 exist"}},
    {"bitmap disagrees with stored_bytes",
     m_zero_flip,
     -EBADMSG,
     {"devices[1].stored_bytes is 3145728", "implies 2097152"}},
    {"stored_bytes off by one", m_stored_off, -EBADMSG, {"devices[0].stored_bytes", "bitmap implies"}},
    {"no stored_bytes", m_stored_missing, -EBADMSG, {"devices[0].stored_bytes is missing", ""}},
    {"duplicate uuid",
     m_dup_uuid,
     -EBADMSG,
     {"devices[0] and devices[1] have the same uuid", "GPU-10111213"}},
    {"duplicate ordinal", m_dup_ordinal, -EBADMSG, {"same ordinal (3)", ""}},
    {"duplicate extent", m_dup_extent, -EBADMSG, {"same extent (cudastore-4242-gpu0.ext)", ""}},
    {"format 1.1, device 0 in 3 files", m_stripes_ok, 0, {"", ""}},
    {"format 1.0 (no stripes field)", m_stripes_v10, 0, {"", ""}},
    {"unsafe stripe name", m_stripe_unsafe, -EBADMSG, {"devices[0].stripe_extent[0] \"../gpu0.s1.ext\"", "not a safe"}},
    {"stripe named like another device's extent", m_stripe_dup, -EBADMSG, {"names the file cudastore-4242-gpu1.ext twice", ""}},
    {"two devices share a stripe file", m_stripe_self, -EBADMSG, {"cudastore-4242-gpu0.s1.ext twice", ""}},
    {"7 files for 6 chunks", m_stripes_many, -EBADMSG, {"devices[0] has 7 extent files", "no more than its 6 chunks"}},
    {"total_bytes off", m_total_off, -EBADMSG, {"total_bytes is", "the devices sum to"}},
    {"stored_bytes total off", m_total_stored_off, -EBADMSG, {"manifest stored_bytes is", "sum to"}},
    {"no total_bytes", m_total_missing, -EBADMSG, {"total_bytes is missing", ""}},
};

/* Decode buf; check the result, that m is left empty on failure, and that err says why. */
static void expect_decode(const char *what, const void *buf, size_t len, int want, const char *e1,
			  const char *e2)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	char err[512] = "";
	int ret;

	ret = cs_manifest_decode(buf, len, m, err, sizeof(err));
	tap_ok(ret == want && (want == 0 || (m->ndev == 0 && *err)) && strstr(err, e1) && strstr(err, e2),
	       "%s: returns %d (want %d), says \"%s\"", what, ret, want, err);
	if (want && ret != want)
		tap_diag("expected \"%s\" and \"%s\"", e1, e2);
	cs_manifest_free(m);
	free(m);
}

static void run_pb_case(const struct pb_case *c)
{
	struct unit_pb *p = calloc(1, sizeof(*p));
	size_t len;
	void *buf;

	unit_pb_build(p, &sample);
	c->mut(p);
	if (unit_frame(&p->pm, &buf, &len))
		tap_bail("out of memory");
	expect_decode(c->what, buf, len, c->ret, c->expect[0], c->expect[1]);
	free(buf);
	free(p);
}

static void run_unsafe_names(void)
{
	static const char *const names[] = {
	    "../x",
	    "/etc/passwd",
	    "a/b",
	    ".hidden",
	    "",
	    "..",
	    "x\ny",
	    "a b",
	    "0123456789012345678901234567890123456789012345678901234567890123"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct unit_pb *p = calloc(1, sizeof(*p));
		char what[128];
		size_t len;
		void *buf;

		unit_pb_build(p, &sample);
		p->pd[1].extent = (char *)names[i];
		if (unit_frame(&p->pm, &buf, &len))
			tap_bail("out of memory");
		snprintf(what, sizeof(what), "unsafe extent name \"%.20s\"", names[i]);
		expect_decode(what, buf, len, -EBADMSG, "devices[1].extent", "is not a safe file name");
		free(buf);
		free(p);
	}
}

static void run_frame_cases(const uint8_t *good, size_t len)
{
	uint8_t *b = malloc(len + 8);
	int bad_trunc = 0, bad_flip = 0;

	for (size_t n = 0; n < len; n++) {
		struct cs_manifest *m = calloc(1, sizeof(*m));
		char err[512];

		if (cs_manifest_decode(good, n, m, err, sizeof(err)) != -EBADMSG)
			bad_trunc++;
		free(m);
	}
	tap_ok(bad_trunc == 0, "all %zu truncations refused with -EBADMSG (%d not)", len, bad_trunc);

	for (size_t i = 16; i < len; i++) {
		struct cs_manifest *m = calloc(1, sizeof(*m));
		char err[512];

		memcpy(b, good, len);
		b[i] ^= (uint8_t)(1u << (i % 8));
		if (cs_manifest_decode(b, len, m, err, sizeof(err)) != -EBADMSG || !strstr(err, "XXH3-64"))
			bad_flip++;
		free(m);
	}
	tap_ok(bad_flip == 0, "a bit flipped at each of %zu payload bytes is a hash mismatch (%d not)",
	       len - 16, bad_flip);

	memcpy(b, good, len);
	b[0] = 'X';
	expect_decode("wrong magic", b, len, -EBADMSG, "magic is 58 53 4d 46", "expected \"CSMF\"");
	memcpy(b, good, len);
	b[12] ^= 0x80;
	expect_decode("flipped header hash", b, len, -EBADMSG, "XXH3-64", "header says");
	memcpy(b, good, len);
	memset(b + len, 0, 8);
	expect_decode("8 trailing bytes", b, len + 8, -EBADMSG, "trailing garbage", "");
	memcpy(b, good, len);
	b[4] = 0x01, b[5] = 0x00, b[6] = 0x00, b[7] = 0x04; /* 64 MiB + 1 */
	expect_decode("payload length over the limit", b, len, -EFBIG, "67108865 bytes", "limit is 67108864");
	memcpy(b, good, len);
	memset(b + 16, 0xff, len - 16);
	unit_rehash(b, len);
	expect_decode("garbage payload with a valid hash", b, len, -EBADMSG, "not a valid CsManifest", "");
	free(b);
}

/* A newer minor adds fields this plugin does not know: they are skipped, the rest is read. */
static void run_newer_minor(void)
{
	struct unit_pb *p = calloc(1, sizeof(*p));
	struct cs_manifest *m = calloc(1, sizeof(*m));
	static const uint8_t unknown[] = {0x98, 0x06, 0x2a, 0xa2, 0x06,
					  0x03, 'n',  'e',  'w'}; /* 99:42 100:"new" */
	char err[512] = "";
	uint8_t *b;
	size_t len;
	void *buf;
	int ret;

	unit_pb_build(p, &sample);
	p->pm.format_minor = CS_FORMAT_MINOR + 5;
	if (unit_frame(&p->pm, &buf, &len) || !(b = realloc(buf, len + sizeof(unknown))))
		tap_bail("out of memory");
	memcpy(b + len, unknown, sizeof(unknown));
	len += sizeof(unknown);
	b[4] = (uint8_t)(len - 16), b[5] = (uint8_t)((len - 16) >> 8), b[6] = b[7] = 0;
	unit_rehash(b, len);
	ret = cs_manifest_decode(b, len, m, err, sizeof(err));
	tap_ok(ret == 0 && m->format_minor == CS_FORMAT_MINOR + 5 && m->ndev == 3,
	       "newer minor with unknown fields is accepted: %d %s", ret, err);
	cs_manifest_free(m);
	free(m);
	free(b);
	free(p);
}

int main(void)
{
	size_t ncases = sizeof(cases) / sizeof(cases[0]);
	size_t len;
	void *good;

	tap_plan((int)ncases + 9 + 7 + 1);
	unit_sample(&sample, 3);
	for (int i = 0; i < 15; i++)
		uuid15[i] = uuid17[i] = (uint8_t)i;
	for (size_t i = 0; i < ncases; i++)
		run_pb_case(&cases[i]);
	run_unsafe_names();
	if (cs_manifest_encode(&sample, &good, &len))
		tap_bail("cannot encode the sample manifest");
	run_frame_cases(good, len);
	run_newer_minor();
	free(good);
	cs_manifest_free(&sample);
	return tap_done();
}
