// SPDX-License-Identifier: MIT
/*
 * inspect.c - cudastore inspect DIR [PID]: what the images of each process hold.
 *
 * Each manifest is judged by the restore's own rules on the image set, as verify judges it
 * (cli_load_manifest: the dump's index, the manifest's frame and fields, its ns pid and dump id,
 * its extents' types and sizes), so inspect calls consistent only what a restore would take up;
 * a manifest the index does not list is IGNORED, as the restore ignores it. The extents are
 * looked at with fstatat (no link followed), never read; the
 * phase timings come from the JSON summary the plugin writes next to the manifest
 * (cudastore-<nspid>.json, format in docs/image-format.md). The dump's index and CRIU's
 * inventory.img name the CRIU run each belongs to (images.c): cudastore images of another CRIU
 * dump are a problem a restore refuses. Nothing is hashed: that is verify.
 */
#include <errno.h>
#include <math.h>
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

#define SUB "inspect"

struct extent_info {
	bool present;
	uint64_t size, allocated;
	char err[128];
};

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

/* sum as cli_summary_read left it: ret its answer, err its message */
static void text_summary(const struct cli_summary *s, int ret, const char *err, int nspid)
{
	char a[32];
	unsigned i;

	if (ret == -ENOENT) {
		cli_line("  summary:        none (cudastore-%d.json absent)", nspid);
		return;
	}
	if (ret) {
		cli_line("  summary:        unreadable: %s", err);
		return;
	}
	if (isnan(s->seconds))
		cli_line("  dump phases:");
	else
		cli_line("  dump phases:    %.3f s in all", s->seconds);
	for (i = 0; i < s->nphases; i++)
		cli_line("    %-12s %9.3f s%s%s", s->phase[i].name, s->phase[i].seconds,
			 s->phase[i].bytes ? "  " : "",
			 s->phase[i].bytes ? cli_bytes(s->phase[i].bytes, a, sizeof(a)) : "");
}

/* device i's copy account from the summary (ret: cli_summary_read's answer), or NULL */
static const struct cli_copy *copy_of(const struct cli_summary *s, int ret, unsigned i)
{
	return !ret && i < CLI_MAX_COPIES && s->copy[i].present ? &s->copy[i] : NULL;
}

/* "copied in S s by N threads: X % of their time in the files and checks, Y % waiting for the GPU" */
static void text_copy(const struct cli_summary *s, int ret, unsigned i)
{
	const struct cli_copy *c = copy_of(s, ret, i);
	double t;

	if (!c)
		return;
	t = c->seconds * c->threads;
	if (isfinite(t) && t > 0 && isfinite(c->io_seconds) && isfinite(c->gpu_wait_seconds))
		cli_line("    copied in %.3f s by %u threads: %.0f%% of their time in the files and checks, "
			 "%.0f%% waiting for the GPU",
			 c->seconds, c->threads, 100 * c->io_seconds / t, 100 * c->gpu_wait_seconds / t);
}

