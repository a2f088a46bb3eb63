// SPDX-License-Identifier: MIT
/*
 * check.c - cudastore check: what a dump on this machine would do, and why.
 *
 * Read-only: it loads the options (options.c, traced to show where each value came from),
 * dlopens libcuda and NVML the way the plugin does (cuda_ops.c) and asks them questions
 * (versions, GPUs, which processes use GPU memory, their checkpoint state), runs
 * "criu --version" and (as root) "criu check", and looks into the plugin directory criu would use
 * (found as criu finds it, criu.c: -L, else libdir in its config files, else $CRIU_LIBS_DIR, else
 * the directory compiled into it, which "criu --help" names), dlopening our
 * plugin only to count the hooks it registers (no plugin code runs). It locks, checkpoints
 * and writes nothing. It runs outside criu, so it may call libcuda itself. The probes fill one
 * report (check.h), which check_text.c or check_json.c prints.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "criu-plugin.h"

#include "check.h"
#include "criu_version.h"
#include "helper_path.h"
#include "imgdir.h"

#define SUB	   "check"
#define NVML_PROCS 1024 /* the processes asked of NVML per GPU */

/* what the command line asks */
struct check_args {
	bool help;
	const char *images, *plugindir, *criu;
};

void cli_check_problem(struct cli_check_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nproblems == sizeof(r->problems) / sizeof(r->problems[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->problems[r->nproblems++], sizeof(r->problems[0]), fmt, ap);
	va_end(ap);
}

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
	if (cs_options_load_traced(&r->o, on_option, r, r->opt_err, sizeof(r->opt_err)))
		cli_check_problem(
		    r, "the plugin would refuse its configuration: %s. Fix it (see cudastore.conf(5))",
		    r->opt_err);
	r->config = cs_options_config_path();
	unknown_env(r);
}

/* ---- libcuda, GPUs ---- */

/* what the driver offers for a dump, and the mode auto picks */
static void custom_storage(struct cli_check_report *r, const struct cs_cuda_ops *cuda)
{
	if (!cuda->has_checkpoint)
		r->custom_reason = "the driver has no checkpoint API (cuCheckpointProcess*, CUDA 12.8+)";
	else if (cuda->driver_version < CUDASTORE_CUDA_13_4)
		r->custom_reason = "the driver is older than CUDA 13.4 (R615)";
	else if (!cuda->has_custom_storage)
		r->custom_reason = "the driver reports 13.4 but has no cuCheckpointOperationComplete";
	else
		r->custom_reason = "the driver is CUDA 13.4 or newer with cuCheckpointOperationComplete";
	r->auto_mode = cuda->has_custom_storage ? "custom" : "driver";
	if (!cuda->has_checkpoint)
		cli_check_problem(r,
				  "libcuda %s (CUDA %d) has no checkpoint API: a dump needs a CUDA 12.8+ "
				  "driver; CustomStorage needs 13.4 (R615+)",
				  r->cuda_file, cuda->driver_version);
	else if (r->o.mode == CS_OPT_MODE_CUSTOM && !cuda->has_custom_storage)
		cli_check_problem(r,
				  "mode = custom but %s; set mode = auto or driver, or install a CUDA 13.4 "
				  "driver",
				  r->custom_reason);
}

/* libcuda as the options name it; false (a problem said) when there is none to use */
static bool load_cuda(struct cli_check_report *r, struct cs_cuda_ops *cuda)
{
	Dl_info di;

	if (cs_cuda_load(cuda, r->o.libcuda[0] ? r->o.libcuda : NULL, r->cuda_err, sizeof(r->cuda_err))) {
		cli_check_problem(
		    r,
		    "no usable libcuda: %s. Install the NVIDIA driver, or set libcuda = PATH in "
		    "cudastore.conf",
		    r->cuda_err);
		return false;
	}
	r->cuda_ok = true;
	if (dladdr((void *)cuda->DriverGetVersion, &di) && di.dli_fname)
		snprintf(r->cuda_file, sizeof(r->cuda_file), "%s", di.dli_fname);
	else
		snprintf(r->cuda_file, sizeof(r->cuda_file), "%s", cuda->path);
	r->driver_version = cuda->driver_version;
	r->checkpoint_api = cuda->has_checkpoint;
	r->custom_storage = cuda->has_custom_storage;
	custom_storage(r, cuda);
	return true;
}

