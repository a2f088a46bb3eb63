// SPDX-License-Identifier: MIT
/*
 * verify.c - cudastore verify DIR [PID]: would a restore accept these images?
 *
 * It runs what a restore runs before the images reach a GPU, with the plugin's own code:
 * cs_manifest_read (frame, checksum, every field and bound, safe and unique extent names),
 * cs_manifest_check_extents (each extent a regular file of the manifest's size), then the
 * copy engine's restore (cs_engine_restore) with host-only ops (hostops.c): chunk table and
 * zero-flag consistency, and the XXH3-64 of every stored chunk, read by the engine's
 * threads with O_DIRECT where the filesystem allows it. A failure names the file, chunk and
 * offset exactly as the restore would log it. The index is tied to the CRIU dump beside it as a
 * restore ties it (images.c): cudastore files of another dump than CRIU's inventory.img names
 * fail every manifest with the restore's words. The images are opened read-only.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "engine.h"
#include "imgindex.h"
#include "log.h"
#include "manifest.h"
#include "options.h"

#define SUB "verify"

struct vresult {
	int nspid;
	char manifest[CS_NAME_MAX];
	bool ok;
	bool ignored; /* not a file of this dump: a restore ignores it (err says why) */
	int read_err; /* cli_cannot_read: file could not be read by this user, so it was not judged */
	enum cs_mode mode;
	unsigned ndev;
	uint64_t total_bytes, stored_bytes, chunks, zero_chunks;
	double seconds;
	char err[1024];
	char file[CS_NAME_MAX]; /* the file the error is about */
	long long chunk;	/* -1: none */
	long long offset;	/* -1: none */
	json_object *devices;	/* under --json: the manifest's devices (cli_jdevice) */
};

struct vprog {
	struct cli_progress bar;
	pthread_mutex_t lock;
	uint64_t done[CS_MAX_DEVICES];
	const char *name;
};

static void on_progress(void *arg, unsigned region, uint64_t done, uint64_t total)
{
	struct vprog *vp = arg;
	uint64_t sum = 0;
	unsigned i;

	pthread_mutex_lock(&vp->lock);
	if (region < CS_MAX_DEVICES)
		vp->done[region] = done;
	for (i = 0; i < CS_MAX_DEVICES; i++)
		sum += vp->done[i];
	cli_progress_update(&vp->bar, sum, vp->name);
	pthread_mutex_unlock(&vp->lock);
}

/* The engine's message names the file, chunk and offset; keep them apart for --json. */
static void locate(struct vresult *r)
{
	const char *p;

	cli_file_named(r->err, r->file, sizeof(r->file));
	p = strstr(r->err, "chunk ");
	if (p && p[6] >= '0' && p[6] <= '9')
		r->chunk = strtoll(p + 6, NULL, 10);
	p = strstr(r->err, "offset ");
	if (p && p[7] >= '0' && p[7] <= '9')
		r->offset = strtoll(p + 7, NULL, 10);
}

/*
 * One device at a time: a restore copies every GPU at once, each with its own pinned bound, but
 * here they would all share this process's memory, and an image may claim CS_MAX_DEVICES
 * devices. So verify holds one device's chunk buffers at most: the pinned bound, or one chunk
 * where the images' chunks are larger (at most CS_CHUNK_MAX), whatever the images claim.
 */
static int verify_extents(int dirfd, const struct cs_manifest *m, const struct cs_options *o,
			  struct vresult *r)
{
	struct cs_engine_region reg;
	struct cs_engine_opts eo;
	struct cs_cuda_ops ops;
	struct vprog vp;
	double t0 = cs_now();
	unsigned i;
	uint64_t c;
	int ret = 0;

