// SPDX-License-Identifier: MIT
/*
 * manifest.c - encode, decode and validate the per-process manifest (contract in manifest.h,
 * format and rules in docs/image-format.md).
 *
 * Decoding is two-phase: the unpacked protobuf message is checked completely (cs_pb_check*)
 * while it is still owned by protobuf-c, and only a message that passed is copied into
 * struct cs_manifest, so no allocation of ours is ever sized by an unchecked value.
 * protobuf-c's own allocations are bounded by the payload length, which is checked first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "cudastore.pb-c.h"
#include "chunkstore.h"
#include "cuda_ops.h"
#include "imgframe.h"
#include "manifest_facts.h"
#include "manifest.h"
#include "strsafe.h"

#define CS_MANIFEST_MAGIC   "CSMF"
#define CS_VERSION_MAX	    sizeof(((struct cs_manifest *)0)->plugin_version)
#define CS_PB_MANIFEST_LAST 11 /* highest field number of format 1.0 in CsManifest... */
#define CS_PB_DEVICE_LAST   8  /* ...and in CsDevice */

/* Sets err to "<fmt> (images corrupt ...)" and returns -EBADMSG. */
static int cs_bad(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int cs_bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!err || !errlen)
		return -EBADMSG;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	n = strlen(err);
	snprintf(err + n, errlen - n, "%s", CS_IMAGES_CORRUPT);
	return -EBADMSG;
}

static uint64_t cs_nchunks(uint64_t size, uint32_t chunk_size)
{
	return (size + chunk_size - 1) / chunk_size;
}

/* ===== encode ================================================================================= */

/* Everything the protobuf message points into while it is packed. */
struct cs_enc {
	CsManifest pm;
	CsDevice pd[CS_MAX_DEVICES];
	CsDevice *pdp[CS_MAX_DEVICES];
	uint8_t *bitmap[CS_MAX_DEVICES];
	char extent[CS_MAX_DEVICES][CS_NAME_MAX];
	char *stripe[CS_MAX_DEVICES][CS_MAX_STRIPES]; /* point into the manifest's names */
	char version[CS_VERSION_MAX];
};

static int cs_enc_dev(struct cs_enc *e, unsigned i, const struct cs_manifest_dev *d)
{
	CsDevice *pd = &e->pd[i];

	if (!d->nchunks || !d->hash || !d->zero || d->nstripes > CS_MAX_STRIPES)
		return -EINVAL;
	e->bitmap[i] = calloc((d->nchunks + 7) / 8, 1);
	if (!e->bitmap[i])
		return -ENOMEM;
	for (uint64_t c = 0; c < d->nchunks; c++)
		if (d->zero[c])
			e->bitmap[i][c / 8] |= (uint8_t)(1u << (c % 8));
	snprintf(e->extent[i], CS_NAME_MAX, "%s", d->extent);

	cs_device__init(pd);
	pd->has_uuid = pd->has_ordinal = pd->has_size = pd->has_chunk_size = 1;
	pd->has_zero_chunks = pd->has_stored_bytes = 1;
	pd->uuid.len = sizeof(d->uuid.bytes);
	pd->uuid.data = (uint8_t *)d->uuid.bytes;
	pd->ordinal = d->ordinal;
	pd->size = d->size;
	pd->extent = e->extent[i];
	pd->chunk_size = d->chunk_size;
	pd->n_chunk_hash = d->nchunks;
	pd->chunk_hash = d->hash;
	pd->zero_chunks.len = (d->nchunks + 7) / 8;
	pd->zero_chunks.data = e->bitmap[i];
	pd->stored_bytes = d->stored_bytes;
	for (unsigned k = 1; k < d->nstripes; k++)
		e->stripe[i][k - 1] = (char *)d->stripe[k];
	pd->n_stripe_extent = d->nstripes > 1 ? d->nstripes - 1 : 0;
	pd->stripe_extent = e->stripe[i];
	if (d->ids) { /* format 1.5: a chunked device */
		pd->has_chunk_ids = pd->has_new_bytes = 1;
		pd->chunk_ids.len = d->nchunks * CS_CHUNK_ID_BYTES;
		pd->chunk_ids.data = d->ids;
		pd->chunk_id_scheme = (char *)CS_CHUNK_SCHEME;
		pd->new_bytes = d->new_bytes;
	}
	e->pdp[i] = pd;
	return 0;
}