static void list_gpus(struct cli_check_report *r, const struct cs_cuda_ops *cuda)
{
	int i, n = 0;

	if (cuda->Init(0) != CUDA_SUCCESS || cuda->DeviceGetCount(&n) != CUDA_SUCCESS) {
		snprintf(r->gpu_err, sizeof(r->gpu_err),
			 "cuInit/cuDeviceGetCount failed: no GPU usable here");
		return;
	}
	for (i = 0; i < n && i < CS_MAX_DEVICES; i++) {
		struct cli_check_gpu *g = &r->gpu[r->ngpu];
		CUdevice dev;
		CUuuid u;
		size_t total = 0;

		if (cuda->DeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		if (cuda->DeviceGetUuid(&u, dev) == CUDA_SUCCESS)
			cs_uuid_format(&u, g->uuid);
		if (cuda->DeviceGetName(g->name, sizeof(g->name), dev) != CUDA_SUCCESS)
			snprintf(g->name, sizeof(g->name), "?");
		if (cuda->DeviceTotalMem(&total, dev) == CUDA_SUCCESS)
			g->total = total;
		r->ngpu++;
	}
}

/* ---- NVML, processes ---- */

static struct cli_check_proc *proc_of(struct cli_check_report *r, int pid)
{
	unsigned i;

	for (i = 0; i < r->nproc; i++)
		if (r->proc[i].pid == pid)
			return &r->proc[i];
	if (r->nproc == CLI_CHECK_MAX_PROCS)
		return NULL;
	r->proc[r->nproc].pid = pid;
	return &r->proc[r->nproc++];
}

/* the GPU libcuda listed with this UUID (the last one, should two have it), or NULL */
static struct cli_check_gpu *gpu_of(struct cli_check_report *r, const char *uuid)
{
	struct cli_check_gpu *g = NULL;
	int j;

	for (j = 0; j < r->ngpu; j++)
		if (!strcmp(r->gpu[j].uuid, uuid))
			g = &r->gpu[j];
	return g;
}

/* the n processes NVML lists on the GPU uuid (g: libcuda's, or NULL), counted in */
static void count_procs(struct cli_check_report *r, struct cli_check_gpu *g, const char *uuid,
			const nvmlProcessInfo_t *buf, unsigned int n)
{
	unsigned int k;

	if (g)
		g->used_known = true;
	for (k = 0; k < n && k < NVML_PROCS; k++) {
		struct cli_check_proc *p = proc_of(r, (int)buf[k].pid);
		uint64_t b = buf[k].usedGpuMemory == ~0ull ? 0 : buf[k].usedGpuMemory;

		if (!p)
			continue;
		p->bytes += b;
		r->gpu_bytes += b;
		if (g)
			g->used += b;
		if (p->ngpu < CLI_CHECK_MAX_GPUS)
			snprintf(p->gpus[p->ngpu++], CS_UUID_STRLEN, "%.40s", uuid);
	}
}

/* NVML's GPU i: its processes, when NVML names the GPU and lists them */
static void nvml_gpu(struct cli_check_report *r, const struct cs_nvml_ops *nv, unsigned int i,
		     nvmlProcessInfo_t *buf)
{
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	unsigned int n = NVML_PROCS;
	nvmlDevice_t dev;
	struct cli_check_gpu *g;

	if (nv->DeviceGetHandleByIndex(i, &dev) != NVML_SUCCESS ||
	    nv->DeviceGetUUID(dev, uuid, sizeof(uuid)) != NVML_SUCCESS)
		return;
	g = gpu_of(r, uuid);
	if (nv->DeviceGetComputeRunningProcesses(dev, &n, buf) != NVML_SUCCESS)
		return;
	count_procs(r, g, uuid, buf, n);
}

/* GPU memory per GPU and per process, from NVML (the plugin's dump_plan.c uses the same calls) */
static void check_nvml(struct cli_check_report *r)
{
	nvmlProcessInfo_t *buf = calloc(NVML_PROCS, sizeof(*buf));
	struct cs_nvml_ops nv;
	unsigned int n = 0, i;

	if (!buf)
		return;
	if (cs_nvml_load(&nv, r->o.libnvml[0] ? r->o.libnvml : NULL, r->nvml_err, sizeof(r->nvml_err))) {
		free(buf);
		return;
	}
	if (nv.Init() != NVML_SUCCESS) {
		snprintf(r->nvml_err, sizeof(r->nvml_err), "nvmlInit failed");
		goto out;
	}
	r->nvml_ok = true;
	if (nv.DeviceGetCount(&n) != NVML_SUCCESS)
		n = 0;
	for (i = 0; i < n; i++)
		nvml_gpu(r, &nv, i, buf);
	nv.Shutdown();
out:
	cs_nvml_unload(&nv);
	free(buf);
}

/* each process's checkpoint state, as the driver reports it ("?" when it cannot) */
static void proc_states(struct cli_check_report *r, const struct cs_cuda_ops *cuda)
{
	CUprocessState st;
	unsigned i;

	for (i = 0; i < r->nproc; i++) {
		r->proc[i].state = "?";
		if (r->cuda_ok && cuda->has_checkpoint &&
		    cuda->CheckpointProcessGetState(r->proc[i].pid, &st) == CUDA_SUCCESS)
			r->proc[i].state = cs_cuda_state_name(st);
	}
}

static void check_driver(struct cli_check_report *r)
{
	struct cs_cuda_ops cuda;

	memset(&cuda, 0, sizeof(cuda));
	if (load_cuda(r, &cuda))
		list_gpus(r, &cuda);
	check_nvml(r);
	proc_states(r, &cuda);
}

/* ---- criu ---- */

/* "criu --version" -> "Version: 4.2.1" */
static void criu_version(struct cli_check_report *r)
{
	if (cs_criu_version(r->criu, r->criu_version, sizeof(r->criu_version)))
		return;
	if (sscanf(r->criu_version, "%d.%d", &r->criu_major, &r->criu_minor) < 1)
		r->criu_major = 0;
}

/* the last line criu printed, into buf */
static void last_line(char *out, char *buf, size_t len)
{
	char *end = out + strlen(out), *start;

	while (end > out && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(out, '\n');
	snprintf(buf, len, "%s", start ? start + 1 : out);
}

/*
 * "criu check": whether this kernel has what criu needs (root only; its output, stdout and
 * stderr, is read to the end). CRIU_LIBS_DIR passes through to it.
 */
static void criu_check(struct cli_check_report *r)
{
	char out[8192];

	if (geteuid())
		return;
	r->criu_check_run = true;
	r->criu_check_ok = cli_criu_run(r->criu, "check", out, sizeof(out)) == 0;
	last_line(out, r->criu_check_out, sizeof(r->criu_check_out));
	if (!r->criu_check_ok)
		cli_check_problem(r,
				  "'%s check' failed: %s. This kernel or setup lacks what criu needs; run it "
				  "to see every line",
				  r->criu, r->criu_check_out);
}

/* the criu binary (GIVEN, else looked for), its version and, when it is recent enough, its check */
static void find_criu(struct cli_check_report *r, const char *given)
{
	if (!cli_criu_find(given, r->criu, sizeof(r->criu))) {
		cli_check_problem(
		    r, "criu %s: install CRIU 4.0 or newer (scripts/provide-criu.sh builds 4.2.1)",
		    given ? "is not executable" : "not found in PATH, /usr/local/sbin or /usr/sbin");
		return;
	}
	criu_version(r);
	if (!r->criu_version[0])
		cli_check_problem(r, "'%s --version' printed no version: is it criu?", r->criu);
	else if (r->criu_major < 4)
		cli_check_problem(r,
				  "criu %s at %s is too old: the plugin needs CRIU 4.0+ (device hooks); "
				  "scripts/provide-criu.sh builds 4.2.1",
				  r->criu_version, r->criu);
	else
		criu_check(r);
}

/* ---- our plugin ---- */

/*
 * The plugin runs every driver call in cudastore-helper, found as the plugin finds it
 * (helper_link.c): its own path as criu loaded it is used only when absolute, because criu may
 * have changed directory since; so a relative plugin directory finds no helper beside it.
 */
static void find_helper(struct cli_check_report *r)
{
	const char *self = r->plugin_path[0] == '/' ? r->plugin_path : NULL;
	char err[360];

	if (!cs_helper_path(&r->o, self, r->helper, sizeof(r->helper), err, sizeof(err)))
		return;
	snprintf(r->plugin_err, sizeof(r->plugin_err),
		 "loads, but cudastore-helper is missing, so every dump would fail: %s%s", err,
		 self ? "" : " (criu's plugin directory is relative: give it as an absolute path)");
	r->helper[0] = '\0';
}

/* the max_hooks criu reads: hooks.c offers POST_FORKING (13) only to a criu >= 4.2 */
static int hooks_for_criu(const struct cli_check_report *r, int max_hooks)
{
	bool v42 = r->criu_major > 4 || (r->criu_major == 4 && r->criu_minor >= 2);

	return v42 && CR_PLUGIN_HOOK__MAX > 12 && max_hooks == 12 ? 13 : max_hooks;
}

/*
 * Count the hooks our plugin registers; no plugin code runs (no init; its one constructor only
 * looks for criu 4.2's marker symbol, absent here, so the table is that of CRIU 4.0/4.1, and
 * hooks_for_criu gives what the criu found would load).
 */
static void load_plugin(struct cli_check_report *r)
{
	const cr_plugin_desc_t *d;
	void *h;
	int i;

	h = dlopen(r->plugin_path, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		snprintf(r->plugin_err, sizeof(r->plugin_err), "cannot be loaded: %s", dlerror());
		return;
	}
	d = dlsym(h, "CR_PLUGIN_DESC");
	if (!d) {
		snprintf(r->plugin_err, sizeof(r->plugin_err), "has no CR_PLUGIN_DESC: not a CRIU plugin");
		goto out;
	}
	snprintf(r->plugin_name, sizeof(r->plugin_name), "%s", d->name ? d->name : "?");
	for (i = 0; i < CR_PLUGIN_HOOK__MAX && i < (int)d->max_hooks; i++)
		r->plugin_hooks_set += d->hooks[i] != NULL;
	r->plugin_hooks = hooks_for_criu(r, (int)d->max_hooks);
	r->plugin_hooks_set += r->plugin_hooks > (int)d->max_hooks; /* POST_FORKING */
	if (!r->plugin_hooks_set)
		snprintf(r->plugin_err, sizeof(r->plugin_err), "registers no hooks");
	else
		find_helper(r);
out:
	dlclose(h);
}

/* ---- the plugin directory ---- */

/* this build's install directory for the plugin, as a hint for "-L DIR" */
static const char *dir_hint(const struct cli_check_report *r, char *buf, size_t len)
{
	if (strcmp(CS_CRIU_PLUGINDIR, r->pd.dir))
		snprintf(buf, len,
			 "DIR: the directory holding %s, %s as this build installs it; give it here as "
			 "--plugin-dir DIR too",
			 CLI_CHECK_PLUGIN_FILE, CS_CRIU_PLUGINDIR);
	else
		snprintf(buf, len, "DIR: the directory holding %s; give it here as --plugin-dir DIR too",
			 CLI_CHECK_PLUGIN_FILE);
	return buf;
}

/* How the plugin gets into a criu run that loads none from where (the directory, or none at all). */
static void not_loaded(struct cli_check_report *r, const char *where)
{
	char why[4400], hint[4300], other[4300];

	cli_plugindir_why(&r->pd, why, sizeof(why));
	if (r->pd.from == CLI_PD_ENV)
		snprintf(other, sizeof(other),
			 ", set CRIU_LIBS_DIR=DIR, or install with --with-criu-plugindir=%s", r->pd.dir);
	else if (r->pd.from == CLI_PD_CONFIG)
		snprintf(other, sizeof(other),
			 ", change libdir in %s, or install with --with-criu-plugindir=%s", r->pd.config,
			 r->pd.dir);
	else if (!strcmp(r->pd.builtin, "/usr/lib/criu"))
		snprintf(other, sizeof(other), " or install with --prefix=/usr");
	else
		snprintf(other, sizeof(other), " or install with --with-criu-plugindir=%s", r->pd.builtin);
	cli_check_problem(r, "%s (%s): criu will not load the plugin from here; pass -L DIR%s (%s)", where,
			  why, other, dir_hint(r, hint, sizeof(hint)));
}

/* our plugin is not in the directory: where to put it */
static void plugin_missing(struct cli_check_report *r)
{
	char where[4300];

	snprintf(r->plugin_err, sizeof(r->plugin_err), "not found");
	if (r->pd.from == CLI_PD_GIVEN) {
		cli_check_problem(
		    r,
		    "%s is not in criu's plugin directory %s: install it there (make install), or "
		    "pass its directory to criu with --libdir/-L and here with --plugin-dir",
		    CLI_CHECK_PLUGIN_FILE, r->pd.dir);
		return;
	}
	snprintf(where, sizeof(where), "%s is not in criu's plugin directory %s", CLI_CHECK_PLUGIN_FILE,
		 r->pd.dir);
	not_loaded(r, where);
}

/* DIR, criu's plugin directory, cannot be listed (errno E): criu fails every run on it, unless it
 * is its absent default */
static void plugindir_unreadable(struct cli_check_report *r, const char *dir, int e)
{
	char where[4300];

	snprintf(r->plugin_err, sizeof(r->plugin_err), "plugin directory %s: %s", dir, strerror(e));
	if (r->pd.from == CLI_PD_GIVEN) {
		cli_check_problem(r,
				  "criu's plugin directory %s (--plugin-dir) cannot be read (%s): install "
				  "cudastore there (make install), or pass its directory to criu with "
				  "--libdir/-L and here with --plugin-dir",
				  r->pd.dir, strerror(e));
	} else if (r->pd.from == CLI_PD_DEFAULT && r->pd.builtin_absent) {
		plugin_missing(r);
	} else {
		snprintf(where, sizeof(where),
			 "criu's plugin directory %s cannot be read (%s), and every criu run fails on it",
			 r->pd.dir, strerror(e));
		not_loaded(r, where);
	}
}

/* every *.so criu would load from the directory: ours (plugin_path) and the others; 0 or errno */
static int list_plugindir(struct cli_check_report *r)
{
	struct dirent *de;
	DIR *d;

	d = opendir(r->pd.dir);
	if (!d)
		return errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 4 || strcmp(de->d_name + len - 3, ".so"))
			continue;
		if (!strcmp(de->d_name, CLI_CHECK_PLUGIN_FILE)) {
			snprintf(r->plugin_path, sizeof(r->plugin_path), "%s/%s", r->pd.dir, de->d_name);
			continue;
		}
		if (r->nothers < CLI_CHECK_MAX_LISTED)
			snprintf(r->others[r->nothers++], sizeof(r->others[0]), "%s", de->d_name);
		if (!strcmp(de->d_name, CLI_CHECK_CRIU_CUDA_PLUGIN))
			snprintf(r->conflict, sizeof(r->conflict), "%s/%s", r->pd.dir, de->d_name);
	}
	closedir(d);
	return 0;
}