	memset(&vp, 0, sizeof(vp));
	pthread_mutex_init(&vp.lock, NULL);
	vp.name = r->manifest;
	for (i = 0; i < m->ndev; i++) {
		r->chunks += m->dev[i].nchunks;
		for (c = 0; c < m->dev[i].nchunks; c++)
			r->zero_chunks += m->dev[i].zero[c] != 0;
	}
	/* the engine settings a restore uses (cs_copy_engine_opts) */
	cs_engine_opts_default(&eo);
	eo.chunk_size = o->chunk_size;
	eo.threads = o->threads;
	eo.pinned_max = o->pinned_max;
	eo.direct_io = o->direct_io;
	eo.skip_zero = o->skip_zero;
	eo.progress = on_progress;
	eo.note = cs_log_text; /* shown with -v */
	eo.note_verb = "verified";
	eo.progress_arg = &vp;
	cli_hostops(&ops);
	cli_progress_begin(&vp.bar, m->total_bytes);
	for (i = 0; i < m->ndev && !ret; i++) {
		memset(&reg, 0, sizeof(reg));
		cs_engine_region_from_manifest(&reg, &m->dev[i], dirfd);
		eo.first_region = i; /* device i is the restore's region i */
		ret = cs_engine_restore(&ops, &reg, 1, &eo, r->err, sizeof(r->err));
	}
	cli_progress_end(&vp.bar);
	pthread_mutex_destroy(&vp.lock);
	r->seconds = cs_now() - t0;
	if (ret && !strncmp(r->err, "restore: ", 9))
		memmove(r->err, r->err + 9, strlen(r->err + 9) + 1);
	return ret;
}

/* FILE could not be read by this user (cli_cannot_read): not a verdict on the images */
static void not_read(struct vresult *r, const char *file, int err)
{
	char f[CS_NAME_MAX];

	snprintf(f, sizeof(f), "%s", file[0] ? file : r->manifest);
	r->read_err = err;
	cli_cannot_read_text(f, err, r->err, sizeof(r->err));
}

/* the restore's rules (cli_load_manifest); false when the manifest is not one to verify further */
static bool load(const struct cli_images *im, struct cs_manifest *m, struct vresult *r)
{
	int ret = cli_load_manifest(im, r->nspid, m, r->err, sizeof(r->err));

	if (ret == -ENOTSUP) /* a stale file the restore ignores (err says so) */
		r->ok = r->ignored = true;
	if (ret && !r->ok)
		locate(r);
	if (cli_cannot_read(ret))
		r->read_err = ret; /* err says which file */
	return !ret;
}

static void verify_one(const struct cli_images *im, int nspid, const struct cs_options *o, struct vresult *r)
{
	struct cs_manifest *m = calloc(1, sizeof(*m));

	memset(r, 0, sizeof(*r));
	r->nspid = nspid;
	r->chunk = r->offset = -1;
	cs_name_manifest(r->manifest, nspid);
	if (!m) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return;
	}
	if (!load(im, m, r))
		goto out;
	r->mode = m->mode;
	r->ndev = m->ndev;
	r->total_bytes = m->total_bytes;
	r->stored_bytes = m->stored_bytes;
	if (cli_json) {
		r->devices = json_object_new_array();
		for (unsigned i = 0; i < m->ndev; i++)
			cli_jdevice(r->devices, &m->dev[i]);
	}
	if (m->mode == CS_MODE_CUSTOM) {
		int ret = verify_extents(im->dirfd, m, o, r);

		if (ret) {
			locate(r);
			if (cli_cannot_read(ret))
				not_read(r, r->file, ret);
			goto out;
		}
	}
	r->ok = true;
out:
	cs_manifest_free(m);
	free(m);
}

static void print_text(const char *dir, const struct vresult *r)
{
	char a[32], b[32];

	if (r->ignored) {
		cli_line("%s/%s: IGNORED: %s", dir, r->manifest, r->err);
		return;
	}
	if (r->read_err) {
		cli_line("%s/%s: NOT CHECKED: %s", dir, r->manifest, r->err);
		return;
	}
	if (!r->ok) {
		cli_line("%s/%s: FAILED: %s", dir, r->manifest, r->err);
		return;
	}
	if (r->mode == CS_MODE_DRIVER) {
		cli_line("%s/%s: OK (driver-managed: the GPU data is in CRIU's own images, which criu "
			 "checks on restore)",
			 dir, r->manifest);
		return;
	}
	cli_line("%s/%s: OK (%u GPU(s), %s, %s stored; %llu chunks, %llu all-zero; %.2f s, %.0f MB/s)", dir,
		 r->manifest, r->ndev, cli_bytes(r->total_bytes, a, sizeof(a)),
		 cli_bytes(r->stored_bytes, b, sizeof(b)), (unsigned long long)r->chunks,
		 (unsigned long long)r->zero_chunks, r->seconds,
		 r->seconds > 0 ? r->stored_bytes / r->seconds / 1e6 : 0.0);
}

