// SPDX-License-Identifier: MIT
/*
 * inventory.c - the run id CRIU recorded in an images directory's inventory.img.
 *
 * A restoring criu reads inventory.img before it initialises its plugins and keeps the run id of
 * the dump it names (inventory_entry field 13, dump_criu_run_id) for them; cudastore verify reads
 * it here so that it ties the cudastore images to the same CRIU dump a restore does (imgindex.h,
 * cs_index_file_bind). The file is CRIU's INVENTORY_MAGIC (u32 LE, no common magic before it, as
 * for no other image), the entry's length (u32 LE), then the protobuf inventory_entry
 * (criu/image.c, criu/protobuf.c, images/inventory.proto). Only two fields matter and protobuf's
 * wire format is simple, so a walk over the fields replaces CRIU's generated code: it refuses
 * what criu's own unpacking would (a short file, a bad wire type, a missing img_version) and
 * takes field 13 as criu does: at most 36 characters (strncpy into RUN_ID_HASH_LENGTH bytes).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "criu_run.h"
#include "errmsg.h"
#include "imgdir.h"

#define INVENTORY_MAGIC	    0x58313116u /* CRIU's criu/include/magic.h */
#define INV_IMG_VERSION	    1		/* required uint32 img_version */
#define INV_DUMP_CRIU_RUN   13		/* optional string dump_criu_run_id */
#define INV_MAX_BYTES	    (1u << 20)	/* far more than any inventory criu writes */
#define NO_DUMP_CRIU_RUN_ID 0x7f	/* what criu's own marker for "none" starts with */

struct pb {
	const uint8_t *p, *end;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* one base-128 varint; -1 when it runs past the end or over 10 bytes */
static int pb_varint(struct pb *b, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 70 && b->p < b->end; shift += 7) {
		uint8_t c = *b->p++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

/* skip n bytes; -1 past the end */
static int pb_skip(struct pb *b, uint64_t n)
{
	if (n > (uint64_t)(b->end - b->p))
		return -1;
	b->p += n;
	return 0;
}

/* The dump's run id as criu keeps it (see the top): "" when it names none. */
static void take_run(const uint8_t *s, uint64_t len, char run[CS_CRIU_RUN_MAX + 1])
{
	size_t n = 0;

	while (n < len && n < CS_CRIU_RUN_MAX && s[n])
		n++;
	run[0] = '\0';
	if (n && s[0] != NO_DUMP_CRIU_RUN_ID && cs_criu_run_ok((const char *)s, n)) {
		memcpy(run, s, n);
		run[n] = '\0';
	}
}

/* one field of the entry: field 13 into run, img_version noted, the rest skipped; -1 malformed */
static int pb_field(struct pb *b, char run[CS_CRIU_RUN_MAX + 1], bool *version)
{
	uint64_t key, v;
	unsigned field;

	if (pb_varint(b, &key) || !(key >> 3) || key >> 32)
		return -1;
	field = (unsigned)(key >> 3);
	switch (key & 7) {
	case 0:
		*version |= field == INV_IMG_VERSION;
		return field == INV_DUMP_CRIU_RUN ? -1 : pb_varint(b, &v);
	case 1:
		return field == INV_DUMP_CRIU_RUN || field == INV_IMG_VERSION ? -1 : pb_skip(b, 8);
	case 2:
		if (pb_varint(b, &v) || field == INV_IMG_VERSION || v > (uint64_t)(b->end - b->p))
			return -1;
		if (field == INV_DUMP_CRIU_RUN) /* the last one counts, as in protobuf */
			take_run(b->p, v, run);
		return pb_skip(b, v);
	case 5:
		return field == INV_DUMP_CRIU_RUN || field == INV_IMG_VERSION ? -1 : pb_skip(b, 4);
	default: /* groups (3, 4) are in no CRIU image; 6 and 7 do not exist */
		return -1;
	}
}

int cli_inventory_parse(const void *buf, size_t len, char run[CS_CRIU_RUN_MAX + 1], char *err, size_t errlen)
{
	const uint8_t *p = buf;
	bool version = false;
	struct pb b;
	uint32_t n;

	run[0] = '\0';
	if (len < 8)
		return cs_fail(-EBADMSG, err, errlen, "%s: %zu bytes, shorter than CRIU's 8-byte header",
			       CLI_INVENTORY, len);
	if (le32(p) != INVENTORY_MAGIC)
		return cs_fail(-EBADMSG, err, errlen, "%s: magic is 0x%08x, not CRIU's inventory (0x%08x)",
			       CLI_INVENTORY, le32(p), INVENTORY_MAGIC);
	n = le32(p + 4);
	if (n > len - 8)
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: its entry claims %u bytes, the file holds %zu after "
			       "the header: truncated",
			       CLI_INVENTORY, n, len - 8);
	b.p = p + 8;
	b.end = b.p + n;
	while (b.p < b.end)
		if (pb_field(&b, run, &version)) {
			run[0] = '\0';
			return cs_fail(-EBADMSG, err, errlen,
				       "%s: its entry is not a valid inventory_entry (at byte %zu)",
				       CLI_INVENTORY, (size_t)(b.p - p));
		}
	if (!version) {
		run[0] = '\0';
		return cs_fail(-EBADMSG, err, errlen, "%s: its entry has no img_version (field 1)",
			       CLI_INVENTORY);
	}
	return 0;
}

int cli_inventory_run(int dirfd, char run[CS_CRIU_RUN_MAX + 1], char *err, size_t errlen)
{
	size_t len;
	void *buf;
	int ret;

	run[0] = '\0';
	ret = cs_imgdir_read_all(dirfd, CLI_INVENTORY, INV_MAX_BYTES, &buf, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret)
		return cs_fail(ret == -EFBIG ? -EBADMSG : ret, err, errlen, "cannot read %s: %s%s",
			       CLI_INVENTORY, strerror(-ret),
			       ret == -EINVAL || ret == -ELOOP ? " (not a regular file)" : "");
	ret = cli_inventory_parse(buf, len, run, err, errlen);
	free(buf);
	return ret;
}
