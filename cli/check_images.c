// SPDX-License-Identifier: MIT
/*
 * check_images.c - cudastore check --images DIR|ARCHIVE: can this host, now, restore these
 * images, and onto which GPUs; if not, every reason.
 *
 * It makes the restore's own judgement (restore_place.c does the same before any process is
 * touched): the manifests the restore reads, by its rules on the image set (cli_load_manifest:
 * the dump's index tied to CRIU's inventory.img, dump ids, ns pids, extents present at their
 * sizes; no extent byte is read), this host probed as the helper probes it
 * (cli_check_restore_host: cs_probe_restore_host, NVML's free memory and MIG mode), the device
 * map of the options, and cs_restore_plan. Around the plan it adds what the restore refuses for
 * before it gets there: a configuration the plugin refuses, a driver without the checkpoint API,
 * a manifest the restore's rules refuse.
 *
 * The helper that restores sees every GPU (the plugin starts it with a clean environment), so
 * check.c removes CUDA_VISIBLE_DEVICES from this process's environment before libcuda is loaded.
 * It runs outside the container the images will be restored into, so it cannot know which GPUs
 * that container will be given: with --dev DIR it keeps only the GPUs whose device node DIR
 * holds, as the restore keeps those of the restored processes' /dev; without, every GPU counts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "device_view.h"
#include "manifest.h"

#define SUB "check"

static void add_line(char (*list)[CS_PLAN_REASON_MAX], unsigned *n, unsigned max, const char *fmt, va_list ap)
{
	if (*n < max)
		vsnprintf(list[(*n)++], CS_PLAN_REASON_MAX, fmt, ap);
}

void cli_check_img_reason(struct cli_check_images *ci, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(ci->reason, &ci->nreason, CLI_CHECK_IMG_REASONS, fmt, ap);
	va_end(ap);
}

void cli_check_img_note(struct cli_check_images *ci, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(ci->note, &ci->nnote, CLI_CHECK_IMG_NOTES, fmt, ap);
	va_end(ap);
}

/* the plugin refuses to start with a configuration it cannot take: criu restore then fails */
static void config_reason(const struct cli_check_report *r, struct cli_check_images *ci)
{
	if (r->opt_err[0])
		cli_check_img_reason(ci,
				     "the plugin would refuse its configuration: %s. Fix it (see "
				     "cudastore.conf(5))",
				     r->opt_err);
}

/* the helper refuses a driver without the checkpoint API before it makes its plan */
static void api_reason(const struct cli_check_report *r, struct cli_check_images *ci)
{
	if (r->cuda_ok && !r->checkpoint_api)
		cli_check_img_reason(ci,
				     "libcuda %s (CUDA %d.%d) has no checkpoint API: a restore needs a CUDA "
				     "12.8+ (R570+) driver",
				     r->cuda_file, r->driver_version / 1000, r->driver_version % 1000 / 10);
}

/* what is said about the image set as a whole: its CRIU dump */
static void set_reasons(struct cli_check_images *ci, const struct cli_images *im)
{
	const char *note = cli_images_unbound(im);

	if (cli_images_inventory_bad(im))
		cli_check_img_reason(ci, "%s/%s: %s: criu restore cannot read it", im->shown, CLI_INVENTORY,
				     im->inv_why);
	if (note)
		cli_check_img_note(ci,
				   "not checked whether the cudastore images are of the CRIU dump beside "
				   "them: %s",
				   note);
	if (im->n > CS_MAX_PROCS)
		cli_check_img_reason(ci, "%s holds %u manifests: a restore takes at most %d processes",
				     im->shown, im->n, CS_MAX_PROCS);
}

/*
 * The manifest of nspid by the restore's rules: 0 (judged, in m), 1 (ignored or refused, said)
 * or CLI_CANNOT_READ (after a message: this user may not read it, nothing is judged).
 */
static int load_one(struct cli_check_images *ci, const struct cli_images *im, int nspid,
		    struct cs_manifest *m)
{
	char err[1024], name[CS_NAME_MAX];
	int ret = cli_load_manifest(im, nspid, m, err, sizeof(err));
	bool named;

	if (!ret)
		return 0;
	cs_manifest_free(m);
	cs_name_manifest(name, nspid);
	if (ret == -ENOTSUP) { /* a file of another dump: the restore acts as if it were not there */
		cli_check_img_note(ci, "%s", err);
		return 1;
	}
	if (cli_cannot_read(ret)) {
		cli_err(SUB, "%s: %s: the images were not judged; %s", im->shown, err,
			cli_cannot_read_advice());
		return CLI_CANNOT_READ;
	}
	named = !strncmp(err, name, strlen(name)); /* the decoder's message names the file itself */
	cli_check_img_reason(ci,
			     "%s%s%s: a restore refuses these images (damaged or incomplete images are "
			     "cudastore verify's to judge: run it on them)",
			     named ? "" : name, named ? "" : ": ", err);
	return 1;
}

