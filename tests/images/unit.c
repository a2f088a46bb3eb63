// SPDX-License-Identifier: MIT
/* unit.c - helpers for the manifest and images-directory unit tests (see unit.h). */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "engine.h"
#include "../tap.h"
#include "unit.h"

int unit_tmpdir(char *path, size_t pathlen)
{
	const char *base = getenv("TMPDIR");
	int fd;

	snprintf(path, pathlen, "%s/cs-unit-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(path))
		tap_bail("mkdtemp %s failed", path);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s failed", path);
	return fd;
}

static int unit_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

void unit_rmtree(const char *path)
{
	nftw(path, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct unit_shape {
	uint64_t size;
	uint32_t chunk_size;
	unsigned zero_every; /* chunk c is zero when c % zero_every == 1; 0 = none */
};

static const struct unit_shape unit_shapes[] = {
    {5 * (64ull << 10) + 123, 64u << 10, 2}, /* short last chunk, some zero */
    {3ull << 20, 1u << 20, 0},		     /* nothing zero */
    {1ull << 40, 1u << 30, 3},		     /* 1 TiB in 1 GiB chunks */
    {(32ull << 20) + 1, 32u << 20, 1},	     /* 1-byte zero tail chunk */
};

static void unit_sample_dev(struct cs_manifest_dev *d, unsigned i)
{
	const struct unit_shape *s = &unit_shapes[i % 4];

	for (int b = 0; b < 16; b++)
		d->uuid.bytes[b] = (char)(0x10 * (i + 1) + b);
	d->ordinal = (int32_t)(3 - i);
	d->size = s->size;
	cs_name_extent(d->extent, 4242, i);
	d->chunk_size = s->chunk_size;
	d->nchunks = (s->size + s->chunk_size - 1) / s->chunk_size;
	d->hash = calloc(d->nchunks, sizeof(*d->hash));
	d->zero = calloc(d->nchunks, 1);
	if (!d->hash || !d->zero)
		tap_bail("out of memory");
	for (uint64_t c = 0; c < d->nchunks; c++) {
		d->hash[c] = 0x9e3779b97f4a7c15ull * (c + 1) ^ i;
		d->zero[c] = s->zero_every && c % s->zero_every == 1 % s->zero_every;
	}
}

void unit_fix_totals(struct cs_manifest *m)
{
	m->total_bytes = m->stored_bytes = 0;
	for (unsigned i = 0; i < m->ndev; i++) {
		struct cs_manifest_dev *d = &m->dev[i];

		d->stored_bytes = d->size;
		for (uint64_t c = 0; c < d->nchunks; c++) {
			uint64_t left = d->size - c * d->chunk_size;

			if (d->zero[c])
				d->stored_bytes -= left < d->chunk_size ? left : d->chunk_size;
		}
		m->total_bytes += d->size;
		m->stored_bytes += d->stored_bytes;
	}
}

void unit_sample(struct cs_manifest *m, unsigned ndev)
{
	memset(m, 0, sizeof(*m));
	m->format_major = CS_FORMAT_MAJOR;
	m->format_minor = CS_FORMAT_MINOR;
	m->mode = CS_MODE_CUSTOM;
	m->pid = 31337;
	m->ns_pid = 4242;
	m->driver_version = 13040;
	m->created_unix_ns = 1767225600123456789ull;
	snprintf(m->plugin_version, sizeof(m->plugin_version), "cudastore 0.1.0-test");
	for (unsigned i = 0; i < ndev; i++)
		unit_sample_dev(&m->dev[i], i);
	m->ndev = ndev;
	unit_fix_totals(m);
}

static void unit_pb_dev(struct unit_pb *p, unsigned i, struct cs_manifest_dev *d)
{
	CsDevice *pd = &p->pd[i];

	if (d->nchunks > 8 * sizeof(p->bits[i]))
		tap_bail("sample device %u has too many chunks for unit_pb", i);
	cs_device__init(pd);
	pd->has_uuid = pd->has_ordinal = pd->has_size = pd->has_chunk_size = 1;
	pd->uuid.len = 16;
	pd->uuid.data = (uint8_t *)d->uuid.bytes;
	pd->ordinal = d->ordinal;
	pd->size = d->size;
	pd->extent = d->extent;
	pd->chunk_size = d->chunk_size;
	pd->n_chunk_hash = d->nchunks;
	pd->chunk_hash = d->hash;
	for (uint64_t c = 0; c < d->nchunks; c++)
		if (d->zero[c])
			p->bits[i][c / 8] |= (uint8_t)(1u << (c % 8));
	pd->has_zero_chunks = 1;
	pd->zero_chunks.len = (d->nchunks + 7) / 8;
	pd->zero_chunks.data = p->bits[i];
	pd->has_stored_bytes = 1;
	pd->stored_bytes = d->stored_bytes;
	p->pdp[i] = pd;
}

void unit_pb_build(struct unit_pb *p, struct cs_manifest *m)
{
	CsManifest *pm = &p->pm;

	memset(p, 0, sizeof(*p));
	cs_manifest__init(pm);
	pm->has_format_major = pm->has_format_minor = pm->has_mode = pm->has_pid = pm->has_ns_pid = 1;
	pm->has_driver_version = pm->has_created_unix_ns = pm->has_total_bytes = pm->has_stored_bytes = 1;
	pm->format_major = m->format_major;
	pm->format_minor = m->format_minor;
	pm->mode = (CsManifest__Mode)m->mode;
	pm->pid = m->pid;
	pm->ns_pid = m->ns_pid;
	pm->driver_version = m->driver_version;
	pm->created_unix_ns = m->created_unix_ns;
	pm->plugin_version = m->plugin_version;
	for (unsigned i = 0; i < m->ndev; i++)
		unit_pb_dev(p, i, &m->dev[i]);
	pm->n_devices = m->ndev;
	pm->devices = p->pdp;
	pm->total_bytes = m->total_bytes;
	pm->stored_bytes = m->stored_bytes;
}

static void unit_put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void unit_rehash(void *buf, size_t len)
{
	uint8_t *p = buf;

	unit_put_le(p + 8, XXH3_64bits(p + 16, len - 16), 8);
}

int unit_frame(const CsManifest *pm, void **buf, size_t *len)
{
	size_t plen = cs_manifest__get_packed_size(pm);
	uint8_t *p = malloc(16 + plen);

	if (!p)
		return -1;
	cs_manifest__pack(pm, p + 16);
	memcpy(p, "CSMF", 4);
	unit_put_le(p + 4, plen, 4);
	*buf = p;
	*len = 16 + plen;
	unit_rehash(p, *len);
	return 0;
}

CsManifest *unit_unpack(const void *buf, size_t len)
{
	return cs_manifest__unpack(NULL, len - 16, (const uint8_t *)buf + 16);
}

#define UNIT_DIFF(cond, ...)                                                                                 \
	do {                                                                                                 \
		if (cond) {                                                                                  \
			snprintf(why, n, __VA_ARGS__);                                                       \
			return false;                                                                        \
		}                                                                                            \
	} while (0)

static bool unit_dev_equal(const struct cs_manifest_dev *a, const struct cs_manifest_dev *b, unsigned i,
			   char *why, size_t n)
{
	UNIT_DIFF(memcmp(a->uuid.bytes, b->uuid.bytes, 16), "dev[%u].uuid", i);
	UNIT_DIFF(a->ordinal != b->ordinal, "dev[%u].ordinal %d != %d", i, a->ordinal, b->ordinal);
	UNIT_DIFF(a->size != b->size, "dev[%u].size", i);
	UNIT_DIFF(strcmp(a->extent, b->extent), "dev[%u].extent %s != %s", i, a->extent, b->extent);
	UNIT_DIFF(a->chunk_size != b->chunk_size, "dev[%u].chunk_size", i);
	UNIT_DIFF(a->nchunks != b->nchunks, "dev[%u].nchunks", i);
	UNIT_DIFF(memcmp(a->hash, b->hash, a->nchunks * 8), "dev[%u].hash", i);
	for (uint64_t c = 0; c < a->nchunks; c++)
		UNIT_DIFF(!a->zero[c] != !b->zero[c], "dev[%u].zero[%llu]", i, (unsigned long long)c);
	UNIT_DIFF(a->stored_bytes != b->stored_bytes, "dev[%u].stored_bytes", i);
	UNIT_DIFF((a->nstripes ? a->nstripes : 1) != (b->nstripes ? b->nstripes : 1), "dev[%u].nstripes %u != %u",
		  i, a->nstripes, b->nstripes);
	for (unsigned k = 1; k < a->nstripes; k++)
		UNIT_DIFF(strcmp(a->stripe[k], b->stripe[k]), "dev[%u].stripe[%u]", i, k);
	return true;
}

bool unit_manifest_equal(const struct cs_manifest *a, const struct cs_manifest *b, char *why, size_t n)
{
	UNIT_DIFF(a->format_major != b->format_major || a->format_minor != b->format_minor, "format");
	UNIT_DIFF(a->mode != b->mode, "mode");
	UNIT_DIFF(a->pid != b->pid || a->ns_pid != b->ns_pid, "pid/ns_pid");
	UNIT_DIFF(a->driver_version != b->driver_version, "driver_version");
	UNIT_DIFF(a->created_unix_ns != b->created_unix_ns, "created_unix_ns");
	UNIT_DIFF(strcmp(a->plugin_version, b->plugin_version), "plugin_version");
	UNIT_DIFF(a->ndev != b->ndev, "ndev %u != %u", a->ndev, b->ndev);
	UNIT_DIFF(a->total_bytes != b->total_bytes || a->stored_bytes != b->stored_bytes, "totals");
	UNIT_DIFF(a->has_dump_id != b->has_dump_id ||
		      (a->has_dump_id && memcmp(a->dump_id, b->dump_id, sizeof(a->dump_id))),
		  "dump_id");
	for (unsigned i = 0; i < a->ndev; i++)
		if (!unit_dev_equal(&a->dev[i], &b->dev[i], i, why, n))
			return false;
	return true;
}

static bool unit_dev_ok(const struct cs_manifest_dev *d, unsigned i, char *why, size_t n)
{
	uint32_t cs = d->chunk_size;
	uint64_t stored = d->size;

	UNIT_DIFF(d->size == 0 || d->size > CS_MAX_DEVICE_BYTES, "dev[%u].size out of range", i);
	UNIT_DIFF(cs < CS_CHUNK_MIN || cs > CS_CHUNK_MAX || (cs & (cs - 1)), "dev[%u].chunk_size", i);
	UNIT_DIFF(d->nchunks != (d->size + cs - 1) / cs, "dev[%u].nchunks", i);
	UNIT_DIFF(!d->hash || !d->zero, "dev[%u] tables missing", i);
	UNIT_DIFF(!cs_name_is_safe(d->extent), "dev[%u].extent unsafe", i);
	UNIT_DIFF(d->nstripes < 1 || d->nstripes > CS_MAX_STRIPES || d->nstripes > d->nchunks,
		  "dev[%u].nstripes %u", i, d->nstripes);
	UNIT_DIFF(strcmp(d->stripe[0], d->extent), "dev[%u].stripe[0] is not the extent", i);
	for (unsigned k = 1; k < d->nstripes && k < CS_MAX_STRIPES; k++)
		UNIT_DIFF(!cs_name_is_safe(d->stripe[k]), "dev[%u].stripe[%u] unsafe", i, k);
	for (uint64_t c = 0; c < d->nchunks; c++) {
		uint64_t left = d->size - c * cs;

		UNIT_DIFF(d->zero[c] > 1, "dev[%u].zero[%llu] not 0/1", i, (unsigned long long)c);
		if (d->zero[c])
			stored -= left < cs ? left : cs;
	}
	UNIT_DIFF(stored != d->stored_bytes, "dev[%u].stored_bytes", i);
	return true;
}

bool unit_manifest_invariants(const struct cs_manifest *m, char *why, size_t n)
{
	uint64_t total = 0, stored = 0;

	UNIT_DIFF(m->format_major != CS_FORMAT_MAJOR, "format_major");
	UNIT_DIFF(m->mode != CS_MODE_CUSTOM && m->mode != CS_MODE_DRIVER, "mode");
	UNIT_DIFF(m->ndev > CS_MAX_DEVICES, "ndev");
	UNIT_DIFF(m->mode == CS_MODE_DRIVER && m->ndev, "driver mode with devices");
	UNIT_DIFF(m->mode == CS_MODE_CUSTOM && !m->ndev, "custom mode without devices");
	UNIT_DIFF(m->pid <= 0 || m->ns_pid <= 0, "pids");
	UNIT_DIFF(strnlen(m->plugin_version, sizeof(m->plugin_version)) == sizeof(m->plugin_version),
		  "plugin_version unterminated");
	for (unsigned i = 0; i < m->ndev; i++) {
		if (!unit_dev_ok(&m->dev[i], i, why, n))
			return false;
		for (unsigned j = 0; j < i; j++) {
			UNIT_DIFF(!memcmp(m->dev[i].uuid.bytes, m->dev[j].uuid.bytes, 16), "duplicate uuid");
			UNIT_DIFF(!strcmp(m->dev[i].extent, m->dev[j].extent), "duplicate extent");
		}
		total += m->dev[i].size;
		stored += m->dev[i].stored_bytes;
	}
	UNIT_DIFF(total != m->total_bytes || stored != m->stored_bytes, "totals");
	return true;
}