/* The writer always writes the format it implements, whatever m->format_* say. */
static void cs_enc_header(struct cs_enc *e, const struct cs_manifest *m)
{
	CsManifest *pm = &e->pm;

	snprintf(e->version, sizeof(e->version), "%s", m->plugin_version);
	cs_manifest__init(pm);
	pm->has_format_major = pm->has_format_minor = pm->has_mode = pm->has_pid = pm->has_ns_pid = 1;
	pm->has_driver_version = pm->has_created_unix_ns = pm->has_total_bytes = pm->has_stored_bytes = 1;
	pm->format_major = CS_FORMAT_MAJOR;
	pm->format_minor = CS_FORMAT_MINOR;
	for (unsigned i = 0; i < m->ndev; i++)
		if (m->dev[i].ids)
			pm->format_minor = CS_FORMAT_MINOR_CHUNKS;
	pm->mode = (CsManifest__Mode)m->mode;
	pm->pid = m->pid;
	pm->ns_pid = m->ns_pid;
	pm->driver_version = m->driver_version;
	pm->created_unix_ns = m->created_unix_ns;
	pm->plugin_version = e->version;
	pm->n_devices = m->ndev;
	pm->devices = e->pdp;
	pm->total_bytes = m->total_bytes;
	pm->stored_bytes = m->stored_bytes;
	if (m->has_dump_id) {
		pm->has_dump_id = 1;
		pm->dump_id.len = sizeof(m->dump_id);
		pm->dump_id.data = (uint8_t *)m->dump_id;
	}
}

int cs_manifest_encode(const struct cs_manifest *m, void **buf, size_t *len)
{
	struct cs_facts_pb *facts = NULL;
	struct cs_enc *e;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	if (m->ndev > CS_MAX_DEVICES || m->ngpu > CS_MAX_DEVICES)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (unsigned i = 0; i < m->ndev && !ret; i++)
		ret = cs_enc_dev(e, i, &m->dev[i]);
	if (!ret) {
		cs_enc_header(e, m);
		facts = cs_facts_to_pb(m, &e->pm);
		ret = facts ? cs_imgframe_encode(&e->pm.base, CS_MANIFEST_MAGIC, CS_MAX_MANIFEST_BYTES, buf,
						 len)
			    : -ENOMEM;
	}
	cs_facts_pb_free(facts);
	for (unsigned i = 0; i < m->ndev; i++)
		free(e->bitmap[i]);
	free(e);
	return ret;
}

/* ===== decode: frame ========================================================================== */

/* The frame and payload (imgframe.c) into *pm, or their first fault in the manifest's words. */
static int cs_frame_decode(const uint8_t *p, size_t len, CsManifest **pm, char *err, size_t errlen)
{
	struct cs_frame f;

	switch (cs_imgframe_decode(p, len, CS_MANIFEST_MAGIC, CS_MAX_MANIFEST_BYTES, &cs_manifest__descriptor,
				   &f)) {
	case CS_FRAME_OK:
		*pm = (CsManifest *)f.msg;
		return 0;
	case CS_FRAME_SHORT:
		return cs_bad(err, errlen,
			      "manifest is %zu bytes, shorter than its %u-byte header: truncated", len,
			      CS_FRAME_HDR);
	case CS_FRAME_MAGIC:
		return cs_bad(err, errlen, "manifest magic is %02x %02x %02x %02x, expected \"%s\"", p[0],
			      p[1], p[2], p[3], CS_MANIFEST_MAGIC);
	case CS_FRAME_BIG:
		cs_seterr(err, errlen, "manifest payload length is %u bytes, limit is %u" CS_IMAGES_CORRUPT,
			  f.plen, CS_MAX_MANIFEST_BYTES);
		return -EFBIG;
	case CS_FRAME_LENGTH:
		return cs_bad(err, errlen, "manifest header says %u payload bytes, file has %zu: %s", f.plen,
			      f.have, f.have < f.plen ? "truncated" : "trailing garbage");
	case CS_FRAME_HASH:
		return cs_bad(err, errlen, "manifest payload XXH3-64 is %016llx, header says %016llx",
			      (unsigned long long)f.got, (unsigned long long)f.want);
	case CS_FRAME_PAYLOAD:
		break;
	}
	return cs_bad(err, errlen, "manifest payload (%zu bytes) is not a valid CsManifest message",
		      (size_t)f.plen);
}

/* ===== decode: checks on the unpacked message ================================================== */

/*
 * Every field of format 1.0 is mandatory: returns the name of the first one (numbered <= last)
 * that msg lacks, or NULL. Fields a later minor adds get higher numbers and stay optional.
 */