static void print_json(json_object *procs, struct vresult *r)
{
	json_object *p = cli_jobj(procs, NULL);

	cli_jint(p, "ns_pid", r->nspid);
	cli_jstr(p, "manifest", r->manifest);
	cli_jbool(p, "ok", r->ok);
	if (r->ignored) {
		cli_jstr(p, "ignored", r->err);
		return;
	}
	if (r->ok || r->ndev) {
		cli_jstr(p, "mode", r->mode == CS_MODE_CUSTOM ? "custom" : "driver");
		if (p && r->devices)
			json_object_object_add(p, "devices", r->devices);
		else
			json_object_put(r->devices);
		r->devices = NULL;
		cli_ju64(p, "total_bytes", r->total_bytes);
		cli_ju64(p, "stored_bytes", r->stored_bytes);
		cli_ju64(p, "chunks", r->chunks);
		cli_ju64(p, "zero_chunks", r->zero_chunks);
		cli_jdbl(p, "seconds", r->seconds);
	}
	json_object_put(r->devices);
	r->devices = NULL;
	if (!r->ok) {
		cli_jstr(p, "error", r->err);
		if (r->read_err)
			cli_jstr(p, "errno", r->read_err == -EPERM ? "EPERM" : "EACCES");
		cli_jstr(p, "file", r->file[0] ? r->file : NULL);
		if (r->chunk >= 0)
			cli_jint(p, "chunk", r->chunk);
		if (r->offset >= 0)
			cli_jint(p, "offset", r->offset);
	}
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore verify [--json] [-v] DIR|ARCHIVE [PID]\n"
		   "\n"
		   "Check, offline and without a GPU, everything a restore checks before it touches a\n"
		   "process: the manifest's frame and fields, the extent files' names, types and sizes,\n"
		   "the zero flags, the XXH3-64 checksum of every chunk, and that the cudastore images\n"
		   "belong to the CRIU dump beside them (the run CRIU's inventory.img names). PID (the\n"
		   "process's pid in its own pid namespace, as in cudastore-PID.img) limits it to one\n"
		   "process.\n"
		   "ARCHIVE: a checkpoint archive (tar, .tar.gz, .tar.zst) as podman container checkpoint\n"
		   "--export and the kubelet write it, or a tar of an images directory (tar czf x.tgz\n"
		   "DIR/), unpacked into a private directory under $TMPDIR (else /tmp) and removed\n"
		   "afterwards. CRIU images without cudastore files pass with \"no GPU state\", so\n"
		   "'cudastore verify DIR && criu restore ...' works for any dump.\n"
		   "\n"
		   "  --json     print the result as JSON on stdout (schema in cudastore(1)); errors too\n"
		   "  -v         show the engine's log lines on stderr\n"
		   "  -h, --help this text\n"
		   "\n"
		   "Reads the files with the restore's engine settings (threads, pinned_mb, direct_io from\n"
		   "the configuration; see cudastore.conf(5)). Progress is shown when stderr is a terminal.\n"
		   "Options may come anywhere on the line.\n"
		   "Exit status: 0 a restore would pass these checks, 1 it would not (the file, chunk and\n"
		   "offset are named; for cudastore files of another CRIU dump, both runs), 2 usage\n"
		   "error, or a directory or file this user may not read (named, with the errno): those\n"
		   "were not checked.\n");
	return rc;
}

/* the exit status: a failure is a restore's refusal; a file not read leaves the verdict open */
static int verdict(const struct cli_images *im, const struct vresult *res, unsigned *unread)
{
	bool failed = cli_images_inventory_bad(im);
	unsigned i;

	*unread = 0;
	for (i = 0; i < im->n; i++) {
		*unread += res[i].read_err != 0;
		failed |= !res[i].ok && !res[i].read_err;
	}
	return failed ? CLI_FAIL : *unread ? CLI_CANNOT_READ : CLI_OK;
}