/* refused: why a restore refuses the images of m (cli_load_manifest), or NULL */
static bool text_one(int dirfd, const char *dir, const char *mname, const struct cs_manifest *m,
		     const char *refused)
{
	char a[32], b[32], u[CS_UUID_STRLEN], t[64], err[512];
	struct cli_summary sum;
	struct extent_info e;
	bool ok = true;
	unsigned i;
	int sret = cli_summary_read(dirfd, m->ns_pid, &sum, err, sizeof(err));

	cli_line("%s/%s", dir, mname);
	cli_line("  mode:           %s", m->mode == CS_MODE_CUSTOM ? "custom (CUDA CustomStorage, data in "
								     "the extents below)"
								   : "driver (driver-managed, data in "
								     "CRIU's pages images)");
	cli_line("  pid:            %d at dump (%d in its pid namespace)", m->pid, m->ns_pid);
	cli_line("  format:         %u.%u", m->format_major, m->format_minor);
	cli_line("  driver:         CUDA %d.%d (%d)", m->driver_version / 1000, m->driver_version % 1000 / 10,
		 m->driver_version);
	cli_line("  plugin:         %s", m->plugin_version);
	cli_line("  created:        %s", time_text(m->created_unix_ns, t, sizeof(t)));
	cli_line("  GPU memory:     %s, %s stored", cli_bytes(m->total_bytes, a, sizeof(a)),
		 cli_bytes(m->stored_bytes, b, sizeof(b)));
	cli_facts_text(m);
	cli_chain_text(dirfd);
	for (i = 0; i < m->ndev; i++) {
		const struct cs_manifest_dev *d = &m->dev[i];
		uint64_t z = zero_chunks(d);

		cs_uuid_format(&d->uuid, u);
		cli_line("  device %u:       %s, ordinal %d", i, u, d->ordinal);
		cli_line("    size %s, stored %s, chunk %s, %llu chunks, %llu all-zero (%.0f%%)",
			 cli_bytes(d->size, a, sizeof(a)), cli_bytes(d->stored_bytes, b, sizeof(b)),
			 cli_bytes(d->chunk_size, t, sizeof(t)), (unsigned long long)d->nchunks,
			 (unsigned long long)z, d->nchunks ? 100.0 * (double)z / (double)d->nchunks : 0.0);
		text_copy(&sum, sret, i);
		if (m->mode != CS_MODE_CUSTOM)
			continue;
		if (d->ids) {
			ok &= cli_chunks_text(dirfd, d);
			continue;
		}
		for (unsigned k = 0; k < (d->nstripes ? d->nstripes : 1); k++) {
			const char *name = k ? d->stripe[k] : d->extent;
			uint64_t want = cs_stripe_size(d->size, d->chunk_size, d->nstripes, k);

			extent_stat(dirfd, name, &e);
			if (!e.present) {
				cli_line("    extent %s: MISSING (%s)", name, e.err);
				ok = false;
			} else {
				cli_line("    extent %s: %llu bytes, %s allocated%s", name,
					 (unsigned long long)e.size, cli_bytes(e.allocated, a, sizeof(a)),
					 e.size == want ? "" : "  WRONG SIZE: the manifest says otherwise");
				ok &= e.size == want;
			}
		}
	}
	text_summary(&sum, sret, err, m->ns_pid);
	if (!sret)
		cli_summary_free(&sum);
	if (refused)
		cli_line("  problem:        a restore would refuse these images: %s", refused);
	else if (!ok)
		cli_line(
		    "  problem:        a restore would refuse these images; run 'cudastore verify %s %d'",
		    dir, m->ns_pid);
	return ok && !refused;
}

/* the extent files of one device: extent_file (stripe 0), stripe_files (stripes 1.., format 1.2) */
static bool json_extents(json_object *dev, int dirfd, const struct cs_manifest_dev *d)
{
	unsigned k, ns = d->nstripes ? d->nstripes : 1;
	json_object *stripes = NULL, *f;
	struct extent_info e;
	bool ok = true;
	uint64_t want;

	for (k = 0; k < ns; k++) {
		want = cs_stripe_size(d->size, d->chunk_size, ns, k);
		if (k == 1)
			stripes = cli_jarr(dev, "stripe_files");
		extent_stat(dirfd, k ? d->stripe[k] : d->extent, &e);
		f = k ? cli_jobj(stripes, NULL) : cli_jobj(dev, "extent_file");
		cli_jstr(f, "name", k ? d->stripe[k] : d->extent);
		cli_jbool(f, "present", e.present);
		if (e.present) {
			cli_ju64(f, "size", e.size);
			cli_ju64(f, "allocated_bytes", e.allocated);
		} else {
			cli_jstr(f, "error", e.err);
		}
		cli_jbool(f, "size_matches", e.present && e.size == want);
		ok &= e.present && e.size == want;
	}
	return ok;
}

static void json_chunks(json_object *dev, const struct cs_manifest_dev *d)
{
	json_object *a = cli_jarr(dev, "chunks"), *c;
	char h[17];
	uint64_t i;

	for (i = 0; i < d->nchunks; i++) {
		snprintf(h, sizeof(h), "%016" PRIx64, d->hash[i]);
		c = cli_jobj(a, NULL);
		cli_jstr(c, "xxh3", h);
		cli_jbool(c, "zero", d->zero[i]);
	}
}

