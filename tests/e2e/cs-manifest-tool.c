// SPDX-License-Identifier: MIT
/*
 * cs-manifest-tool - inspect and deliberately damage cudastore manifests for tests.
 *
 *   cs-manifest-tool FILE show                  print the fields, one "key value" per line
 *   cs-manifest-tool FILE set-extent I NAME     rename device I's extent (no safety check)
 *   cs-manifest-tool FILE set-major N           claim format major version N
 *   cs-manifest-tool FILE make-1.0              drop the format 1.1 fields (dump_id): the manifest
 *                                               a cudastore before format 1.1 wrote
 *   cs-manifest-tool FILE set-ns-pid N          claim to be the manifest of ns pid N
 *   cs-manifest-tool FILE set-dump-id HEX       claim to be written by dump HEX (32 hex digits)
 *   cs-manifest-tool FILE grow I DIR            grow device I by one chunk of zeros, keeping the
 *                                               manifest self-consistent (file, hashes, totals)
 *   cs-manifest-tool FILE make-1.3              drop the format 1.4 facts (the GPUs and the host):
 *                                               the manifest a cudastore before format 1.4 wrote
 *   cs-manifest-tool FILE set-host KEY VALUE    set the host fact KEY (driver_version, libcuda_id,
 *                                               arch: a string as given; driver_branch: a number)
 *   cs-manifest-tool FILE set-gpu-name I NAME   set the product name of the GPU fact I
 * The frame is rewritten with a correct checksum, so only the plugin's semantic checks can
 * catch the damage. Works on the raw protobuf, bypassing the plugin's validation on purpose.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cudastore.pb-c.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc((size_t)st.st_size + 1)) ||
	    read(fd, buf, (size_t)st.st_size) != st.st_size) {
		perror(path);
		exit(2);
	}
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static void save(const char *path, CsManifest *m)
{
	size_t n = cs_manifest__get_packed_size(m);
	uint8_t *buf = malloc(16 + n);
	uint32_t len = (uint32_t)n;
	uint64_t h;
	FILE *f;

	cs_manifest__pack(m, buf + 16);
	h = XXH3_64bits(buf + 16, n);
	memcpy(buf, "CSMF", 4);
	memcpy(buf + 4, &len, 4);
	memcpy(buf + 8, &h, 8);
	f = fopen(path, "w");
	if (!f || fwrite(buf, 1, 16 + n, f) != 16 + n || fclose(f)) {
		perror(path);
		exit(2);
	}
	free(buf);
}

static uint64_t hash_range(int fd, uint64_t off, uint64_t len)
{
	uint8_t *buf = malloc(len);
	uint64_t h;

	if (!buf || pread(fd, buf, len, (off_t)off) != (ssize_t)len) {
		perror("pread");
		exit(2);
	}
	h = XXH3_64bits(buf, len);
	free(buf);
	return h;
}

static void grow(CsManifest *m, unsigned i, const char *dir)
{
	CsDevice *d = m->devices[i];
	uint64_t cs = d->chunk_size, old = d->size, nsz = old + cs;
	size_t nold = (size_t)((old + cs - 1) / cs), nnew = (size_t)((nsz + cs - 1) / cs), k;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, d->extent);
	fd = open(path, O_RDWR);
	if (fd < 0 || ftruncate(fd, (off_t)nsz)) {
		perror(path);
		exit(2);
	}
	d->chunk_hash = realloc(d->chunk_hash, nnew * sizeof(uint64_t));
	d->zero_chunks.data = realloc(d->zero_chunks.data, (nnew + 7) / 8);
	memset(d->zero_chunks.data + d->zero_chunks.len, 0, (nnew + 7) / 8 - d->zero_chunks.len);
	d->zero_chunks.len = (nnew + 7) / 8;
	for (k = nold ? nold - 1 : 0; k < nnew; k++) {
		uint64_t off = k * cs, len = nsz - off < cs ? nsz - off : cs;

		d->chunk_hash[k] = hash_range(fd, off, len);
		d->zero_chunks.data[k / 8] &= (uint8_t)~(1u << (k % 8));
	}
	/* recount stored bytes: every chunk not flagged zero */
	d->stored_bytes = 0;
	for (k = 0; k < nnew; k++)
		if (!(d->zero_chunks.data[k / 8] & (1u << (k % 8))))
			d->stored_bytes += (nsz - k * cs < cs ? nsz - k * cs : cs);
	d->n_chunk_hash = nnew;
	d->size = nsz;
	m->total_bytes = 0;
	m->stored_bytes = 0;
	for (k = 0; k < m->n_devices; k++) {
		m->total_bytes += m->devices[k]->size;
		m->stored_bytes += m->devices[k]->stored_bytes;
	}
	close(fd);
}

/* the manifest without its GPU and host facts written to path; m keeps them (freed with it) */
static void save_without_facts(const char *path, CsManifest *m)
{
	CsGpu **gpus = m->gpus;
	CsHost *host = m->host;
	size_t n = m->n_gpus;
	uint32_t minor = m->format_minor;

	m->gpus = NULL;
	m->n_gpus = 0;
	m->host = NULL;
	m->format_minor = 3;
	save(path, m);
	m->gpus = gpus;
	m->n_gpus = n;
	m->host = host;
	m->format_minor = minor;
}

