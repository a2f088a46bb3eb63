// SPDX-License-Identifier: MIT
/*
 * check.c - cudastore check: what a dump on this machine would do, and why.
 *
 * Read-only: it loads the options (options.c, traced to show where each value came from),
 * dlopens libcuda and NVML the way the plugin does (check_driver.c) and asks them questions
 * (versions, GPUs, which processes use GPU memory, their checkpoint state), runs
 * "criu --version" and (as root) "criu check", and looks into the plugin directory criu would use
 * (check_criu.c), dlopening our plugin only to count the hooks it registers (no plugin code
 * runs). It locks, checkpoints and writes nothing. The probes fill one report (check.h), which
 * check_text.c or check_json.c prints.
 *
 * With --images DIR|ARCHIVE it answers another question instead: can this host restore these
 * images now, and onto which GPUs (check_images.c, the restore's own judgement).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "imgdir.h"

#define SUB "check"

/* what the command line asks */
struct check_args {
	bool help;
	const char *images_dir, *plugindir, *criu;
	const char *images; /* --images: the restore's question */
	const char *dev;    /* --dev: the /dev of the container the images will be restored into */
};

/* ---- options ---- */

static void on_option(void *arg, const char *key, const char *value, const char *where)
{
	struct cli_check_report *r = arg;
	size_t i;

	for (i = 0; i < CS_OPTION_COUNT; i++)
		if (!strcmp(cs_option_key(i), key))
			snprintf(r->opt_where[i], sizeof(r->opt_where[i]), "%s", where);
}

/* CUDASTORE_<KEY> for a key the plugin does not know (the plugin refuses it too): list them */
static void unknown_env(struct cli_check_report *r)
{
	extern char **environ;
	size_t len;
	char **e;

	for (e = environ; *e; e++) {
		if (strncmp(*e, "CUDASTORE_", 10))
			continue;
		len = strcspn(*e, "=");
		/* options, the config file's name, the emulator's and the tests' settings: the plugin's list
		 */
		if (cs_options_env_known(*e, len) || r->nunknown_env >= CLI_CHECK_MAX_LISTED)
			continue;
		snprintf(r->unknown_env[r->nunknown_env++], sizeof(r->unknown_env[0]), "%.*s", (int)len, *e);
	}
}

static void check_options(struct cli_check_report *r)
{
	int ret = cs_options_load_traced(&r->o, on_option, r, r->opt_err, sizeof(r->opt_err));

	cs_options_notes(&r->o, cli_log_option_note, NULL);
	if (ret)
		cli_check_problem(
		    r, "the plugin would refuse its configuration: %s. Fix it (see cudastore.conf(5))",
		    r->opt_err);
	r->config = cs_options_config_path();
	unknown_env(r);
}

/* ---- images directory ---- */