/* an instant as the summary writes it ({"seconds", "nanoseconds"}) into *ns; false when it is not one */
static bool summary_instant(json_object *v, uint64_t *ns)
{
	json_object *sec, *nsec;
	int64_t a, b;

	if (!json_object_is_type(v, json_type_object) || !json_object_object_get_ex(v, "seconds", &sec) ||
	    !json_object_object_get_ex(v, "nanoseconds", &nsec) || !json_object_is_type(sec, json_type_int) ||
	    !json_object_is_type(nsec, json_type_int))
		return false;
	a = json_object_get_int64(sec);
	b = json_object_get_int64(nsec);
	if (a < 0 || (uint64_t)a > UINT64_MAX / 1000000000u - 1 || b < 0 || b >= 1000000000)
		return false;
	*ns = (uint64_t)a * 1000000000u + (uint64_t)b;
	return true;
}

/* the summary's gpu_phase, its instants (start, end) as every instant of the output: with "utc" */
static void json_gpu_phase(json_object *o, json_object *gpu_phase)
{
	json_object *g = cli_jobj(o, "gpu_phase");
	uint64_t ns;

	if (!g)
		return;
	json_object_object_foreach(gpu_phase, key, v)
	{
		if (summary_instant(v, &ns))
			cli_jtime(g, key, ns);
		else
			json_object_object_add(g, key, json_object_get(v));
	}
}

/* sum as cli_summary_read left it: ret its answer, err its message */
static void json_summary(json_object *p, const struct cli_summary *s, int ret, const char *err)
{
	json_object *o, *a, *ph;
	unsigned i;

	if (ret == -ENOENT)
		return;
	o = cli_jobj(p, "summary");
	if (ret) {
		cli_jstr(o, "error", err);
		return;
	}
	cli_jdbl(o, "seconds", s->seconds);
	a = cli_jarr(o, "phases");
	for (i = 0; i < s->nphases; i++) {
		ph = cli_jobj(a, NULL);
		cli_jstr(ph, "name", s->phase[i].name);
		cli_jdbl(ph, "seconds", s->phase[i].seconds);
		cli_ju64(ph, "bytes", s->phase[i].bytes);
	}
	if (s->gpu_phase && o)
		json_gpu_phase(o, s->gpu_phase);
	if (s->batch && o)
		json_object_object_add(o, "batch", json_object_get(s->batch));
}

/* the device's "copy" object, from the summary (CustomStorage dumps) */
static void json_copy(json_object *dev, const struct cli_summary *s, int ret, unsigned i)
{
	const struct cli_copy *c = copy_of(s, ret, i);
	json_object *o;

	if (!c)
		return;
	o = cli_jobj(dev, "copy");
	cli_jdbl(o, "seconds", c->seconds);
	cli_jint(o, "threads", c->threads);
	cli_jdbl(o, "io_seconds", c->io_seconds);
	cli_jdbl(o, "gpu_wait_seconds", c->gpu_wait_seconds);
}

