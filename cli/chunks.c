// SPDX-License-Identifier: MIT
/*
 * chunks.c - what inspect shows of chunked images (docs/image-format.md section 10): per device
 * the bytes this dump wrote against those it found in its parent or the store, whether every
 * chunk is linked in the images directory (looked at with fstatat, never read), and the dump's
 * chain of parents as each index names it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chunk_parent.h"
#include "chunkstore.h"
#include "cli.h"
#include "imgindex.h"

/* chunks of d not linked in dirfd's cudastore-chunks (every one when that is missing) */
static uint64_t missing(int dirfd, const struct cs_manifest_dev *d)
{
	int cfd = cs_chunks_dir_open(dirfd, false);
	uint64_t n = 0;

	for (uint64_t c = 0; c < d->nchunks; c++) {
		uint64_t len = c + 1 < d->nchunks ? d->chunk_size : d->size - c * d->chunk_size;

		if (!d->zero[c] && (cfd < 0 || cs_chunk_stat(cfd, d->ids + c * CS_CHUNK_ID_LEN, len, NULL)))
			n++;
	}
	if (cfd >= 0)
		close(cfd);
	return n;
}

bool cli_chunks_text(int dirfd, const struct cs_manifest_dev *d)
{
	char a[32], b[32];
	uint64_t lost = missing(dirfd, d);

	cli_line("    chunks %s/ (%s): %s new in this dump, %s found in its parent or store%s", CS_CHUNKS_DIR,
		 CS_CHUNK_SCHEME, cli_bytes(d->new_bytes, a, sizeof(a)),
		 cli_bytes(d->stored_bytes - d->new_bytes, b, sizeof(b)), lost ? "" : ", every one linked");
	if (lost)
		cli_line("    chunks: %llu MISSING or of the wrong size", (unsigned long long)lost);
	return !lost;
}

bool cli_chunks_json(json_object *dev, int dirfd, const struct cs_manifest_dev *d)
{
	json_object *o = cli_jobj(dev, "chunk_files");
	uint64_t lost = missing(dirfd, d);

	cli_jstr(o, "scheme", CS_CHUNK_SCHEME);
	cli_ju64(o, "new_bytes", d->new_bytes);
	cli_ju64(o, "found_bytes", d->stored_bytes - d->new_bytes);
	cli_ju64(o, "missing_chunks", lost);
	return !lost;
}

/*
 * Each parent in turn (the index's parent_dir, relative to the directory that names it), at most
 * CS_CHAIN_MAX: fn(arg, dir, state, dump_id hex) with state "", "deleted" or "a loop".
 */
static void walk(int dirfd, void (*fn)(void *arg, const char *dir, const char *state, const char *id),
		 void *arg)
{
	uint8_t seen[CS_CHAIN_MAX + 1][CS_DUMP_ID_BYTES];
	unsigned nseen = 0;
	struct cs_index x;
	char why[512], id[2 * CS_DUMP_ID_BYTES + 1];
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || cs_index_read(fd, &x, why, sizeof(why)))
		goto out;
	memcpy(seen[nseen++], x.dump_id, CS_DUMP_ID_BYTES);
	while (x.has_parent && nseen <= CS_CHAIN_MAX) {
		char dir[CS_INDEX_PARENT_MAX + 1];
		int next;
		bool loop = false;

		snprintf(dir, sizeof(dir), "%s", x.parent_dir);
		for (unsigned i = 0; i < CS_DUMP_ID_BYTES; i++)
			snprintf(id + 2 * i, 3, "%02x", x.parent_dump_id[i]);
		next = openat(fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || cs_index_read(next, &x, why, sizeof(why))) {
			fn(arg, dir, "deleted", id);
			if (next >= 0)
				close(next);
			break;
		}
		close(fd);
		fd = next;
		for (unsigned i = 0; i < nseen; i++)
			loop |= !memcmp(seen[i], x.dump_id, CS_DUMP_ID_BYTES);
		fn(arg, dir, loop ? "a loop" : "", id);
		if (loop)
			break;
		memcpy(seen[nseen++], x.dump_id, CS_DUMP_ID_BYTES);
	}
out:
	if (fd >= 0)
		close(fd);
}

struct chain_text {
	char line[1024];
	unsigned n;
};

static void add_text(void *arg, const char *dir, const char *state, const char *id)
{
	struct chain_text *c = arg;
	size_t used = strlen(c->line);

	snprintf(c->line + used, sizeof(c->line) - used, "%s%s (dump %.8s%s%s)", c->n++ ? ", then " : "", dir,
		 id, *state ? ", " : "", state);
}

void cli_chain_text(int dirfd)
{
	struct chain_text c = { .line = "", .n = 0 };

	walk(dirfd, add_text, &c);
	if (c.n)
		cli_line("  parents:        %s", c.line);
}

static void add_json(void *arg, const char *dir, const char *state, const char *id)
{
	json_object *o = cli_jobj(arg, NULL);

	cli_jstr(o, "dir", dir);
	cli_jstr(o, "dump_id", id);
	cli_jbool(o, "present", strcmp(state, "deleted") != 0);
	cli_jbool(o, "loop", !strcmp(state, "a loop"));
}

void cli_chain_json(json_object *p, int dirfd)
{
	walk(dirfd, add_json, cli_jarr(p, "parents"));
}
