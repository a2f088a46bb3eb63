// SPDX-License-Identifier: MIT
/*
 * cs-sparse-images - writes a tiny images directory that claims a lot of GPU memory: a manifest
 * (format 1.0, through the plugin's own encoder, so every check a restore makes passes) of NDEV
 * devices of SIZE bytes in chunks of CHUNK bytes, each chunk of zeros but not flagged all-zero,
 * and sparse extent files: a few KiB on disk that cudastore verify must read in full.
 *   cs-sparse-images DIR NSPID NDEV CHUNK SIZE [index]
 * With "index": format 1.1, a dump_id in the manifest and cudastore-index.img listing NSPID.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "imgindex.h"
#include "manifest.h"

/* XXH3-64 of len zero bytes, len <= chunk */
static uint64_t zero_hash(const void *zeros, uint64_t len)
{
	return XXH3_64bits(zeros, (size_t)len);
}

static int make_dev(int dirfd, int nspid, unsigned i, uint32_t chunk, uint64_t size, const void *zeros,
		    struct cs_manifest_dev *d)
{
	int fd;

	d->uuid.bytes[0] = (char)(i + 1);
	d->ordinal = (int32_t)i;
	d->size = d->stored_bytes = size;
	d->chunk_size = chunk;
	d->nchunks = (size + chunk - 1) / chunk;
	d->nstripes = 1;
	d->hash = calloc(d->nchunks, sizeof(*d->hash));
	d->zero = calloc(d->nchunks, 1);
	if (!d->hash || !d->zero)
		return -1;
	for (uint64_t c = 0; c < d->nchunks; c++)
		d->hash[c] = zero_hash(zeros, size - c * chunk < chunk ? size - c * chunk : chunk);
	cs_name_extent(d->extent, nspid, i);
	snprintf(d->stripe[0], CS_NAME_MAX, "%s", d->extent);
	fd = openat(dirfd, d->extent, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		perror(d->extent);
		return -1;
	}
	return close(fd);
}

int main(int argc, char **argv)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));
	char name[CS_NAME_MAX], err[512] = "";
	uint32_t chunk;
	uint64_t size;
	void *zeros;
	int dirfd, nspid, ret = 0;
	unsigned ndev;

	if ((argc != 6 && argc != 7) || !m)
		return 2;
	nspid = atoi(argv[2]);
	ndev = (unsigned)atoi(argv[3]);
	chunk = (uint32_t)strtoul(argv[4], NULL, 0);
	size = strtoull(argv[5], NULL, 0);
	zeros = calloc(1, chunk);
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!zeros || dirfd < 0 || ndev > CS_MAX_DEVICES)
		return 2;
	m->format_major = 1;
	m->mode = CS_MODE_CUSTOM;
	m->pid = m->ns_pid = nspid;
	m->driver_version = 13040;
	snprintf(m->plugin_version, sizeof(m->plugin_version), "test");
	for (unsigned i = 0; i < ndev && !ret; i++) {
		m->ndev = i + 1;
		ret = make_dev(dirfd, nspid, i, chunk, size, zeros, &m->dev[i]);
		m->total_bytes += size;
		m->stored_bytes += size;
	}
	cs_name_manifest(name, nspid);
	if (argc == 7) {
		struct cs_index x = { .n = 1, .ns_pid = { nspid } };

		memset(x.dump_id, 0x5a, sizeof(x.dump_id));
		memcpy(m->dump_id, x.dump_id, sizeof(m->dump_id));
		m->has_dump_id = true;
		m->format_minor = 1;
		if (!ret)
			ret = cs_index_write(dirfd, &x);
	}
	if (!ret)
		ret = cs_manifest_write(dirfd, name, m, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "cs-sparse-images: %s\n", err);
	cs_manifest_free(m);
	free(m);
	free(zeros);
	close(dirfd);
	return ret ? 1 : 0;
}