static const char *cs_pb_missing(const ProtobufCMessage *msg, uint32_t last)
{
	const ProtobufCMessageDescriptor *d = msg->descriptor;
	const char *base = (const char *)msg;

	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];

		if (f->label != PROTOBUF_C_LABEL_OPTIONAL || f->id > last)
			continue;
		if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE) {
			if (!*(void *const *)(base + f->offset))
				return f->name;
		} else if (!*(const protobuf_c_boolean *)(base + f->quantifier_offset)) {
			return f->name;
		}
	}
	return NULL;
}

/* The version is checked before anything else so that a newer major gets its own message. */
static int cs_pb_check_version(const CsManifest *pm, char *err, size_t errlen)
{
	const char *missing;

	if (!pm->has_format_major)
		return cs_bad(err, errlen, "manifest format_major is missing");
	if (pm->format_major > CS_FORMAT_MAJOR) {
		cs_seterr(err, errlen,
			  "manifest format is %u.%u, made by a newer cudastore; this plugin supports format "
			  "%d.x (writes %d.%d): upgrade the plugin",
			  pm->format_major, pm->format_minor, CS_FORMAT_MAJOR, CS_FORMAT_MAJOR,
			  CS_FORMAT_MINOR);
		return -EPROTONOSUPPORT;
	}
	if (pm->format_major < CS_FORMAT_MAJOR)
		return cs_bad(err, errlen,
			      "manifest format_major is %u; this plugin supports %d.x, none older exists",
			      pm->format_major, CS_FORMAT_MAJOR);
	missing = cs_pb_missing(&pm->base, CS_PB_MANIFEST_LAST);
	if (missing)
		return cs_bad(err, errlen, "manifest %s is missing", missing);
	return 0;
}

static bool cs_printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static int cs_pb_check_ids(const CsManifest *pm, char *err, size_t errlen)
{
	if (pm->pid <= 0 || pm->ns_pid <= 0)
		return cs_bad(err, errlen, "manifest %s is %d, must be > 0", pm->pid <= 0 ? "pid" : "ns_pid",
			      pm->pid <= 0 ? pm->pid : pm->ns_pid);
	if (pm->driver_version < 0)
		return cs_bad(err, errlen, "manifest driver_version is %d, must be >= 0", pm->driver_version);
	if (strlen(pm->plugin_version) >= CS_VERSION_MAX || !cs_printable(pm->plugin_version))
		return cs_bad(err, errlen,
			      "manifest plugin_version is %zu bytes or not printable ASCII, limit is %zu "
			      "printable bytes",
			      strlen(pm->plugin_version), CS_VERSION_MAX - 1);
	return 0;
}

static int cs_pb_check_mode(const CsManifest *pm, char *err, size_t errlen)
{
	size_t min = 0, max = CS_MAX_DEVICES; /* custom: a CUDA process may hold no GPU memory */

	if (pm->mode != CS_MANIFEST__MODE__CUSTOM && pm->mode != CS_MANIFEST__MODE__DRIVER)
		return cs_bad(err, errlen, "manifest mode is %d, known modes are %d (custom) and %d (driver)",
			      (int)pm->mode, CS_MODE_CUSTOM, CS_MODE_DRIVER);
	if (pm->mode == CS_MANIFEST__MODE__DRIVER)
		min = max = 0;
	if (pm->n_devices < min || pm->n_devices > max)
		return cs_bad(err, errlen, "manifest has %zu devices, %s mode allows %zu..%zu", pm->n_devices,
			      max ? "custom" : "driver", min, max);
	return 0;
}

/* an unsafe name from an image, for a message: its first CS_NAME_MAX bytes, escaped (strsafe.h) */
static const char *cs_shown_name(const char *name, char *out, size_t outlen)
{
	return cs_mem_escape(name, strnlen(name, CS_NAME_MAX), out, outlen);
}

static int cs_pb_check_dev_ids(const CsDevice *pd, size_t i, char *err, size_t errlen)
{
	char safe[4 * CS_NAME_MAX + 1];
	const char *missing = cs_pb_missing(&pd->base, CS_PB_DEVICE_LAST);

	if (missing)
		return cs_bad(err, errlen, "manifest devices[%zu].%s is missing", i, missing);
	if (pd->uuid.len != sizeof(((CUuuid *)0)->bytes))
		return cs_bad(err, errlen, "manifest devices[%zu].uuid is %zu bytes, must be %zu", i,
			      pd->uuid.len, sizeof(((CUuuid *)0)->bytes));
	if (pd->ordinal < 0 || pd->ordinal >= CS_MAX_DEVICES)
		return cs_bad(err, errlen, "manifest devices[%zu].ordinal is %d, must be in [0, %d)", i,
			      pd->ordinal, CS_MAX_DEVICES);
	if (!cs_name_is_safe(pd->extent))
		return cs_bad(
		    err, errlen,
		    "manifest devices[%zu].extent \"%s\" is not a safe file name (1..%d of [A-Za-z0-9._-], "
		    "no leading '.')",
		    i, cs_shown_name(pd->extent, safe, sizeof(safe)), CS_NAME_MAX - 1);
	return 0;
}

