// SPDX-License-Identifier: MIT
/*
 * check_text.c - cudastore check's report as text: the options with their sources, libcuda, the
 * GPUs and CUDA processes, criu and its plugin directory, the images directory, then the verdict
 * with each problem. Every line goes through cli_line, escaped as what inspect and verify print.
 */
#include <string.h>

#include "check.h"

static void text_options(const struct cli_check_report *r)
{
	const char *w;
	char v[4096];
	unsigned i;
	size_t n;

	cli_line("options (config file %s):", r->config);
	if (r->opt_err[0])
		cli_line("  ERROR: %s", r->opt_err);
	for (i = 0; i < CS_OPTION_COUNT; i++) {
		cs_option_format(&r->o, cs_option_key(i), v, sizeof(v));
		cli_line("  %-17s = %-20s (%s)", cs_option_key(i), v,
			 r->opt_where[i][0] ? r->opt_where[i] : "default");
	}
	for (i = 0; i < r->nunknown_env; i++)
		cli_line(
		    "  %-17s   not an option: the plugin refuses to start with it (see cudastore.conf(5))",
		    r->unknown_env[i]);
	for (w = r->o.warnings; *w; w += n + (w[n] == '\n')) {
		n = strcspn(w, "\n");
		cli_line("  warning: %.*s", (int)n, w);
	}
}

static void text_cuda(const struct cli_check_report *r)
{
	cli_line("libcuda:");
	if (!r->cuda_ok) {
		cli_line("  NOT LOADED: %s", r->cuda_err);
		return;
	}
	cli_line("  library:        %s", r->cuda_file);
	cli_line("  driver:         CUDA %d.%d (%d)", r->driver_version / 1000, r->driver_version % 1000 / 10,
		 r->driver_version);
	cli_line("  checkpoint API: %s", r->checkpoint_api ? "yes" : "no");
	cli_line("  CustomStorage:  %s: %s", r->custom_storage ? "yes" : "no", r->custom_reason);
	cli_line("  mode:           %s; auto picks %s", cs_opt_mode_name(r->o.mode), r->auto_mode);
}

static void text_gpus(const struct cli_check_report *r)
{
	char a[32], b[32];
	int j;

	cli_line("GPUs:%s%s", r->gpu_err[0] ? " " : "", r->gpu_err);
	for (j = 0; j < r->ngpu; j++) {
		const struct cli_check_gpu *g = &r->gpu[j];

		if (g->used_known)
			cli_line("  %d  %s  %s  %s used of %s", j, g->uuid, g->name,
				 cli_bytes(g->used, a, sizeof(a)), cli_bytes(g->total, b, sizeof(b)));
		else
			cli_line("  %d  %s  %s  %s (use unknown: no NVML)", j, g->uuid, g->name,
				 cli_bytes(g->total, b, sizeof(b)));
	}
}

static void text_procs(const struct cli_check_report *r)
{
	char a[32], on[CLI_CHECK_MAX_GPUS * (CS_UUID_STRLEN + 1) + 1];
	size_t off;
	unsigned i, k;

	cli_line("CUDA processes:%s%s",
		 r->nvml_ok ? "" : " unknown, no NVML: ", r->nvml_ok ? "" : r->nvml_err);
	if (r->nvml_ok && !r->nproc)
		cli_line("  none");
	for (i = 0; i < r->nproc; i++) {
		on[0] = '\0';
		for (k = 0, off = 0; k < r->proc[i].ngpu && off < sizeof(on); k++)
			off += (size_t)snprintf(on + off, sizeof(on) - off, " %s", r->proc[i].gpus[k]);
		cli_line("  pid %d: %s on%s, state %s", r->proc[i].pid,
			 cli_bytes(r->proc[i].bytes, a, sizeof(a)), on, r->proc[i].state);
	}
}

