// SPDX-License-Identifier: MIT
/*
 * test-cli-inventory-run - cudastore verify's reader of CRIU's inventory.img (cli/inventory.c):
 * the run id of field 13 (dump_criu_run_id) taken as a restoring criu takes it (after fields
 * before and after it, the last one counting, cut to 36 characters, "" when absent or no run
 * id), and every file criu itself could not read refused with the reason: a short file, another
 * magic, a truncated entry, a wire type criu's protobuf refuses, no img_version, a symbolic link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "cli.h"
#include "imgdir.h"

#define RUN "6a1c3f0e-2b4d-4e8f-9a7b-5c6d7e8f9a0b"

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		c |= v ? 0x80 : 0;
		put(b, &c, 1);
	} while (v);
}

static void field_varint(struct buf *b, unsigned field, uint64_t v)
{
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

static void field_bytes(struct buf *b, unsigned field, const void *p, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	put(b, p, n);
}

static void le32(struct buf *b, uint32_t v)
{
	uint8_t c[4] = { v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 };

	put(b, c, 4);
}

/* f: CRIU's inventory.img framing of the entry e (magic, length, entry) */
static void frame(struct buf *f, const struct buf *e)
{
	f->n = 0;
	le32(f, 0x58313116u);
	le32(f, (uint32_t)e->n);
	put(f, e->b, e->n);
}

/* an inventory entry as criu 4.2 writes one: img_version, root_ids, ns_per_id, lsmtype,
 * dump_uptime, network_lock_method, plugins_entry, field 13 = run (when not NULL), allow_uprobes */
static void entry(struct buf *e, const char *run)
{
	struct buf ids = { .n = 0 }, plug = { .n = 0 };

	e->n = 0;
	field_varint(e, 1, 2);
	field_varint(&ids, 1, 1);
	field_varint(&ids, 2, 2);
	field_bytes(e, 3, ids.b, ids.n);
	field_varint(e, 4, 1);
	field_varint(e, 6, 0);
	field_varint(e, 8, 123456789012ull);
	field_varint(e, 11, 2);
	field_bytes(&plug, 12, "cudastore", 9);
	field_bytes(e, 12, plug.b, plug.n);
	if (run)
		field_bytes(e, 13, run, strlen(run));
	field_varint(e, 14, 0);
}

static void inventory(struct buf *f, const char *run)
{
	struct buf e;

	entry(&e, run);
	frame(f, &e);
}

static int parse(const struct buf *f, char *run, char *err)
{
	err[0] = '\0';
	return cli_inventory_parse(f->b, f->n, run, err, 512);
}

static void runs_as_criu_takes_them(void)
{
	char run[CS_CRIU_RUN_MAX + 1], err[512], long_run[64];
	struct buf f, e;

	inventory(&f, RUN);
	tap_ok(parse(&f, run, err) == 0 && !strcmp(run, RUN),
	       "the run of field 13, after and before other fields");
	inventory(&f, NULL);
	tap_ok(parse(&f, run, err) == 0 && run[0] == '\0',
	       "an inventory without field 13 (an older criu): \"\"");
	inventory(&f, "\x7f");
	tap_ok(parse(&f, run, err) == 0 && run[0] == '\0', "criu's own \"none\" marker: \"\"");
	inventory(&f, "not a run id!");
	tap_ok(parse(&f, run, err) == 0 && run[0] == '\0',
	       "text that is no run id: \"\" (the plugin sends none)");
	snprintf(long_run, sizeof(long_run), "%sabcdef", RUN);
	inventory(&f, long_run);
	tap_ok(parse(&f, run, err) == 0 && strlen(run) == CS_CRIU_RUN_MAX &&
		   !strncmp(run, long_run, CS_CRIU_RUN_MAX),
	       "a longer one cut to 36 characters, as criu's strncpy does");
	entry(&e, "0000");
	field_bytes(&e, 13, RUN, strlen(RUN));
	frame(&f, &e);
	tap_ok(parse(&f, run, err) == 0 && !strcmp(run, RUN), "of two, the last counts (protobuf's rule): %s",
	       err);
	inventory(&f, RUN);
	f.b[f.n++] = 0xee; /* criu reads the entry's length and no further */
	tap_ok(parse(&f, run, err) == 0 && !strcmp(run, RUN), "bytes after the entry are not read");
}

static void what_criu_cannot_read(void)
{
	char run[CS_CRIU_RUN_MAX + 1], err[512];
	struct buf f, e = { .n = 0 };

	inventory(&f, RUN);
	f.n = 6;
	tap_ok(parse(&f, run, err) == -EBADMSG && strstr(err, "shorter than CRIU's 8-byte header"),
	       "short: %s", err);
	inventory(&f, RUN);
	f.b[0] ^= 1;
	tap_ok(parse(&f, run, err) == -EBADMSG && strstr(err, "not CRIU's inventory"), "another magic: %s",
	       err);
	inventory(&f, RUN);
	f.n -= 3;
	tap_ok(parse(&f, run, err) == -EBADMSG && strstr(err, "truncated") && run[0] == '\0', "truncated: %s",
	       err);
	field_varint(&e, 1, 2);
	varint(&e, 5 << 3 | 3); /* a group */
	frame(&f, &e);
	tap_ok(parse(&f, run, err) == -EBADMSG && strstr(err, "not a valid inventory_entry"), "a group: %s",
	       err);
	e.n = 0;
	field_varint(&e, 1, 2);
	field_varint(&e, 13, 7); /* the run as a number */
	frame(&f, &e);
	tap_ok(parse(&f, run, err) == -EBADMSG, "field 13 of another wire type: %s", err);
	e.n = 0;
	field_bytes(&e, 13, RUN, strlen(RUN));
	frame(&f, &e);
	tap_ok(parse(&f, run, err) == -EBADMSG && strstr(err, "img_version") && run[0] == '\0',
	       "no img_version (required): %s", err);
}

static void in_a_directory(void)
{
	char path[4096], run[CS_CRIU_RUN_MAX + 1], err[512] = "";
	struct buf f;
	int dirfd;

	snprintf(path, sizeof(path), "%s/cs-inventory-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(path) || (dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		tap_bail("scratch directory");
	tap_ok(cli_inventory_run(dirfd, run, err, sizeof(err)) == -ENOENT && run[0] == '\0',
	       "no inventory.img: -ENOENT");
	inventory(&f, RUN);
	if (cs_imgdir_write_atomic(dirfd, "real.img", f.b, f.n) ||
	    symlinkat("real.img", dirfd, CLI_INVENTORY))
		tap_bail("files");
	tap_ok(cli_inventory_run(dirfd, run, err, sizeof(err)) < 0 && strstr(err, "not a regular file"),
	       "a symbolic link is not followed: %s", err);
	unlinkat(dirfd, CLI_INVENTORY, 0);
	renameat(dirfd, "real.img", dirfd, CLI_INVENTORY);
	tap_ok(cli_inventory_run(dirfd, run, err, sizeof(err)) == 0 && !strcmp(run, RUN),
	       "read from the directory");
	unlinkat(dirfd, CLI_INVENTORY, 0);
	close(dirfd);
	rmdir(path);
}

int main(void)
{
	tap_plan(7 + 6 + 3);
	runs_as_criu_takes_them();
	what_criu_cannot_read();
	in_a_directory();
	return tap_done();
}