/* format 1.2: the stripe files (1..n of them besides `extent`), safe names, at most one per chunk */
static int cs_pb_check_dev_stripes(const CsDevice *pd, size_t i, char *err, size_t errlen)
{
	char safe[4 * CS_NAME_MAX + 1];
	uint64_t n = cs_nchunks(pd->size, pd->chunk_size);

	if (pd->n_stripe_extent + 1 > CS_MAX_STRIPES || pd->n_stripe_extent + 1 > n)
		return cs_bad(err, errlen,
			      "manifest devices[%zu] has %zu extent files, at most %d and no more than its "
			      "%llu chunks",
			      i, pd->n_stripe_extent + 1, CS_MAX_STRIPES, (unsigned long long)n);
	for (size_t k = 0; k < pd->n_stripe_extent; k++)
		if (!cs_name_is_safe(pd->stripe_extent[k]))
			return cs_bad(err, errlen,
				      "manifest devices[%zu].stripe_extent[%zu] \"%s\" is not a safe file "
				      "name (1..%d of [A-Za-z0-9._-], no leading '.')",
				      i, k, cs_shown_name(pd->stripe_extent[k], safe, sizeof(safe)),
				      CS_NAME_MAX - 1);
	return 0;
}

/* format 1.5: a chunked device's ids, one per chunk, of the one scheme this plugin knows */
static int cs_pb_check_dev_chunks(const CsDevice *pd, size_t i, char *err, size_t errlen)
{
	uint64_t n = pd->n_chunk_hash;
	char shown[CS_NAME_MAX];

	if (!pd->has_chunk_ids && !pd->chunk_id_scheme)
		return 0;
	if (!pd->has_chunk_ids || !pd->chunk_id_scheme)
		return cs_bad(err, errlen, "manifest devices[%zu] has %s without %s", i,
			      pd->has_chunk_ids ? "chunk_ids" : "chunk_id_scheme",
			      pd->has_chunk_ids ? "chunk_id_scheme" : "chunk_ids");
	if (strcmp(pd->chunk_id_scheme, CS_CHUNK_SCHEME))
		return cs_fail(-EPROTONOSUPPORT, err, errlen,
			       "manifest devices[%zu].chunk_id_scheme is \"%s\"; this plugin knows \"%s\" "
			       "only: upgrade the plugin",
			       i, cs_shown_name(pd->chunk_id_scheme, shown, sizeof(shown)), CS_CHUNK_SCHEME);
	if (pd->chunk_ids.len != n * CS_CHUNK_ID_BYTES)
		return cs_bad(
		    err, errlen, "manifest devices[%zu].chunk_ids is %zu bytes, %llu chunks need %llu", i,
		    pd->chunk_ids.len, (unsigned long long)n, (unsigned long long)n * CS_CHUNK_ID_BYTES);
	if (pd->n_stripe_extent)
		return cs_bad(err, errlen, "manifest devices[%zu] is chunked and striped at once", i);
	if (pd->new_bytes > pd->stored_bytes)
		return cs_bad(err, errlen, "manifest devices[%zu].new_bytes %llu exceeds stored_bytes %llu",
			      i, (unsigned long long)pd->new_bytes, (unsigned long long)pd->stored_bytes);
	return 0;
}

static int cs_pb_check_dev_size(const CsDevice *pd, size_t i, char *err, size_t errlen)
{
	uint32_t cs = pd->chunk_size;
	uint64_t n;

	if (pd->size == 0 || pd->size > CS_MAX_DEVICE_BYTES)
		return cs_bad(err, errlen, "manifest devices[%zu].size is %llu bytes, must be in [1, %llu]",
			      i, (unsigned long long)pd->size, (unsigned long long)CS_MAX_DEVICE_BYTES);
	if (cs < CS_CHUNK_MIN || cs > CS_CHUNK_MAX || (cs & (cs - 1)))
		return cs_bad(err, errlen,
			      "manifest devices[%zu].chunk_size is %u, must be a power of two in [%u, %u]", i,
			      cs, CS_CHUNK_MIN, CS_CHUNK_MAX);
	n = cs_nchunks(pd->size, cs);
	if (pd->n_chunk_hash != n)
		return cs_bad(
		    err, errlen,
		    "manifest devices[%zu].chunk_hash has %zu entries, size %llu / chunk_size %u needs "
		    "%llu",
		    i, pd->n_chunk_hash, (unsigned long long)pd->size, cs, (unsigned long long)n);
	if (pd->zero_chunks.len != (n + 7) / 8)
		return cs_bad(err, errlen,
			      "manifest devices[%zu].zero_chunks is %zu bytes, %llu chunks need %llu", i,
			      pd->zero_chunks.len, (unsigned long long)n, (unsigned long long)(n + 7) / 8);
	return 0;
}