/* refused: as for text_one */
static bool json_one(json_object *p, int dirfd, const struct cs_manifest *m, const char *refused)
{
	json_object *devs, *d;
	struct cli_summary sum;
	char err[512];
	bool ok = true;
	unsigned i;
	int sret = cli_summary_read(dirfd, m->ns_pid, &sum, err, sizeof(err));

	cli_jbool(p, "readable", true);
	cli_jint(p, "format_major", m->format_major);
	cli_jint(p, "format_minor", m->format_minor);
	cli_jstr(p, "mode", m->mode == CS_MODE_CUSTOM ? "custom" : "driver");
	cli_jint(p, "pid", m->pid);
	cli_jint(p, "ns_pid", m->ns_pid);
	cli_jint(p, "driver_version", m->driver_version);
	cli_jstr(p, "plugin_version", m->plugin_version);
	cli_jtime(p, "created", m->created_unix_ns);
	cli_ju64(p, "total_bytes", m->total_bytes);
	cli_ju64(p, "stored_bytes", m->stored_bytes);
	cli_facts_json(p, m);
	cli_chain_json(p, dirfd);
	devs = cli_jarr(p, "devices");
	for (i = 0; i < m->ndev; i++) {
		d = cli_jdevice(devs, &m->dev[i]);
		if (m->mode == CS_MODE_CUSTOM && m->dev[i].ids)
			ok &= cli_chunks_json(d, dirfd, &m->dev[i]);
		else if (m->mode == CS_MODE_CUSTOM)
			ok &= json_extents(d, dirfd, &m->dev[i]);
		json_chunks(d, &m->dev[i]);
		json_copy(d, &sum, sret, i);
	}
	json_summary(p, &sum, sret, err);
	if (!sret)
		cli_summary_free(&sum);
	cli_jbool(p, "consistent", ok && !refused);
	if (refused)
		cli_jstr(p, "error", refused);
	return ok && !refused;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore inspect [--json] [-v] DIR|ARCHIVE [PID]\n"
		   "\n"
		   "Show what the cudastore images in DIR hold, per process: mode, driver and plugin\n"
		   "version, creation time, devices (UUID, ordinal, size, stored bytes, chunk size, share\n"
		   "of all-zero chunks), the extent files with their sizes and allocated blocks, and the\n"
		   "dump's phase timings, and the CRIU run the dump's index and CRIU's inventory.img\n"
		   "each name. PID (as in cudastore-PID.img) limits it to one process.\n"
		   "ARCHIVE: a checkpoint archive (tar, .tar.gz, .tar.zst) as podman container checkpoint\n"
		   "--export and the kubelet write it, or a tar of an images directory (tar czf x.tgz\n"
		   "DIR/), unpacked into a private directory under $TMPDIR (else /tmp) and removed\n"
		   "afterwards.\n"
		   "\n"
		   "  --json     print everything, the whole manifest with every chunk's checksum, as JSON\n"
		   "             (schema in cudastore(1)); errors too\n"
		   "  -v         show the plugin modules' log lines on stderr\n"
		   "  -h, --help this text\n"
		   "\n"
		   "Options may come anywhere on the line. Checksums are not read back: 'cudastore verify'\n"
		   "does that. CRIU images without cudastore files are reported as \"no GPU state\".\n"
		   "Each manifest is judged by the restore's rules on the image set, as verify judges it\n"
		   "(the dump's index, the manifest's fields, ns pid and dump id, its extents' types and\n"
		   "sizes); one the index does not list is IGNORED, as a restore ignores it.\n"
		   "Exit status: 0 a restore would take up every manifest by these rules, 1 it would not\n"
		   "(the reason is given) or the cudastore images belong to another CRIU dump than the\n"
		   "CRIU images beside them, 2 usage error, or a directory or file this user may not\n"
		   "read (named, with the errno): those were not checked.\n");
	return rc;
}

/* a manifest that is missing or does not even parse: shown with why; CLI_FAIL */
static int unreadable(const struct cli_images *im, const char *mname, const char *err, json_object *p)
{
	if (!cli_json) {
		cli_line("%s/%s", im->shown, mname);
		cli_line("  UNREADABLE: %s", err);
		cli_line("  a restore would refuse it; dump again or restore from an intact copy");
	}
	cli_jbool(p, "readable", false);
	cli_jstr(p, "error", err);
	cli_jbool(p, "consistent", false);
	return CLI_FAIL;
}

/* a file of the process could not be read by this user (cli_cannot_read, why says which): not
 * judged; CLI_CANNOT_READ */
static int not_read(const struct cli_images *im, const char *mname, int err, const char *why, json_object *p)
{
	if (!cli_json)
		cli_line("%s/%s: NOT CHECKED: %s", im->shown, mname, why);
	cli_jbool(p, "readable", false);
	cli_jstr(p, "error", why);
	cli_jstr(p, "errno", err == -EPERM ? "EPERM" : "EACCES");
	return CLI_CANNOT_READ;
}

