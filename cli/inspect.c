// SPDX-License-Identifier: MIT
/*
 * inspect.c - cudastore inspect DIR [PID]: what the images of each process hold.
 *
 * The manifest is read with the plugin's cs_manifest_read (so a manifest inspect shows is one
 * a restore would parse); the extents are looked at with fstatat (no link followed); the
 * phase timings come from the JSON summary the plugin writes next to the manifest
 * (cudastore-<nspid>.json, format in docs/image-format.md). Nothing is hashed: that is verify.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "imgdir.h"
#include "manifest.h"

#define SUB	   "inspect"
#define MAX_PHASES 32

struct phase {
	char name[32];
	double seconds;
	unsigned long long bytes;
};

struct extent_info {
	bool present;
	uint64_t size, allocated;
	char err[128];
};

/* Phases from the plugin's own summary format (summary.c writes exactly this layout). */
static int read_phases(int dirfd, int nspid, struct phase *ph, double *total)
{
	char name[CS_NAME_MAX];
	const char *p;
	size_t len;
	void *raw;
	char *buf;
	int n = 0;

	*total = -1;
	cs_name_summary(name, nspid);
	if (cs_imgdir_read_all(dirfd, name, 1 << 20, &raw, &len))
		return -1;
	buf = malloc(len + 1);
	if (!buf) {
		free(raw);
		return -1;
	}
	memcpy(buf, raw, len);
	buf[len] = '\0';
	free(raw);
	p = strstr(buf, "\"seconds\":");
	if (p)
		*total = strtod(p + 10, NULL);
	p = strstr(buf, "\"phases\":[");
	while (p && n < MAX_PHASES) {
		p = strstr(p, "{\"name\":\"");
		if (!p || sscanf(p, "{\"name\":\"%31[^\"]\",\"seconds\":%lf,\"bytes\":%llu}", ph[n].name,
				 &ph[n].seconds, &ph[n].bytes) != 3)
			break;
		n++;
		p++;
	}
	free(buf);
	return n;
}

static void extent_stat(int dirfd, const char *name, struct extent_info *e)
{
	struct stat st;

	memset(e, 0, sizeof(*e));
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(e->err, sizeof(e->err), "%s", strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(e->err, sizeof(e->err), "not a regular file");
		return;
	}
	e->present = true;
	e->size = (uint64_t)st.st_size;
	e->allocated = (uint64_t)st.st_blocks * 512;
}

static uint64_t zero_chunks(const struct cs_manifest_dev *d)
{
	uint64_t c, z = 0;

	for (c = 0; c < d->nchunks; c++)
		z += d->zero[c] != 0;
	return z;
}