static bool cs_bit(const uint8_t *map, uint64_t i)
{
	return map[i / 8] & (1u << (i % 8));
}

/* stored_bytes must equal size minus the bytes of the chunks the bitmap marks all-zero. */
static int cs_pb_check_dev_zero(const CsDevice *pd, size_t i, char *err, size_t errlen)
{
	uint64_t n = pd->n_chunk_hash, stored = pd->size;
	const uint8_t *map = pd->zero_chunks.data;

	for (uint64_t c = n; c < pd->zero_chunks.len * 8ull; c++) {
		if (cs_bit(map, c))
			return cs_bad(err, errlen,
				      "manifest devices[%zu].zero_chunks marks chunk %llu, only %llu exist",
				      i, (unsigned long long)c, (unsigned long long)n);
	}
	for (uint64_t c = 0; c < n; c++) {
		uint64_t off = c * pd->chunk_size;

		if (cs_bit(map, c))
			stored -= pd->size - off < pd->chunk_size ? pd->size - off : pd->chunk_size;
	}
	if (pd->stored_bytes != stored)
		return cs_bad(err, errlen,
			      "manifest devices[%zu].stored_bytes is %llu, the zero_chunks bitmap implies "
			      "%llu",
			      i, (unsigned long long)pd->stored_bytes, (unsigned long long)stored);
	return 0;
}

_Static_assert(CS_NAME_MAX >= CS_UUID_STRLEN, "ident buffer");

static const char *cs_dev_ident(const CsDevice *d, const char *what, char text[CS_NAME_MAX])
{
	CUuuid u;

	if (!strcmp(what, "uuid")) {
		memcpy(u.bytes, d->uuid.data, sizeof(u.bytes));
		cs_uuid_format(&u, text);
	} else if (!strcmp(what, "ordinal")) {
		snprintf(text, CS_NAME_MAX, "%d", d->ordinal);
	} else {
		snprintf(text, CS_NAME_MAX, "%s", d->extent);
	}
	return text;
}

/* Two devices must not share a UUID, an ordinal or an extent file (n <= CS_MAX_DEVICES). */
static int cs_pb_check_unique(const CsManifest *pm, char *err, size_t errlen)
{
	char text[CS_NAME_MAX];

	for (size_t i = 0; i < pm->n_devices; i++) {
		const CsDevice *a = pm->devices[i];

		for (size_t j = 0; j < i; j++) {
			const CsDevice *b = pm->devices[j];
			const char *what = NULL;

			if (!memcmp(a->uuid.data, b->uuid.data, a->uuid.len))
				what = "uuid";
			else if (a->ordinal == b->ordinal)
				what = "ordinal";
			else if (!strcmp(a->extent, b->extent))
				what = "extent";
			if (what)
				return cs_bad(err, errlen,
					      "manifest devices[%zu] and devices[%zu] have the same %s (%s)",
					      j, i, what, cs_dev_ident(a, what, text));
		}
	}
	return 0;
}

/* Every file name (extents and stripes, all devices) appears once: no two stripes share a file. */
static int cs_pb_check_names(const CsManifest *pm, char *err, size_t errlen)
{
	const char **names;
	size_t n = 0, i, j;
	int ret = 0;

	for (i = 0; i < pm->n_devices; i++)
		n += 1 + pm->devices[i]->n_stripe_extent;
	names = malloc(n * sizeof(*names)); /* n <= 64 devices x 32 stripes, checked before */
	if (!names)
		return cs_fail(-ENOMEM, err, errlen, "out of memory checking the manifest's file names");
	n = 0;
	for (i = 0; i < pm->n_devices; i++) {
		names[n++] = pm->devices[i]->extent;
		for (j = 0; j < pm->devices[i]->n_stripe_extent; j++)
			names[n++] = pm->devices[i]->stripe_extent[j];
	}
	for (i = 0; i < n && !ret; i++)
		for (j = 0; j < i && !ret; j++)
			if (!strcmp(names[i], names[j]))
				ret = cs_bad(err, errlen, "manifest names the file %s twice", names[i]);
	free(names);
	return ret;
}

