// SPDX-License-Identifier: MIT
/*
 * check_json.c - cudastore check's report as one JSON object (schema in cudastore(1)): "ok" and
 * the problems, the options with typed values and their sources, libcuda and the mode a dump
 * would use, the GPUs and CUDA processes, criu and its plugin directory, the images directory.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

/*
 * An option's value as JSON, from the text the config file would hold (cs_option_format): a
 * number, with what it means in "note" when the text says ("0 (auto)"); true or false for yes and
 * no; null with the note for a value left unset ("(beside the plugin, else installed)"); else the
 * text (auto, a mode, a path, the device map). A path or library name stays a string whatever it
 * looks like.
 */
static void json_option_value(json_object *v, const char *key, const char *text)
{
	bool path = !strcmp(key, "libcuda") || !strcmp(key, "libnvml") || !strcmp(key, "helper");
	size_t digits = strspn(text, "0123456789"), len = strlen(text);
	const char *note = NULL;
	char buf[256];

	if (text[0] == '(' && len > 1 && text[len - 1] == ')') {
		cli_jnull(v, "value");
		note = text + 1;
	} else if (!path && digits && digits < 20 && (!text[digits] || !strncmp(text + digits, " (", 2))) {
		cli_ju64(v, "value", strtoull(text, NULL, 10));
		note = text[digits] ? text + digits + 2 : NULL;
	} else if (!path && (!strcmp(text, "yes") || !strcmp(text, "no"))) {
		cli_jbool(v, "value", !strcmp(text, "yes"));
	} else {
		cli_jstr(v, "value", text);
	}
	if (note) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(note, ")"), note);
		cli_jstr(v, "note", buf);
	}
}

static void json_options(json_object *out, const struct cli_check_report *r)
{
	json_object *o = cli_jobj(out, "options"), *vals, *v, *a;
	char val[4096], line[512];
	const char *w;
	unsigned i;
	size_t n;

	cli_jstr(o, "config_file", r->config);
	cli_jstr(o, "error", r->opt_err[0] ? r->opt_err : NULL);
	a = cli_jarr(o, "warnings");
	for (w = r->o.warnings; *w; w += n + (w[n] == '\n')) {
		n = strcspn(w, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, w);
		cli_jstr(a, NULL, line);
	}
	vals = cli_jobj(o, "values");
	for (i = 0; i < CS_OPTION_COUNT; i++) {
		cs_option_format(&r->o, cs_option_key(i), val, sizeof(val));
		v = cli_jobj(vals, cs_option_key(i));
		json_option_value(v, cs_option_key(i), val);
		cli_jstr(v, "source", r->opt_where[i][0] ? r->opt_where[i] : "default");
	}
	a = cli_jarr(o, "unknown_environment");
	for (i = 0; i < r->nunknown_env; i++)
		cli_jstr(a, NULL, r->unknown_env[i]);
}

static void json_cuda(json_object *out, const struct cli_check_report *r)
{
	json_object *o = cli_jobj(out, "libcuda");

	cli_jbool(o, "loaded", r->cuda_ok);
	if (r->cuda_ok) {
		cli_jstr(o, "path", r->cuda_file);
		cli_jint(o, "driver_version", r->driver_version);
		cli_jbool(o, "checkpoint_api", r->checkpoint_api);
		cli_jbool(o, "custom_storage", r->custom_storage);
		cli_jstr(o, "custom_storage_reason", r->custom_reason);
		cli_jstr(o, "auto_mode", r->auto_mode);
	} else {
		cli_jstr(o, "error", r->cuda_err);
	}
	cli_jstr(out, "mode", cs_opt_mode_name(r->o.mode));
	cli_jstr(out, "dump_mode",
		 !r->cuda_ok			 ? NULL
		 : r->o.mode == CS_OPT_MODE_AUTO ? r->auto_mode
						 : cs_opt_mode_name(r->o.mode));
}

static void json_gpus(json_object *out, const struct cli_check_report *r)
{
	json_object *a = cli_jarr(out, "gpus"), *g;
	int j;

	for (j = 0; j < r->ngpu; j++) {
		g = cli_jobj(a, NULL);
		cli_jint(g, "ordinal", j);
		cli_jstr(g, "uuid", r->gpu[j].uuid);
		cli_jstr(g, "name", r->gpu[j].name);
		cli_ju64(g, "total_bytes", r->gpu[j].total);
		if (r->gpu[j].used_known)
			cli_ju64(g, "used_bytes", r->gpu[j].used);
	}
}

static void json_procs(json_object *out, const struct cli_check_report *r)
{
	json_object *a, *p, *g;
	unsigned i, k;

	cli_jbool(out, "nvml", r->nvml_ok);
	a = cli_jarr(out, "processes");
	for (i = 0; i < r->nproc; i++) {
		p = cli_jobj(a, NULL);
		cli_jint(p, "pid", r->proc[i].pid);
		cli_ju64(p, "gpu_bytes", r->proc[i].bytes);
		cli_jstr(p, "state", r->proc[i].state);
		g = cli_jarr(p, "gpus");
		for (k = 0; k < r->proc[i].ngpu; k++)
			cli_jstr(g, NULL, r->proc[i].gpus[k]);
	}
}

/* criu's plugin directory: where it is, why criu uses it, and the one criu would use by default */
static void json_plugindir(json_object *o, const struct cli_check_report *r)
{
	cli_jstr(o, "plugin_dir", r->pd.dir);
	cli_jstr(o, "plugin_dir_from", cli_plugindir_from(&r->pd));
	if (r->pd.from == CLI_PD_CONFIG)
		cli_jstr(o, "plugin_dir_config", r->pd.config);
	cli_jstr(o, "default_plugin_dir", r->pd.builtin);
	cli_jbool(o, "default_plugin_dir_from_criu", r->pd.builtin_asked);
	cli_jbool(o, "default_plugin_dir_exists", !r->pd.builtin_absent);
	cli_jstr(o, "install_plugin_dir", CS_CRIU_PLUGINDIR);
}

