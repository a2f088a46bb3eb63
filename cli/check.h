/* SPDX-License-Identifier: MIT */
/*
 * check.h - cudastore check: the report its probes fill and its two renderers print.
 *
 *   check.c         the command: arguments, usage, the probes in order, the options and the
 *                   images directory
 *   check_report.c  the verdict's problems, which every probe adds
 *   check_driver.c  libcuda, the GPUs, NVML and the CUDA processes
 *   check_criu.c    criu, its plugin directory, our plugin and its helper
 *   check_images.c  --images: can this host restore these images, and onto which GPUs
 *   check_text.c    the report as text
 *   check_json.c    the report as JSON (schema in cudastore(1))
 *
 * The probes only read; the renderers print only what the report holds, so text and JSON say
 * the same facts. A problem is one reason a dump would not work, with what to do about it, in
 * the order the probes found them.
 */
#ifndef CUDASTORE_CLI_CHECK_H
#define CUDASTORE_CLI_CHECK_H

#include "cli.h"
#include "imglimits.h"
#include "options.h"
#include "restore_plan.h"

#define CLI_CHECK_MAX_PROCS	   256
#define CLI_CHECK_MAX_GPUS	   8  /* of one process, named */
#define CLI_CHECK_MAX_LISTED	   16 /* problems, unknown variables, other plugins */
#define CLI_CHECK_PLUGIN_FILE	   "cudastore_plugin.so"
#define CLI_CHECK_CRIU_CUDA_PLUGIN "cuda_plugin.so" /* CRIU's own: claims every CUDA process */

#ifndef CS_CRIU_PLUGINDIR /* where this build installs the plugin (configure) */
#define CS_CRIU_PLUGINDIR "/usr/lib/criu"
#endif

struct cli_check_gpu {
	char uuid[CS_UUID_STRLEN];
	char name[128];
	uint64_t total, used;
	bool used_known; /* NVML listed its processes */
};

struct cli_check_proc {
	int pid;
	uint64_t bytes;
	unsigned ngpu;
	char gpus[CLI_CHECK_MAX_GPUS][CS_UUID_STRLEN];
	const char *state; /* cs_cuda_state_name, or "?" */
};

/*
 * --images: the restore's own judgement of the images (restore_plan.h) on this host as a restore
 * probes it. The reasons are every one the restore would refuse for: the plugin's configuration,
 * the driver's checkpoint API, a manifest the restore's rules refuse (check_images.c), then the
 * plan's (host rules and placement). Notes say what was not refused.
 */
#define CLI_CHECK_IMG_REASONS (CLI_CHECK_MAX_LISTED + CS_PLAN_REASONS)
#define CLI_CHECK_IMG_NOTES   (CLI_CHECK_MAX_LISTED + CS_PLAN_NOTES)
struct cli_check_images {
	const char *path;   /* DIR or ARCHIVE as given */
	const char *devdir; /* --dev: the /dev the restored processes will have; NULL: not known */
	char shown[4200]; /* what to call it: DIR, or ARCHIVE:checkpoint */
	bool archive;	  /* path is an archive, unpacked into a private directory */
	bool gpu_state;	  /* false: CRIU images without cudastore files */
	unsigned nproc;	  /* processes whose manifests were judged */
	int plan_ret;	  /* cs_restore_plan's answer */
	struct cs_restore_host host;
	struct cs_restore_plan plan;
	unsigned nreason;
	char reason[CLI_CHECK_IMG_REASONS][CS_PLAN_REASON_MAX];
	unsigned nnote;
	char note[CLI_CHECK_IMG_NOTES][CS_PLAN_REASON_MAX];
};

struct cli_check_report {
	/* verdict */
	unsigned nproblems;
	char problems[CLI_CHECK_MAX_LISTED][1024];
	/* options */
	const char *config; /* the config file read (cs_options_config_path) */
	struct cs_options o;
	char opt_err[512];
	char opt_where[CS_OPTION_COUNT][300]; /* "" default, else FILE:LINE or the variable */
	unsigned nunknown_env;
	char unknown_env[CLI_CHECK_MAX_LISTED][128];
	/* libcuda */
	bool cuda_ok;
	char cuda_err[512], cuda_file[512];
	int driver_version;
	bool checkpoint_api, custom_storage;
	const char *custom_reason;
	const char *auto_mode;
	/* GPUs */
	int ngpu;
	struct cli_check_gpu gpu[CS_MAX_DEVICES];
	char gpu_err[256];
	/* NVML, processes */
	bool nvml_ok;
	char nvml_err[512];
	unsigned nproc;
	struct cli_check_proc proc[CLI_CHECK_MAX_PROCS];
	uint64_t gpu_bytes;
	/* criu */
	char criu[512], criu_version[64];
	int criu_major, criu_minor;
	bool criu_check_run, criu_check_ok;
	char criu_check_out[512];
	struct cli_plugindir pd; /* the directory criu loads plugins from, and why */
	char plugin_path[600], plugin_err[512], plugin_name[64], helper[600];
	int plugin_hooks;     /* the max_hooks criu reads: 12, 13 with criu >= 4.2 */
	int plugin_hooks_set; /* of those, the hooks the plugin registers */
	unsigned nothers;
	char others[CLI_CHECK_MAX_LISTED][256];
	char conflict[600];
	/* images dir */
	const char *images; /* --images-dir, or NULL */
	bool images_ok;
	uint64_t images_free;
	char images_err[256];
	/* --images (check_images.c): can this host restore them */
	struct cli_check_images img;
};

/* one more reason a dump would not work (check_report.c; the first CLI_CHECK_MAX_LISTED are kept) */
void cli_check_problem(struct cli_check_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- probes, run in this order (check.c); each reads what the ones before it found ---- */
/* libcuda and its GPUs, then NVML's CUDA processes with their checkpoint state (check_driver.c) */
void cli_check_driver(struct cli_check_report *r);
/* the criu binary CRIU (NULL: looked for), its version and "criu check" (as root), and the
 * plugin directory it would use (PLUGINDIR: check's --plugin-dir, or NULL) (check_criu.c) */
void cli_check_criu(struct cli_check_report *r, const char *criu, const char *plugindir);

/*
 * --images (check_images.c): the images at r->img.path read by the restore's rules, this host
 * probed as the restore probes it (cli_check_restore_host), the restore's plan made. CLI_OK: r->img
 * holds the verdict (no reasons: yes); else CLI_USAGE, CLI_FAIL or CLI_CANNOT_READ after a message
 * (images that cannot be opened, hold no images, or that this user may not read).
 */
int cli_check_images(struct cli_check_report *r);
/* a reason the restore would refuse these images for, or a note (check_images.c) */
void cli_check_img_reason(struct cli_check_images *im, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cli_check_img_note(struct cli_check_images *im, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * This host as a restore sees it (gpu_probe.h): libcuda as the options name it (as
 * cli_check_driver loads it), NVML for each GPU's free memory and MIG mode, every GPU cuInit
 * shows. The caller has removed CUDA_VISIBLE_DEVICES from the environment (check_driver.c).
 */
void cli_check_restore_host(struct cli_check_report *r, struct cs_restore_host *h);

/* ---- renderers: on stdout ---- */
void cli_check_text(const struct cli_check_report *r); /* check_text.c */
void cli_check_json(const struct cli_check_report *r); /* check_json.c */
/* --images: the verdict, each placement or every reason, the notes */
void cli_check_images_text(const struct cli_check_report *r); /* check_text.c */
void cli_check_images_json(const struct cli_check_report *r); /* check_json.c */

#endif /* CUDASTORE_CLI_CHECK_H */