static int cs_pb_check_totals(const CsManifest *pm, char *err, size_t errlen)
{
	uint64_t total = 0, stored = 0;

	for (size_t i = 0; i < pm->n_devices; i++) {
		total += pm->devices[i]->size;
		stored += pm->devices[i]->stored_bytes;
	}
	if (pm->total_bytes != total || pm->stored_bytes != stored) {
		bool t = pm->total_bytes != total;

		return cs_bad(err, errlen, "manifest %s is %llu, the devices sum to %llu",
			      t ? "total_bytes" : "stored_bytes",
			      (unsigned long long)(t ? pm->total_bytes : pm->stored_bytes),
			      (unsigned long long)(t ? total : stored));
	}
	return 0;
}

static int cs_pb_check(const CsManifest *pm, char *err, size_t errlen)
{
	int ret;

	ret = cs_pb_check_version(pm, err, errlen);
	if (!ret && pm->has_dump_id && pm->dump_id.len != CS_DUMP_ID_BYTES)
		ret = cs_bad(err, errlen, "manifest dump_id is %zu bytes, must be %d", pm->dump_id.len,
			     CS_DUMP_ID_BYTES);
	if (!ret)
		ret = cs_pb_check_mode(pm, err, errlen);
	if (!ret)
		ret = cs_pb_check_ids(pm, err, errlen);
	for (size_t i = 0; i < pm->n_devices && !ret; i++) {
		ret = cs_pb_check_dev_ids(pm->devices[i], i, err, errlen);
		if (!ret)
			ret = cs_pb_check_dev_size(pm->devices[i], i, err, errlen);
		if (!ret)
			ret = cs_pb_check_dev_zero(pm->devices[i], i, err, errlen);
		if (!ret)
			ret = cs_pb_check_dev_stripes(pm->devices[i], i, err, errlen);
		if (!ret)
			ret = cs_pb_check_dev_chunks(pm->devices[i], i, err, errlen);
	}

	if (!ret)
		ret = cs_pb_check_unique(pm, err, errlen);
	if (!ret)
		ret = cs_pb_check_names(pm, err, errlen);
	if (!ret)
		ret = cs_pb_check_totals(pm, err, errlen);
	if (!ret)
		ret = cs_facts_check_pb(pm, err, errlen);
	return ret;
}

/* ===== decode: copy a checked message out ======================================================= */

static int cs_pb_copy_dev(const CsDevice *pd, struct cs_manifest_dev *d)
{
	uint64_t n = pd->n_chunk_hash;

	memcpy(d->uuid.bytes, pd->uuid.data, sizeof(d->uuid.bytes));
	d->ordinal = pd->ordinal;
	d->size = pd->size;
	snprintf(d->extent, sizeof(d->extent), "%s", pd->extent);
	d->chunk_size = pd->chunk_size;
	d->stored_bytes = pd->stored_bytes;
	d->nstripes = 1 + (unsigned)pd->n_stripe_extent;
	snprintf(d->stripe[0], CS_NAME_MAX, "%s", pd->extent);
	for (size_t k = 0; k < pd->n_stripe_extent; k++)
		snprintf(d->stripe[k + 1], CS_NAME_MAX, "%s", pd->stripe_extent[k]);
	d->hash = malloc(n * sizeof(*d->hash));
	d->zero = malloc(n);
	if (!d->hash || !d->zero)
		return -ENOMEM;
	d->nchunks = n;
	memcpy(d->hash, pd->chunk_hash, n * sizeof(*d->hash));
	for (uint64_t c = 0; c < n; c++)
		d->zero[c] = cs_bit(pd->zero_chunks.data, c);
	if (pd->has_chunk_ids) {
		d->ids = malloc(pd->chunk_ids.len ? pd->chunk_ids.len : 1);
		if (!d->ids)
			return -ENOMEM;
		memcpy(d->ids, pd->chunk_ids.data, pd->chunk_ids.len);
		d->new_bytes = pd->new_bytes;
	}
	return 0;
}