static void text_criu(const struct cli_check_report *r)
{
	char v[4400];
	unsigned i;

	cli_line("criu:");
	cli_line("  binary:         %s%s%s", r->criu[0] ? r->criu : "not found",
		 r->criu_version[0] ? ", version " : "", r->criu_version);
	if (r->criu_check_run)
		cli_line("  criu check:     %s: %s", r->criu_check_ok ? "passed" : "FAILED",
			 r->criu_check_out);
	else if (r->criu_version[0])
		cli_line("  criu check:     not run (needs root)");
	cli_line("  plugin dir:     %s (%s)", r->pd.dir, cli_plugindir_why(&r->pd, v, sizeof(v)));
	if (r->plugin_path[0] && !r->plugin_err[0])
		cli_line("  plugin:         %s (%s, max_hooks %d as criu loads it, %d set)", r->plugin_path,
			 r->plugin_name, r->plugin_hooks, r->plugin_hooks_set);
	else
		cli_line("  plugin:         %s %s", CLI_CHECK_PLUGIN_FILE, r->plugin_err);
	if (r->helper[0])
		cli_line("  helper:         %s (the one the plugin would start)", r->helper);
	for (i = 0; i < r->nothers; i++)
		cli_line("  other plugin:   %s%s", r->others[i],
			 !strcmp(r->others[i], CLI_CHECK_CRIU_CUDA_PLUGIN)
			     ? "  CONFLICT: claims every CUDA process"
			     : "");
}

static void text_images(const struct cli_check_report *r)
{
	char a[32], b[32];

	if (!r->images)
		return;
	cli_line("images directory %s:", r->images);
	if (r->images_ok)
		cli_line("  %s free, %s of GPU memory in use", cli_bytes(r->images_free, a, sizeof(a)),
			 cli_bytes(r->gpu_bytes, b, sizeof(b)));
	else
		cli_line("  ERROR: %s", r->images_err);
}

static void text_verdict(const struct cli_check_report *r)
{
	unsigned i;

	if (!r->nproblems) {
		cli_line("verdict: a dump would work (mode %s)",
			 r->o.mode == CS_OPT_MODE_AUTO ? r->auto_mode : cs_opt_mode_name(r->o.mode));
		return;
	}
	cli_line("verdict: a dump would NOT work:");
	for (i = 0; i < r->nproblems; i++)
		cli_line("  - %s", r->problems[i]);
}

void cli_check_text(const struct cli_check_report *r)
{
	text_options(r);
	text_cuda(r);
	text_gpus(r);
	text_procs(r);
	text_criu(r);
	text_images(r);
	text_verdict(r);
}

/* ---- --images: can this host restore them ---- */

/* "driver 615.20.01 (CUDA 13.4), x86_64, 2 GPUs" */
static void text_restore_host(const struct cs_restore_host *h)
{
	if (!h->cuda_version) {
		cli_line("  this host:   no usable driver (%s), %s", h->driver_error,
			 h->host.arch[0] ? h->host.arch : "unknown architecture");
		return;
	}
	cli_line("  this host:   driver %s (CUDA %d.%d%s), %s, %u GPU(s)",
		 h->host.driver_version[0] ? h->host.driver_version : "of unknown version",
		 h->cuda_version / 1000, h->cuda_version % 1000 / 10,
		 h->custom_storage ? ", CustomStorage" : "",
		 h->host.arch[0] ? h->host.arch : "unknown architecture", h->ngpu);
}

static void text_placement(const struct cli_check_images *ci)
{
	const struct cs_restore_plan *p = &ci->plan;
	char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];

	for (unsigned i = 0; i < p->n; i++) {
		const struct cs_gpu_facts *g = &ci->host.gpu[p->dest[i]];

		cs_uuid_format(&p->want[i].facts.uuid, a);
		cs_uuid_format(&g->uuid, b);
		cli_line("  placement:   checkpointed GPU %s -> GPU %d here (%s): %s", a, g->ordinal, b,
			 p->how[i]);
	}
}

void cli_check_images_text(const struct cli_check_report *r)
{
	const struct cli_check_images *ci = &r->img;
	unsigned i;

	cli_line("this host can restore %s: %s", ci->shown, ci->nreason ? "no" : "yes");
	if (ci->gpu_state) {
		cli_line("  images:      %u process(es), %u checkpointed GPU(s)", ci->nproc, ci->plan.n);
		text_restore_host(&ci->host);
	}
	if (!ci->nreason)
		text_placement(ci);
	for (i = 0; i < ci->nreason; i++)
		cli_line("  reason:      %s", ci->reason[i]);
	for (i = 0; i < ci->nnote; i++)
		cli_line("  note:        %s", ci->note[i]);
}