/*
 * The order the restore reads the manifests in, which is the order its plan names the GPUs in:
 * the index's (the dump's own), then any other manifest (which a restore ignores, or reads in
 * the tree's order when there is no index: format 1.0 images). n entries of im->pids at most.
 */
static unsigned restore_order(const struct cli_images *im, int *order, unsigned n)
{
	const struct cs_index *x = &im->index.x;
	unsigned k = 0, i;

	for (i = 0; !im->index.err && i < x->n && k < n; i++)
		order[k++] = x->ns_pid[i];
	for (i = 0; i < im->n && k < n; i++)
		if (im->index.err || !cs_index_has(x, im->pids[i]))
			order[k++] = im->pids[i];
	return k;
}

/* every manifest the restore would act on into ms[0..ci->nproc); CLI_OK or CLI_CANNOT_READ */
static int load_all(struct cli_check_images *ci, const struct cli_images *im, struct cs_manifest *own,
		    const struct cs_manifest **ms, int *order, unsigned n)
{
	int ret;

	n = restore_order(im, order, n);
	for (unsigned i = 0; i < n; i++) {
		ret = load_one(ci, im, order[i], &own[i]);
		if (ret == CLI_CANNOT_READ)
			return ret;
		if (!ret)
			ms[ci->nproc++] = &own[i];
	}
	return CLI_OK;
}

/* the plan's reasons and notes after the check's own: every reason, as the restore logs them */
static void take_plan(struct cli_check_images *ci)
{
	const struct cs_restore_plan *p = &ci->plan;

	for (unsigned i = 0; i < p->nreason; i++)
		cli_check_img_reason(ci, "%s", p->reason[i]);
	if (ci->plan_ret && !p->nreason)
		cli_check_img_reason(ci, "no placement for the images' GPUs (%s)", strerror(-ci->plan_ret));
	for (unsigned i = 0; i < p->nnote; i++)
		cli_check_img_note(ci, "%s", p->note[i]);
}

/*
 * --dev DIR: only the GPUs whose device node DIR holds, as the restore keeps only those of the
 * restored processes' /dev (device_view.h). CLI_OK, or CLI_USAGE when DIR cannot be read.
 */
static int restrict_to_dev(struct cli_check_images *ci)
{
	struct cs_device_view *v;
	char note[CS_VIEW_NOTE_MAX];
	int ret;

	if (!ci->devdir)
		return CLI_OK;
	v = calloc(1, sizeof(*v));
	if (!v) {
		cli_err(SUB, "out of memory to read --dev %s", ci->devdir);
		return CLI_USAGE;
	}
	ret = cs_devview_read(ci->devdir, v);
	if (ret) {
		cli_err(SUB, "cannot read --dev %s: %s; name the /dev the restored container will have",
			ci->devdir, strerror(-ret));
		free(v);
		return CLI_USAGE;
	}
	cs_view_restrict(&ci->host, v, note, sizeof(note));
	cli_check_img_note(ci, "%s", note);
	free(v);
	return CLI_OK;
}

/* the judgement proper, on opened images */
static int judge(struct cli_check_report *r, const struct cli_images *im)
{
	struct cli_check_images *ci = &r->img;
	const struct cs_manifest **ms;
	struct cs_manifest *own;
	unsigned n = im->n < CS_MAX_PROCS ? im->n : CS_MAX_PROCS;
	int rc, *order;

	own = calloc(n ? n : 1, sizeof(*own));
	ms = calloc(n ? n : 1, sizeof(*ms));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!own || !ms || !order) {
		free(own);
		free(ms);
		free(order);
		cli_err(SUB, "out of memory to read the manifests of %s", im->shown);
		return CLI_USAGE;
	}
	set_reasons(ci, im);
	rc = load_all(ci, im, own, ms, order, n);
	if (rc == CLI_OK) {
		cli_check_restore_host(r, &ci->host);
		rc = restrict_to_dev(ci);
	}
	if (rc == CLI_OK) {
		api_reason(r, ci);
		ci->plan_ret =
		    cs_restore_plan(ms, ci->nproc, &ci->host, r->o.device_map, r->o.ndevice_map, &ci->plan);
		take_plan(ci);
	}
	for (unsigned i = 0; i < n; i++)
		cs_manifest_free(&own[i]);
	free(own);
	free(ms);
	free(order);
	return rc;
}

int cli_check_images(struct cli_check_report *r)
{
	struct cli_check_images *ci = &r->img;
	struct cli_images im;
	int rc;

	rc = cli_images_open(SUB, ci->path, 0, &im);
	if (rc != CLI_OK)
		return rc;
	snprintf(ci->shown, sizeof(ci->shown), "%s", im.shown);
	ci->archive = im.tmp[0] != '\0';
	ci->gpu_state = im.gpu_state;
	config_reason(r, ci);
	if (im.gpu_state)
		rc = judge(r, &im);
	else
		cli_check_img_note(ci, "CRIU images without GPU state: criu restores them without any GPU");
	cli_images_close(&im);
	return rc;
}