static int cs_pb_copy(const CsManifest *pm, struct cs_manifest *m)
{
	m->format_major = pm->format_major;
	m->format_minor = pm->format_minor;
	m->mode = (enum cs_mode)pm->mode;
	m->pid = pm->pid;
	m->ns_pid = pm->ns_pid;
	m->driver_version = pm->driver_version;
	m->created_unix_ns = pm->created_unix_ns;
	snprintf(m->plugin_version, sizeof(m->plugin_version), "%s", pm->plugin_version);
	m->total_bytes = pm->total_bytes;
	m->stored_bytes = pm->stored_bytes;
	m->has_dump_id = pm->has_dump_id;
	if (pm->has_dump_id)
		memcpy(m->dump_id, pm->dump_id.data, sizeof(m->dump_id));
	cs_facts_from_pb(pm, m);
	for (size_t i = 0; i < pm->n_devices; i++) {
		m->ndev = (unsigned)i + 1; /* so that cs_manifest_free() sees a partial copy */
		if (cs_pb_copy_dev(pm->devices[i], &m->dev[i]))
			return -ENOMEM;
	}
	return 0;
}

int cs_manifest_decode(const void *buf, size_t len, struct cs_manifest *m, char *err, size_t errlen)
{
	CsManifest *pm = NULL;
	int ret;

	memset(m, 0, sizeof(*m));
	cs_seterr(err, errlen, "%s", "");
	ret = cs_frame_decode(buf, len, &pm, err, errlen);
	if (ret)
		return ret;
	ret = cs_pb_check(pm, err, errlen);
	if (!ret) {
		ret = cs_pb_copy(pm, m);
		if (ret)
			cs_seterr(err, errlen, "out of memory copying the manifest's chunk tables");
	}
	cs_manifest__free_unpacked(pm, NULL);
	if (ret) {
		cs_manifest_free(m);
		memset(m, 0, sizeof(*m));
	}
	return ret;
}

/* ===== files ================================================================================== */

/* Encodes, then decodes the result so that a dump never writes what a restore would refuse. */
int cs_manifest_write(int dirfd, const char *name, const struct cs_manifest *m, char *err, size_t errlen)
{
	struct cs_manifest *check;
	char why[512];
	size_t len;
	void *buf;
	int ret;

	ret = cs_manifest_encode(m, &buf, &len);
	if (ret)
		return cs_fail(ret, err, errlen, "cannot encode manifest %s (%u devices): %s", name, m->ndev,
			       strerror(-ret));
	check = malloc(sizeof(*check));
	if (!check) {
		ret = cs_fail(-ENOMEM, err, errlen, "out of memory checking manifest %s", name);
		goto err_free;
	}
	ret = cs_manifest_decode(buf, len, check, why, sizeof(why));
	cs_manifest_free(check);
	free(check);
	if (ret) {
		ret = cs_fail(-EINVAL, err, errlen,
			      "refusing to write manifest %s that restore would reject: %s", name, why);
		goto err_free;
	}
	ret = cs_imgdir_write_atomic(dirfd, name, buf, len);
	if (ret)
		cs_seterr(err, errlen, "cannot write manifest %s (%zu bytes) in the images directory: %s",
			  name, len, strerror(-ret));
err_free:
	free(buf);
	return ret;
}

static void cs_explain_open(const char *what, const char *name, int ret, const struct stat *st, char *err,
			    size_t errlen)
{
	if (ret == -ENOENT)
		cs_seterr(err, errlen, "%s %s is missing from the images directory: images incomplete", what,
			  name);
	else if (ret == -ELOOP)
		cs_seterr(err, errlen, "%s %s is a symbolic link; refusing to follow it: remove it", what,
			  name);
	else if (ret == -EINVAL && st->st_mode)
		cs_seterr(err, errlen,
			  "%s %s is not a regular file (mode %06o): images corrupt or tampered with", what,
			  name, (unsigned)st->st_mode);
	else
		cs_seterr(err, errlen, "cannot open %s %s: %s", what, name, strerror(-ret));
}

int cs_manifest_read(int dirfd, const char *name, struct cs_manifest *m, char *err, size_t errlen)
{
	char why[512];
	struct stat st = { 0 };
	size_t len;
	void *buf;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = cs_imgdir_read_all(dirfd, name, CS_FRAME_HDR + CS_MAX_MANIFEST_BYTES, &buf, &len);
	if (ret == -EFBIG) {
		cs_seterr(err, errlen, "manifest %s is larger than the %u-byte limit" CS_IMAGES_CORRUPT, name,
			  CS_FRAME_HDR + CS_MAX_MANIFEST_BYTES);
		return ret;
	}
	if (ret) {
		if (ret == -EINVAL) /* say what it is instead: fstatat without following */
			fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
		cs_explain_open("manifest", name, ret, &st, err, errlen);
		return ret;
	}
	ret = cs_manifest_decode(buf, len, m, why, sizeof(why));
	if (ret)
		cs_seterr(err, errlen, "%s: %s", name, why);
	free(buf);
	return ret;
}