static void json_criu(json_object *out, const struct cli_check_report *r)
{
	json_object *o = cli_jobj(out, "criu"), *c, *a;
	unsigned i;

	cli_jstr(o, "path", r->criu[0] ? r->criu : NULL);
	cli_jstr(o, "version", r->criu_version[0] ? r->criu_version : NULL);
	c = cli_jobj(o, "check");
	cli_jbool(c, "run", r->criu_check_run);
	if (r->criu_check_run) {
		cli_jbool(c, "ok", r->criu_check_ok);
		cli_jstr(c, "output", r->criu_check_out);
	}
	json_plugindir(o, r);
	cli_jstr(o, "plugin", r->plugin_path[0] ? r->plugin_path : NULL);
	cli_jint(o, "plugin_hooks", r->plugin_hooks);
	cli_jint(o, "plugin_hooks_set", r->plugin_hooks_set);
	cli_jstr(o, "helper", r->helper[0] ? r->helper : NULL);
	cli_jstr(o, "plugin_error", r->plugin_err[0] ? r->plugin_err : NULL);
	a = cli_jarr(o, "other_plugins");
	for (i = 0; i < r->nothers; i++)
		cli_jstr(a, NULL, r->others[i]);
	cli_jstr(o, "conflicting_plugin", r->conflict[0] ? r->conflict : NULL);
}

static void json_images(json_object *out, const struct cli_check_report *r)
{
	json_object *o;

	if (!r->images)
		return;
	o = cli_jobj(out, "images_dir");
	cli_jstr(o, "path", r->images);
	cli_jbool(o, "usable", r->images_ok);
	cli_ju64(o, "free_bytes", r->images_free);
	cli_ju64(o, "gpu_bytes_in_use", r->gpu_bytes);
	cli_jbool(o, "fits", r->images_ok && r->images_free >= r->gpu_bytes);
}

void cli_check_json(const struct cli_check_report *r)
{
	json_object *out = cli_jreport("check"), *a;
	unsigned i;

	cli_jbool(out, "ok", !r->nproblems);
	if (r->nproblems)
		cli_jstr(out, "error", r->problems[0]);
	a = cli_jarr(out, "problems");
	for (i = 0; i < r->nproblems; i++)
		cli_jstr(a, NULL, r->problems[i]);
	json_options(out, r);
	json_cuda(out, r);
	json_gpus(out, r);
	json_procs(out, r);
	json_criu(out, r);
	json_images(out, r);
	cli_jprint(out);
}

/* ---- --images: can this host restore them ---- */

static void json_restore_host(json_object *o, const struct cs_restore_host *h)
{
	json_object *host = cli_jobj(o, "host");

	cli_jstr(host, "driver_version", h->host.driver_version[0] ? h->host.driver_version : NULL);
	cli_jint(host, "driver_branch", h->host.branch);
	cli_jint(host, "cuda_version", h->cuda_version);
	cli_jbool(host, "custom_storage", h->custom_storage);
	cli_jstr(host, "driver_error", h->driver_error[0] ? h->driver_error : NULL);
	cli_jstr(host, "arch", h->host.arch[0] ? h->host.arch : NULL);
	cli_jstr(host, "libcuda_id", h->host.libcuda_id[0] ? h->host.libcuda_id : NULL);
	cli_jint(host, "gpus", h->ngpu);
}

static void json_placement(json_object *o, const struct cli_check_images *ci)
{
	const struct cs_restore_plan *p = &ci->plan;
	char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];
	json_object *arr = cli_jarr(o, "placement"), *e;

	for (unsigned i = 0; !ci->nreason && i < p->n; i++) {
		const struct cs_gpu_facts *g = &ci->host.gpu[p->dest[i]];

		cs_uuid_format(&p->want[i].facts.uuid, a);
		cs_uuid_format(&g->uuid, b);
		e = cli_jobj(arr, NULL);
		cli_jstr(e, "from_uuid", a);
		cli_jstr(e, "to_uuid", b);
		cli_jint(e, "to_ordinal", g->ordinal);
		cli_jstr(e, "how", p->how[i]);
	}
}

void cli_check_images_json(const struct cli_check_report *r)
{
	const struct cli_check_images *ci = &r->img;
	json_object *out = cli_jreport("check"), *o, *a;
	bool yes = !ci->nreason;
	unsigned i;

	cli_jbool(out, "ok", yes);
	cli_jint(out, "exit_code", yes ? CLI_OK : CLI_FAIL);
	if (!yes)
		cli_jstr(out, "error", ci->reason[0]);
	o = cli_jobj(out, "images");
	cli_jstr(o, "dir", ci->path);
	if (ci->archive)
		cli_jstr(o, "in_archive", ci->shown);
	cli_jstr(o, "verdict", yes ? "restore" : "refuse");
	cli_jbool(o, "gpu_state", ci->gpu_state);
	cli_jint(o, "processes", ci->nproc);
	json_placement(o, ci);
	a = cli_jarr(o, "reasons");
	for (i = 0; i < ci->nreason; i++)
		cli_jstr(a, NULL, ci->reason[i]);
	a = cli_jarr(o, "notes");
	for (i = 0; i < ci->nnote; i++)
		cli_jstr(a, NULL, ci->note[i]);
	if (ci->gpu_state)
		json_restore_host(o, &ci->host);
	cli_jprint(out);
}