static void check_plugindir(struct cli_check_report *r)
{
	int e = list_plugindir(r);

	if (e) {
		plugindir_unreadable(r, r->pd.dir, e);
		return;
	}
	if (!r->plugin_path[0]) {
		plugin_missing(r);
	} else {
		load_plugin(r);
		if (r->plugin_err[0])
			cli_check_problem(r, "%s %s: reinstall cudastore", r->plugin_path, r->plugin_err);
	}
	if (r->conflict[0])
		cli_check_problem(
		    r,
		    "%s is CRIU's own CUDA plugin: it claims every CUDA process before cudastore "
		    "sees it. Remove it from %s (or give criu a plugin directory without it)",
		    r->conflict, r->pd.dir);
}

static void check_criu(struct cli_check_report *r, const char *criu, const char *plugindir)
{
	find_criu(r, criu);
	cli_criu_plugindir(&r->pd, r->criu, plugindir);
	check_plugindir(r);
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
			a->images = optarg;
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
	return CLI_OK;
}

/* every probe in order, then the report as text or JSON: CLI_OK when a dump would work */
static int run(struct cli_check_report *r, const struct check_args *a)
{
	r->images = a->images;
	check_options(r);
	check_driver(r);
	check_criu(r, a->criu, a->plugindir);
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