/* chunk c of device i: its file there, regular, of its length */
static int cs_check_chunk(int cfd, const struct cs_manifest_dev *d, unsigned i, uint64_t c, char *err,
			  size_t errlen)
{
	uint64_t len = c + 1 < d->nchunks ? d->chunk_size : d->size - c * d->chunk_size, size = 0;
	const uint8_t *id = d->ids + c * CS_CHUNK_ID_BYTES;
	char rel[CS_CHUNK_REL];
	int ret = cs_chunk_stat(cfd, id, len, &size);

	if (!ret)
		return 0;
	cs_chunk_rel(id, rel);
	if (ret == -ENOENT)
		cs_seterr(err, errlen,
			  "chunk %llu of device %u, %s/%s, is missing from the images directory: images "
			  "incomplete",
			  (unsigned long long)c, i, CS_CHUNKS_DIR, rel);
	else if (ret == -EBADMSG)
		cs_seterr(err, errlen,
			  "chunk %llu of device %u, %s/%s, is %llu bytes, manifest says %llu: images "
			  "truncated or corrupt",
			  (unsigned long long)c, i, CS_CHUNKS_DIR, rel, (unsigned long long)size,
			  (unsigned long long)len);
	else
		cs_seterr(err, errlen,
			  "chunk %llu of device %u, %s/%s, is not a regular file: images "
			  "corrupt or tampered with",
			  (unsigned long long)c, i, CS_CHUNKS_DIR, rel);
	return ret == -EINVAL ? -EBADMSG : ret;
}

static int cs_check_chunks(int dirfd, const struct cs_manifest_dev *d, unsigned i, char *err, size_t errlen)
{
	int cfd = cs_chunks_dir_open(dirfd, false), ret = 0;

	if (cfd < 0)
		return cs_fail(cfd == -ENOENT ? -ENOENT : cfd, err, errlen,
			       "device %u is chunked, and %s cannot be opened in the images directory: %s", i,
			       CS_CHUNKS_DIR, cfd == -ENOENT ? "images incomplete" : strerror(-cfd));
	for (uint64_t c = 0; c < d->nchunks && !ret; c++)
		if (!d->zero[c])
			ret = cs_check_chunk(cfd, d, i, c, err, errlen);
	close(cfd);
	return ret;
}

int cs_manifest_check_extents(int dirfd, const struct cs_manifest *m, char *err, size_t errlen)
{
	if (m->ndev > CS_MAX_DEVICES) {
		cs_seterr(err, errlen, "manifest has %u devices, limit is %d", m->ndev, CS_MAX_DEVICES);
		return -EINVAL;
	}
	for (unsigned i = 0; i < m->ndev; i++) {
		const struct cs_manifest_dev *d = &m->dev[i];
		unsigned n = d->nstripes ? d->nstripes : 1;

		if (n > CS_MAX_STRIPES) {
			cs_seterr(err, errlen, "manifest device %u has %u extent files, limit is %d", i, n,
				  CS_MAX_STRIPES);
			return -EINVAL;
		}
		if (d->ids) {
			int ret = cs_check_chunks(dirfd, d, i, err, errlen);

			if (ret)
				return ret;
			continue;
		}
		for (unsigned k = 0; k < n; k++) {
			const char *name = k ? d->stripe[k] : d->extent;
			uint64_t want = cs_stripe_size(d->size, d->chunk_size, n, k);
			struct stat st = { 0 };
			int fd;

			fd = cs_imgdir_open_ro(dirfd, name, 0, &st);
			if (fd < 0) {
				cs_explain_open("extent", name, fd, &st, err, errlen);
				return fd;
			}
			close(fd);
			if ((uint64_t)st.st_size != want) {
				cs_seterr(err, errlen,
					  "extent %s is %llu bytes, manifest says %llu: images truncated or "
					  "corrupt",
					  name, (unsigned long long)st.st_size, (unsigned long long)want);
				return -EBADMSG;
			}
		}
	}
	return 0;
}

/* Only dev[0..ndev) is looked at: entries past ndev may be uninitialised in a caller's struct. */
void cs_manifest_free(struct cs_manifest *m)
{
	if (!m)
		return;
	for (unsigned i = 0; i < m->ndev && i < CS_MAX_DEVICES; i++) {
		free(m->dev[i].hash);
		free(m->dev[i].zero);
		free(m->dev[i].ids);
		m->dev[i].hash = NULL;
		m->dev[i].zero = NULL;
		m->dev[i].ids = NULL;
		m->dev[i].nchunks = 0;
	}
}