static void report_json(const char *dir, const struct cli_images *im, struct vresult *res, int rc)
{
	json_object *out = cli_jreport(SUB), *procs;
	char why[512];
	unsigned i;

	cli_jstr(out, "dir", dir);
	if (im->tmp[0])
		cli_jstr(out, "images", im->shown);
	cli_jbool(out, "ok", rc == CLI_OK);
	cli_jint(out, "exit_code", rc);
	cli_jbool(out, "gpu_state", im->gpu_state);
	if (cli_images_inventory_bad(im)) {
		cli_jstr(out, "error", im->inv_why);
	} else if (rc == CLI_CANNOT_READ) {
		snprintf(why, sizeof(why),
			 "some files could not be read, so they were not checked (see processes); %s",
			 cli_cannot_read_advice());
		cli_jstr(out, "error", why);
	} else if (rc) {
		cli_jstr(out, "error", "a restore would refuse these images (see processes)");
	}
	if (im->gpu_state)
		cli_jcriu_dump(out, im);
	procs = cli_jarr(out, "processes");
	for (i = 0; i < im->n; i++)
		print_json(procs, &res[i]);
	cli_jprint(out);
}

static void report_text(const struct cli_images *im, int rc, unsigned unread)
{
	const char *note = cli_images_unbound(im);
	bool all_ok = rc == CLI_OK;

	if (cli_images_inventory_bad(im))
		cli_line(
		    "%s/%s: FAILED: %s: criu restore refuses a directory whose inventory it cannot read, "
		    "and the cudastore images cannot be tied to their CRIU dump; use an intact copy",
		    im->shown, CLI_INVENTORY, im->inv_why);
	if (note && all_ok)
		cli_line("verify: note: not checked whether the cudastore images are of the CRIU dump "
			 "beside them: %s",
			 note);
	if (!im->gpu_state)
		cli_line("verify: OK: %s holds no GPU state (CRIU images without cudastore files): "
			 "nothing for cudastore to check; criu restore checks its own images",
			 im->shown);
	else if (rc == CLI_CANNOT_READ)
		cli_line("verify: NOT CHECKED: the files of %u process(es) of %s could not be read, so "
			 "whether a restore would accept them is not known; %s",
			 unread, im->shown, cli_cannot_read_advice());
	else if (!all_ok)
		cli_line("verify: FAILED: a restore of %s would refuse these images (nothing was "
			 "modified); dump again, or restore from an intact copy",
			 im->shown);
	else
		cli_line("verify: OK: a restore would accept the images of %u process(es)", im->n);
}

int cli_verify(int argc, char **argv)
{
	struct cli_dir_args a;
	struct cli_images im;
	struct cs_options o;
	struct vresult *res = NULL;
	unsigned i, unread;
	char err[512];
	int ret;

	if (cli_dir_pid_args(SUB, argc, argv, &a))
		return CLI_USAGE;
	if (a.help)
		return cli_help(SUB, usage);
	ret = cs_options_load(&o, err, sizeof(err));
	cs_options_notes(&o, cli_log_option_note, NULL);
	if (ret) {
		cli_err(SUB,
			"the configuration a restore would use is invalid: %s; fix it (or point "
			"CUDASTORE_CONFIG elsewhere) and run again",
			err);
		return CLI_USAGE;
	}
	ret = cli_images_open(SUB, a.dir, a.one, &im);
	if (ret != CLI_OK)
		return ret;
	res = calloc(im.n ? im.n : 1, sizeof(*res));
	if (!res) {
		cli_err(SUB, "out of memory");
		cli_images_close(&im);
		return CLI_USAGE;
	}
	for (i = 0; i < im.n; i++) {
		verify_one(&im, im.pids[i], &o, &res[i]);
		if (!cli_json)
			print_text(im.shown, &res[i]);
	}
	ret = verdict(&im, res, &unread);
	if (cli_json)
		report_json(a.dir, &im, res, ret);
	else
		report_text(&im, ret, unread);
	cli_images_close(&im);
	free(res);
	return ret;
}