/* the free space of --images-dir against the GPU memory in use (check_driver.c counted it) */
static void check_images(struct cli_check_report *r)
{
	char a[32], b[32];
	int fd;

	if (!r->images)
		return;
	fd = open(r->images, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || cs_imgdir_free_bytes(fd, &r->images_free)) {
		snprintf(r->images_err, sizeof(r->images_err), "%s", strerror(errno));
		cli_check_problem(r, "images directory %s: %s; create it or pick another", r->images,
				  strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	r->images_ok = true;
	if (r->images_free < r->gpu_bytes && r->o.space_check)
		cli_check_problem(
		    r,
		    "the images directory %s has %s free but the CUDA processes use %s of GPU "
		    "memory: the dump would be refused (space_check). Free space or use a bigger "
		    "directory",
		    r->images, cli_bytes(r->images_free, a, sizeof(a)),
		    cli_bytes(r->gpu_bytes, b, sizeof(b)));
}

/* ---- the command ---- */

static int usage(FILE *f, int rc)
{
	fprintf(f,
		"Usage: cudastore check [--json] [--images-dir DIR] [--plugin-dir DIR] [--criu PATH]\n"
		"       cudastore check [--json] --images DIR|ARCHIVE [--dev DIR]\n"
		"\n"
		"Show what a dump on this machine would do and why: libcuda (path, driver version,\n"
		"checkpoint API, CustomStorage and the mode auto picks), the GPUs and their memory in\n"
		"use, the CUDA processes, the options in effect with where each value came from\n"
		"(default, config file and line, environment variable), criu (path, version), the\n"
		"plugin directory criu would use with the hooks our plugin registers and any\n"
		"conflicting plugin, and the room in the images directory.\n"
		"\n"
		"  --images-dir DIR  compare the free space of DIR with the GPU memory in use\n"
		"  --plugin-dir DIR  the directory you pass to criu with -L (default: the one criu\n"
		"                    finds itself: libdir in its config files, else $CRIU_LIBS_DIR,\n"
		"                    else the one compiled into criu, as 'criu --help' names it)\n"
		"  --criu PATH       the criu binary (default: PATH, /usr/local/sbin, /usr/sbin)\n"
		"  --images DIR|ARCHIVE\n"
		"                    instead: can this host restore these images now, and onto\n"
		"                    which GPUs? The restore's own judgement (driver branch and\n"
		"                    version, CUDA, CPU architecture, each GPU's product, compute\n"
		"                    capability, memory, MIG mode and free memory, the device map);\n"
		"                    every GPU counts, as for the restore (CUDA_VISIBLE_DEVICES is\n"
		"                    ignored). Exit 0: yes, 1: no (every reason listed)\n"
		"  --dev DIR         with --images: only the GPUs whose device node (/dev/nvidiaN,\n"
		"                    by minor number) DIR holds, as the restore does with the\n"
		"                    restored container's /dev (e.g. /proc/PID/root/dev of a\n"
		"                    container given the same GPUs)\n"
		"  --json            print the result as JSON on stdout (schema in cudastore(1))\n"
		"  -v                show the plugin modules' log lines on stderr\n"
		"  -h, --help        this text\n"
		"\n"
		"As root it also runs 'criu check'. Options may come anywhere on the line.\n"
		"Changes nothing. Exit status: 0 a dump would work, 1 it would not (each reason is\n"
		"listed with what to do), 2 usage error. This build installs the plugin in\n"
		"%s.\n",
		CS_CRIU_PLUGINDIR);
	return rc;
}

/* CLI_OK (with help set: stop at --help, as the options after it are not read), or CLI_USAGE */
static int parse_args(int argc, char **argv, struct check_args *a)
{
	static const struct option lopts[] = { { "json", no_argument, NULL, 'j' },
					       { "images-dir", required_argument, NULL, 'D' },
					       { "images", required_argument, NULL, 'I' },
					       { "dev", required_argument, NULL, 'V' },
					       { "plugin-dir", required_argument, NULL, 'L' },
					       { "criu", required_argument, NULL, 'c' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	int c;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jD:L:c:hv", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli_json = true;
			break;
		case 'D':
			a->images_dir = optarg;
			break;
		case 'I':
			a->images = optarg;
			break;
		case 'V':
			a->dev = optarg;
			break;
		case 'L':
			a->plugindir = optarg;
			break;
		case 'c':
			a->criu = optarg;
			break;
		case 'v':
			cli_verbose++;
			break;
		case 'h':
			a->help = true;
			return CLI_OK;
		default:
			return cli_opt_error(SUB, c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_err(SUB, "unexpected argument '%s'", argv[optind]);
	if (a->dev && !a->images)
		return cli_usage_err(SUB, "--dev DIR names the /dev the restored processes will have: it "
					  "goes with --images");
	if (a->images && (a->images_dir || a->plugindir || a->criu))
		return cli_usage_err(SUB, "--images asks whether this host can restore the images: "
					  "--images-dir, --plugin-dir and --criu are for a dump's check; "
					  "run them apart");
	return CLI_OK;
}

/*
 * --images: the options, then the restore's judgement of the images, as text or JSON; CLI_OK when
 * this host can restore them. The helper that restores sees every GPU (the plugin starts it with a
 * clean environment), so CUDA_VISIBLE_DEVICES goes before libcuda is loaded and reads it.
 */
static int run_images(struct cli_check_report *r, const struct check_args *a)
{
	int rc;

	unsetenv("CUDA_VISIBLE_DEVICES");
	r->img.path = a->images;
	r->img.devdir = a->dev;
	check_options(r);
	rc = cli_check_images(r);
	if (rc != CLI_OK)
		return rc;
	if (cli_json)
		cli_check_images_json(r);
	else
		cli_check_images_text(r);
	return r->img.nreason ? CLI_FAIL : CLI_OK;
}

/* every probe in order, then the report as text or JSON: CLI_OK when a dump would work */
static int run(struct cli_check_report *r, const struct check_args *a)
{
	if (a->images)
		return run_images(r, a);
	r->images = a->images_dir;
	check_options(r);
	cli_check_driver(r);
	cli_check_criu(r, a->criu, a->plugindir);
	check_images(r);
	if (cli_json)
		cli_check_json(r);
	else
		cli_check_text(r);
	return r->nproblems ? CLI_FAIL : CLI_OK;
}

int cli_check(int argc, char **argv)
{
	struct cli_check_report *r;
	struct check_args a;
	int rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return CLI_USAGE;
	rc = parse_args(argc, argv, &a);
	if (rc == CLI_OK)
		rc = a.help ? cli_help(SUB, usage) : run(r, &a);
	free(r);
	return rc;
}