/* host fact key set to value in the file path (m unchanged after); 2 on a bad key */
static int set_host(const char *path, CsManifest *m, const char *key, char *value)
{
	char **field = !strcmp(key, "driver_version") ? &m->host->driver_version
		       : !strcmp(key, "libcuda_id")   ? &m->host->libcuda_id
		       : !strcmp(key, "arch")	      ? &m->host->arch
						      : NULL;
	char *old;

	if (!strcmp(key, "driver_branch")) {
		m->host->has_driver_branch = 1;
		m->host->driver_branch = (uint32_t)atoi(value);
		save(path, m);
		return 0;
	}
	if (!field)
		return 2;
	old = *field; /* the manifest's own, freed with it */
	*field = value;
	save(path, m);
	*field = old;
	return 0;
}

static int set_gpu_name(const char *path, CsManifest *m, size_t i, char *name)
{
	char *old = m->gpus[i]->name;

	m->gpus[i]->name = name;
	save(path, m);
	m->gpus[i]->name = old;
	return 0;
}

static void show(const CsManifest *m)
{
	size_t i, k;

	printf("major %u\nminor %u\nmode %d\nns_pid %d\ndevices %zu\ntotal_bytes %llu\nstored_bytes "
	       "%llu\ndump_id %s\n",
	       m->format_major, m->format_minor, m->mode, m->ns_pid, m->n_devices,
	       (unsigned long long)m->total_bytes, (unsigned long long)m->stored_bytes,
	       m->has_dump_id ? "yes" : "none");
	for (i = 0; i < m->n_devices; i++)
		printf("device %zu ordinal %d size %llu extent %s chunk %u stored %llu\n", i,
		       m->devices[i]->ordinal, (unsigned long long)m->devices[i]->size, m->devices[i]->extent,
		       m->devices[i]->chunk_size, (unsigned long long)m->devices[i]->stored_bytes);
	for (i = 0; i < m->n_devices; i++)
		if (m->devices[i]->has_chunk_ids)
			printf("device %zu chunks %zu scheme %s new_bytes %llu\n", i,
			       m->devices[i]->chunk_ids.len / 32, m->devices[i]->chunk_id_scheme,
			       (unsigned long long)m->devices[i]->new_bytes);
	for (i = 0; i < m->n_devices; i++)
		for (k = 0; k < m->devices[i]->n_stripe_extent; k++)
			printf("device %zu stripe %zu extent %s\n", i, k + 1,
			       m->devices[i]->stripe_extent[k]);
	printf("gpus %zu\n", m->n_gpus);
	if (m->host)
		printf("host driver_version %s branch %u arch %s libcuda_id %s\n",
		       m->host->driver_version ? m->host->driver_version : "-", m->host->driver_branch,
		       m->host->arch ? m->host->arch : "-", m->host->libcuda_id ? m->host->libcuda_id : "-");
	else
		printf("host none\n");
}

/* apply the command argv[2...] to m and write it back to path; 2 on a bad command */
static int edit(CsManifest *m, int argc, char **argv)
{
	char *extent;

	if (!strcmp(argv[2], "set-extent") && argc == 5 && (size_t)atoi(argv[3]) < m->n_devices) {
		extent = m->devices[atoi(argv[3])]->extent; /* the manifest's own, freed with it */
		m->devices[atoi(argv[3])]->extent = argv[4];
		save(argv[1], m);
		m->devices[atoi(argv[3])]->extent = extent;
		return 0;
	}
	if (!strcmp(argv[2], "make-1.3") && argc == 3) {
		save_without_facts(argv[1], m);
		return 0;
	}
	if (!strcmp(argv[2], "set-host") && argc == 5 && m->host)
		return set_host(argv[1], m, argv[3], argv[4]);
	if (!strcmp(argv[2], "set-gpu-name") && argc == 5 && (size_t)atoi(argv[3]) < m->n_gpus)
		return set_gpu_name(argv[1], m, (size_t)atoi(argv[3]), argv[4]);
	if (!strcmp(argv[2], "set-major") && argc == 4)
		m->format_major = (uint32_t)atoi(argv[3]);
	else if (!strcmp(argv[2], "set-ns-pid") && argc == 4)
		m->ns_pid = atoi(argv[3]);
	else if (!strcmp(argv[2], "set-dump-id") && argc == 4 && m->has_dump_id && m->dump_id.len == 16 &&
		 strlen(argv[3]) == 32)
		for (int i = 0; i < 16; i++)
			sscanf(argv[3] + 2 * i, "%2hhx", &m->dump_id.data[i]);
	else if (!strcmp(argv[2], "make-1.0") && argc == 3)
		m->has_dump_id = 0, m->format_minor = 0;
	else if (!strcmp(argv[2], "grow") && argc == 5 && (size_t)atoi(argv[3]) < m->n_devices)
		grow(m, (unsigned)atoi(argv[3]), argv[4]);
	else
		return 2;
	save(argv[1], m);
	return 0;
}

/* everything it allocates is freed before it exits: the sanitizer build's leak check runs it */
int main(int argc, char **argv)
{
	size_t len;
	uint8_t *buf;
	CsManifest *m = NULL;
	int ret = 2;

	if (argc < 3)
		return 2;
	buf = slurp(argv[1], &len);
	if (len >= 16 && !memcmp(buf, "CSMF", 4))
		m = cs_manifest__unpack(NULL, len - 16, buf + 16);
	free(buf);
	if (!m)
		return 2;
	if (!strcmp(argv[2], "show")) {
		show(m);
		ret = 0;
	} else {
		ret = edit(m, argc, argv);
	}
	cs_manifest__free_unpacked(m, NULL);
	return ret;
}