/*
 * One process, judged by the restore's rules (cli_load_manifest, as verify does, without reading
 * the extents): shown as text or added to the JSON list. CLI_OK, CLI_FAIL when a restore would
 * refuse it, CLI_CANNOT_READ when this user may not read its manifest. A manifest the rules refuse
 * is still shown when it parses, with the restore's reason.
 */
static int inspect_one(const struct cli_images *im, int nspid, struct cs_manifest *m, json_object *procs)
{
	char err[1024], rerr[1024], mname[CS_NAME_MAX];
	json_object *p = cli_json ? cli_jobj(procs, NULL) : NULL;
	bool ok;
	int ret;

	cs_name_manifest(mname, nspid);
	cli_jint(p, "ns_pid", nspid);
	cli_jstr(p, "manifest", mname);
	ret = cli_load_manifest(im, nspid, m, err, sizeof(err));
	if (ret == -ENOTSUP) { /* not a file of this dump: a restore ignores it */
		if (!cli_json)
			cli_line("%s/%s: IGNORED: %s", im->shown, mname, err);
		cli_jstr(p, "ignored", err);
		return CLI_OK;
	}
	if (cli_cannot_read(ret))
		return not_read(im, mname, ret, err, p);
	if (ret == -ENOENT)
		return unreadable(im, mname, err, p);
	if (ret && cs_manifest_read(im->dirfd, mname, m, rerr, sizeof(rerr))) {
		cs_manifest_free(m);
		return unreadable(im, mname, rerr, p);
	}
	ok = cli_json ? json_one(p, im->dirfd, m, ret ? err : NULL)
		      : text_one(im->dirfd, im->shown, mname, m, ret ? err : NULL);
	cs_manifest_free(m);
	return ok ? CLI_OK : CLI_FAIL;
}

int cli_inspect(int argc, char **argv)
{
	json_object *out = NULL, *procs = NULL;
	struct cli_dir_args a;
	struct cli_images im;
	struct cs_manifest *m;
	unsigned i, failed, unread = 0;
	char why[512];
	int rc;

	if (cli_dir_pid_args(SUB, argc, argv, &a))
		return CLI_USAGE;
	if (a.help)
		return cli_help(SUB, usage);
	rc = cli_images_open(SUB, a.dir, a.one, &im);
	if (rc != CLI_OK)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m) {
		cli_err(SUB, "out of memory");
		cli_images_close(&im);
		return CLI_USAGE;
	}
	if (cli_json) {
		out = cli_jreport(SUB);
		cli_jstr(out, "dir", a.dir);
		if (im.tmp[0])
			cli_jstr(out, "images", im.shown);
		cli_jbool(out, "gpu_state", im.gpu_state);
		if (im.gpu_state)
			cli_jcriu_dump(out, &im);
		procs = cli_jarr(out, "processes");
	} else if (!im.gpu_state) {
		cli_line("%s: no GPU state: CRIU images (%s) without cudastore files", im.shown,
			 CLI_INVENTORY);
	}
	failed = !(cli_json ? im.index.bound != CS_BOUND_OTHER : cli_text_criu_dump(&im));
	for (i = 0; i < im.n; i++) {
		rc = inspect_one(&im, im.pids[i], m, procs);
		failed += rc == CLI_FAIL;
		unread += rc == CLI_CANNOT_READ;
	}
	/* a refusal is a verdict; a manifest not read leaves it open */
	rc = failed ? CLI_FAIL : unread ? CLI_CANNOT_READ : CLI_OK;
	snprintf(why, sizeof(why),
		 "the files of %u process(es) of %s could not be read, so they were not checked; %s", unread,
		 im.shown, cli_cannot_read_advice());
	if (!cli_json && rc == CLI_CANNOT_READ)
		cli_line("inspect: NOT CHECKED: %s", why);
	if (cli_json) {
		cli_jbool(out, "ok", rc == CLI_OK);
		cli_jint(out, "exit_code", rc);
		if (rc == CLI_FAIL)
			cli_jstr(out, "error", "a restore would refuse some of these images (see processes)");
		else if (rc == CLI_CANNOT_READ)
			cli_jstr(out, "error", why);
		cli_jprint(out);
	}
	free(m);
	cli_images_close(&im);
	return rc;
}