static const char *time_text(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

static bool text_one(int dirfd, const char *dir, const char *mname, const struct cs_manifest *m)
{
	char a[32], b[32], u[CS_UUID_STRLEN], t[64];
	struct phase ph[MAX_PHASES];
	struct extent_info e;
	bool ok = true;
	double total;
	unsigned i;
	int n;

	printf("%s/%s\n", dir, mname);
	printf("  mode:           %s\n", m->mode == CS_MODE_CUSTOM ? "custom (CUDA CustomStorage, data in "
								     "the extents below)"
								   : "driver (driver-managed, data in "
								     "CRIU's pages images)");
	printf("  pid:            %d at dump (%d in its pid namespace)\n", m->pid, m->ns_pid);
	printf("  format:         %u.%u\n", m->format_major, m->format_minor);
	printf("  driver:         CUDA %d.%d (%d)\n", m->driver_version / 1000, m->driver_version % 1000 / 10,
	       m->driver_version);
	printf("  plugin:         %s\n", m->plugin_version);
	printf("  created:        %s\n", time_text(m->created_unix_ns, t, sizeof(t)));
	printf("  GPU memory:     %s, %s stored\n", cli_bytes(m->total_bytes, a, sizeof(a)),
	       cli_bytes(m->stored_bytes, b, sizeof(b)));
	for (i = 0; i < m->ndev; i++) {
		const struct cs_manifest_dev *d = &m->dev[i];
		uint64_t z = zero_chunks(d);

		cs_uuid_format(&d->uuid, u);
		printf("  device %u:       %s, ordinal %d\n", i, u, d->ordinal);
		printf("    size %s, stored %s, chunk %s, %llu chunks, %llu all-zero (%.0f%%)\n",
		       cli_bytes(d->size, a, sizeof(a)), cli_bytes(d->stored_bytes, b, sizeof(b)),
		       cli_bytes(d->chunk_size, t, sizeof(t)), (unsigned long long)d->nchunks,
		       (unsigned long long)z, d->nchunks ? 100.0 * (double)z / (double)d->nchunks : 0.0);
		if (m->mode != CS_MODE_CUSTOM)
			continue;
		for (unsigned k = 0; k < (d->nstripes ? d->nstripes : 1); k++) {
			const char *name = k ? d->stripe[k] : d->extent;
			uint64_t want = cs_engine_stripe_size(d->size, d->chunk_size, d->nstripes, k);

			extent_stat(dirfd, name, &e);
			if (!e.present) {
				printf("    extent %s: MISSING (%s)\n", name, e.err);
				ok = false;
			} else {
				printf("    extent %s: %llu bytes, %s allocated%s\n", name,
				       (unsigned long long)e.size, cli_bytes(e.allocated, a, sizeof(a)),
				       e.size == want ? "" : "  WRONG SIZE: the manifest says otherwise");
				ok &= e.size == want;
			}
		}
	}
	n = read_phases(dirfd, m->ns_pid, ph, &total);
	if (n < 0) {
		printf("  summary:        none (cudastore-%d.json absent)\n", m->ns_pid);
	} else {
		printf("  dump phases:    %.3f s in all\n", total);
		for (i = 0; i < (unsigned)n; i++)
			printf("    %-12s %9.3f s%s%s\n", ph[i].name, ph[i].seconds, ph[i].bytes ? "  " : "",
			       ph[i].bytes ? cli_bytes(ph[i].bytes, a, sizeof(a)) : "");
	}
	if (!ok)
		printf(
		    "  problem:        a restore would refuse these images; run 'cudastore verify %s %d'\n",
		    dir, m->ns_pid);
	return ok;
}

static bool json_one(struct jw *w, int dirfd, const char *mname, const struct cs_manifest *m)
{
	char u[CS_UUID_STRLEN], h[17];
	struct phase ph[MAX_PHASES];
	struct extent_info e;
	bool ok = true;
	double total;
	uint64_t c;
	unsigned i;
	int n;

	jw_str(w, "manifest", mname);
	jw_bool(w, "readable", true);
	jw_int(w, "format_major", m->format_major);
	jw_int(w, "format_minor", m->format_minor);
	jw_str(w, "mode", m->mode == CS_MODE_CUSTOM ? "custom" : "driver");
	jw_int(w, "pid", m->pid);
	jw_int(w, "ns_pid", m->ns_pid);
	jw_int(w, "driver_version", m->driver_version);
	jw_str(w, "plugin_version", m->plugin_version);
	jw_u64(w, "created_unix_ns", m->created_unix_ns);
	jw_u64(w, "total_bytes", m->total_bytes);
	jw_u64(w, "stored_bytes", m->stored_bytes);
	jw_arr(w, "devices");
	for (i = 0; i < m->ndev; i++) {
		const struct cs_manifest_dev *d = &m->dev[i];

		cs_uuid_format(&d->uuid, u);
		jw_obj(w, NULL);
		jw_str(w, "uuid", u);
		jw_int(w, "ordinal", d->ordinal);
		jw_u64(w, "size", d->size);
		jw_u64(w, "stored_bytes", d->stored_bytes);
		jw_u64(w, "chunk_size", d->chunk_size);
		jw_u64(w, "nchunks", d->nchunks);
		jw_u64(w, "zero_chunks", zero_chunks(d));
		jw_str(w, "extent", d->extent);
		if (m->mode == CS_MODE_CUSTOM) {
			unsigned ns = d->nstripes ? d->nstripes : 1;

			/* extent_file: the extent (stripe 0); stripe_files: stripes 1.. (format 1.2) */
			for (unsigned k = 0; k < ns; k++) {
				uint64_t want = cs_engine_stripe_size(d->size, d->chunk_size, ns, k);

				if (k == 1)
					jw_arr(w, "stripe_files");
				extent_stat(dirfd, k ? d->stripe[k] : d->extent, &e);
				jw_obj(w, k ? NULL : "extent_file");
				if (k)
					jw_str(w, "name", d->stripe[k]);
				jw_bool(w, "present", e.present);
				if (e.present) {
					jw_u64(w, "size", e.size);
					jw_u64(w, "allocated_bytes", e.allocated);
				} else {
					jw_str(w, "error", e.err);
				}
				jw_bool(w, "size_matches", e.present && e.size == want);
				jw_end_obj(w);
				ok &= e.present && e.size == want;
			}
			if (ns > 1)
				jw_end_arr(w);
		}
		jw_arr(w, "chunks");
		for (c = 0; c < d->nchunks; c++) {
			snprintf(h, sizeof(h), "%016" PRIx64, d->hash[c]);
			jw_obj(w, NULL);
			jw_str(w, "xxh3", h);
			jw_bool(w, "zero", d->zero[c]);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	n = read_phases(dirfd, m->ns_pid, ph, &total);
	if (n >= 0) {
		jw_obj(w, "summary");
		jw_dbl(w, "seconds", total);
		jw_arr(w, "phases");
		for (i = 0; i < (unsigned)n; i++) {
			jw_obj(w, NULL);
			jw_str(w, "name", ph[i].name);
			jw_dbl(w, "seconds", ph[i].seconds);
			jw_u64(w, "bytes", ph[i].bytes);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_end_obj(w);
	}
	jw_bool(w, "consistent", ok);
	return ok;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore inspect [--json] DIR [PID]\n"
		   "\n"
		   "Show what the cudastore images in DIR hold, per process: mode, driver and plugin\n"
		   "version, creation time, devices (UUID, ordinal, size, stored bytes, chunk size, share\n"
		   "of all-zero chunks), the extent files with their sizes and allocated blocks, and the\n"
		   "dump's phase timings. PID (as in cudastore-PID.img) limits it to one process.\n"
		   "\n"
		   "  --json     print everything, the whole manifest with every chunk's checksum, as JSON\n"
		   "  -h, --help this text\n"
		   "\n"
		   "Checksums are not read back: 'cudastore verify' does that.\n"
		   "Exit status: 0 every manifest is readable and its extents are present with the right\n"
		   "sizes, 1 otherwise (the file is named), 2 usage error.\n");
	return rc;
}

int cli_inspect(int argc, char **argv)
{
	struct cli_dir_args a;
	struct cs_manifest *m;
	bool json, all_ok = true;
	int *pids = NULL, dirfd, rc;
	char err[1024], mname[CS_NAME_MAX];
	const char *dir;
	unsigned n = 0, i;
	struct jw w;

	if (cli_dir_pid_args(SUB, argc, argv, &a))
		return CLI_USAGE;
	if (a.help)
		return usage(stdout, CLI_OK);
	json = a.json;
	dir = a.dir;
	rc = cli_open_images(SUB, dir, a.one, "", &dirfd, &pids, &n);
	if (rc != CLI_OK)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m) {
		close(dirfd);
		free(pids);
		return CLI_USAGE;
	}
	if (json) {
		jw_init(&w, stdout);
		jw_obj(&w, NULL);
		jw_str(&w, "dir", dir);
		jw_arr(&w, "processes");
	}
	for (i = 0; i < n; i++) {
		cs_name_manifest(mname, pids[i]);
		if (cs_manifest_read(dirfd, mname, m, err, sizeof(err))) {
			all_ok = false;
			if (json) {
				jw_obj(&w, NULL);
				jw_str(&w, "manifest", mname);
				jw_bool(&w, "readable", false);
				jw_str(&w, "error", err);
				jw_bool(&w, "consistent", false);
				jw_end_obj(&w);
			} else {
				printf("%s/%s\n  UNREADABLE: %s\n  a restore would refuse it; dump again or "
				       "restore from an intact copy\n",
				       dir, mname, err);
			}
			cs_manifest_free(m);
			continue;
		}
		if (json) {
			jw_obj(&w, NULL);
			all_ok &= json_one(&w, dirfd, mname, m);
			jw_end_obj(&w);
		} else {
			all_ok &= text_one(dirfd, dir, mname, m);
		}
		cs_manifest_free(m);
	}
	if (json) {
		jw_end_arr(&w);
		jw_bool(&w, "ok", all_ok);
		jw_end_obj(&w);
		jw_finish(&w);
	}
	free(m);
	free(pids);
	close(dirfd);
	return all_ok ? CLI_OK : CLI_FAIL;
}
