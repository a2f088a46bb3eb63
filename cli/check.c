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
 * and writes nothing. It runs outside criu, so it may call libcuda itself.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "criu-plugin.h"

#include "cli.h"
#include "criu_version.h"
#include "helper_path.h"
#include "imgdir.h"
#include "manifest.h"
#include "options.h"

#define SUB	    "check"
#define MAX_PROCS   256
#define PLUGIN_FILE "cudastore_plugin.so"

#ifndef CS_CRIU_PLUGINDIR
#define CS_CRIU_PLUGINDIR "/usr/lib/criu"
#endif

struct gpu {
	char uuid[CS_UUID_STRLEN];
	char name[128];
	uint64_t total, used;
	bool used_known;
};

struct proc {
	int pid;
	uint64_t bytes;
	unsigned ngpu;
	char gpus[8][CS_UUID_STRLEN];
	const char *state;
};

struct report {
	/* verdict */
	unsigned nproblems;
	char problems[16][1024];
	/* options */
	struct cs_options o;
	char opt_err[512];
	char opt_where[CS_OPTION_COUNT][300];
	unsigned nunknown_env;
	char unknown_env[16][128];
	/* libcuda */
	struct cs_cuda_ops cuda;
	bool cuda_ok;
	char cuda_err[512], cuda_file[512];
	const char *custom_reason;
	const char *auto_mode;
	/* GPUs */
	int ngpu;
	struct gpu gpu[CS_MAX_DEVICES];
	char gpu_err[256];
	/* NVML, processes */
	bool nvml_ok;
	char nvml_err[512];
	unsigned nproc;
	struct proc proc[MAX_PROCS];
	uint64_t gpu_bytes;
	/* criu */
	char criu[512], criu_version[64];
	int criu_major, criu_minor;
	bool criu_check_run, criu_check_ok;
	char criu_check_out[512];
	const char *plugindir_given; /* --plugin-dir */
	struct cli_plugindir pd;     /* the directory criu loads plugins from, and why */
	const char *plugindir;	     /* pd.dir */
	char plugin_path[600], plugin_err[512], plugin_name[64], helper[600];
	int plugin_hooks;     /* the max_hooks criu reads: 12, 13 with criu >= 4.2 */
	int plugin_hooks_set; /* of those, the hooks the plugin registers */
	unsigned nothers;
	char others[16][256];
	char conflict[600];
	/* images dir */
	const char *images;
	bool images_ok;
	uint64_t images_free;
	char images_err[256];
};

static void problem(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct report *r, const char *fmt, ...)
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
	struct report *r = arg;
	size_t i;

	for (i = 0; i < CS_OPTION_COUNT; i++)
		if (!strcmp(cs_option_key(i), key))
			snprintf(r->opt_where[i], sizeof(r->opt_where[i]), "%s", where);
}

/* CUDASTORE_<KEY> for a key the plugin does not know (the plugin refuses it too): list them */
static void unknown_env(struct report *r)
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
		if (cs_options_env_known(*e, len) || r->nunknown_env >= 16)
			continue;
		snprintf(r->unknown_env[r->nunknown_env++], sizeof(r->unknown_env[0]), "%.*s", (int)len, *e);
	}
}

static void check_options(struct report *r)
{
	if (cs_options_load_traced(&r->o, on_option, r, r->opt_err, sizeof(r->opt_err)))
		problem(r, "the plugin would refuse its configuration: %s. Fix it (see cudastore.conf(5))",
			r->opt_err);
	unknown_env(r);
}

/* ---- libcuda, GPUs ---- */

static void check_cuda(struct report *r)
{
	Dl_info di;
	int i, n = 0;

	if (cs_cuda_load(&r->cuda, r->o.libcuda[0] ? r->o.libcuda : NULL, r->cuda_err, sizeof(r->cuda_err))) {
		problem(r,
			"no usable libcuda: %s. Install the NVIDIA driver, or set libcuda = PATH in "
			"cudastore.conf",
			r->cuda_err);
		return;
	}
	r->cuda_ok = true;
	if (dladdr((void *)r->cuda.DriverGetVersion, &di) && di.dli_fname)
		snprintf(r->cuda_file, sizeof(r->cuda_file), "%s", di.dli_fname);
	else
		snprintf(r->cuda_file, sizeof(r->cuda_file), "%s", r->cuda.path);
	if (!r->cuda.has_checkpoint)
		r->custom_reason = "the driver has no checkpoint API (cuCheckpointProcess*, CUDA 12.8+)";
	else if (r->cuda.driver_version < CUDASTORE_CUDA_13_4)
		r->custom_reason = "the driver is older than CUDA 13.4 (R615)";
	else if (!r->cuda.has_custom_storage)
		r->custom_reason = "the driver reports 13.4 but has no cuCheckpointOperationComplete";
	else
		r->custom_reason = "the driver is CUDA 13.4 or newer with cuCheckpointOperationComplete";
	r->auto_mode = r->cuda.has_custom_storage ? "custom" : "driver";
	if (!r->cuda.has_checkpoint)
		problem(r,
			"libcuda %s (CUDA %d) has no checkpoint API: a dump needs a CUDA 12.8+ driver; "
			"CustomStorage needs 13.4 (R615+)",
			r->cuda_file, r->cuda.driver_version);
	else if (r->o.mode == CS_OPT_MODE_CUSTOM && !r->cuda.has_custom_storage)
		problem(r, "mode = custom but %s; set mode = auto or driver, or install a CUDA 13.4 driver",
			r->custom_reason);

	if (r->cuda.Init(0) != CUDA_SUCCESS || r->cuda.DeviceGetCount(&n) != CUDA_SUCCESS) {
		snprintf(r->gpu_err, sizeof(r->gpu_err),
			 "cuInit/cuDeviceGetCount failed: no GPU usable here");
		return;
	}
	for (i = 0; i < n && i < CS_MAX_DEVICES; i++) {
		struct gpu *g = &r->gpu[r->ngpu];
		CUdevice dev;
		CUuuid u;
		size_t total = 0;

		if (r->cuda.DeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		if (r->cuda.DeviceGetUuid(&u, dev) == CUDA_SUCCESS)
			cs_uuid_format(&u, g->uuid);
		if (r->cuda.DeviceGetName(g->name, sizeof(g->name), dev) != CUDA_SUCCESS)
			snprintf(g->name, sizeof(g->name), "?");
		if (r->cuda.DeviceTotalMem(&total, dev) == CUDA_SUCCESS)
			g->total = total;
		r->ngpu++;
	}
}

static struct proc *proc_of(struct report *r, int pid)
{
	unsigned i;

	for (i = 0; i < r->nproc; i++)
		if (r->proc[i].pid == pid)
			return &r->proc[i];
	if (r->nproc == MAX_PROCS)
		return NULL;
	r->proc[r->nproc].pid = pid;
	return &r->proc[r->nproc++];
}

/* GPU memory per GPU and per process, from NVML (the plugin's dump_plan.c uses the same calls) */
static void check_nvml(struct report *r)
{
	nvmlProcessInfo_t *buf = calloc(1024, sizeof(*buf));
	struct cs_nvml_ops nv;
	unsigned int n = 0, i, k, cnt;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	nvmlDevice_t dev;
	int j;

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
	for (i = 0; i < n; i++) {
		struct gpu *g = NULL;

		if (nv.DeviceGetHandleByIndex(i, &dev) != NVML_SUCCESS ||
		    nv.DeviceGetUUID(dev, uuid, sizeof(uuid)) != NVML_SUCCESS)
			continue;
		for (j = 0; j < r->ngpu; j++)
			if (!strcmp(r->gpu[j].uuid, uuid))
				g = &r->gpu[j];
		cnt = 1024;
		if (nv.DeviceGetComputeRunningProcesses(dev, &cnt, buf) != NVML_SUCCESS)
			continue;
		if (g)
			g->used_known = true;
		for (k = 0; k < cnt && k < 1024; k++) {
			struct proc *p = proc_of(r, (int)buf[k].pid);
			uint64_t b = buf[k].usedGpuMemory == ~0ull ? 0 : buf[k].usedGpuMemory;

			if (!p)
				continue;
			p->bytes += b;
			r->gpu_bytes += b;
			if (g)
				g->used += b;
			if (p->ngpu < 8)
				snprintf(p->gpus[p->ngpu++], CS_UUID_STRLEN, "%.40s", uuid);
		}
	}
	nv.Shutdown();
out:
	cs_nvml_unload(&nv);
	free(buf);
	for (i = 0; i < r->nproc; i++) {
		CUprocessState st;

		r->proc[i].state = "?";
		if (r->cuda_ok && r->cuda.has_checkpoint &&
		    r->cuda.CheckpointProcessGetState(r->proc[i].pid, &st) == CUDA_SUCCESS)
			r->proc[i].state = cs_cuda_state_name(st);
	}
}

/* ---- criu and its plugin directory ---- */

/* "criu --version" -> "Version: 4.2.1" */
static void criu_version(struct report *r)
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
static void criu_check(struct report *r)
{
	char out[8192];

	if (geteuid())
		return;
	r->criu_check_run = true;
	r->criu_check_ok = cli_criu_run(r->criu, "check", out, sizeof(out)) == 0;
	last_line(out, r->criu_check_out, sizeof(r->criu_check_out));
	if (!r->criu_check_ok)
		problem(r,
			"'%s check' failed: %s. This kernel or setup lacks what criu needs; run it "
			"to see every line",
			r->criu, r->criu_check_out);
}

/*
 * The plugin runs every driver call in cudastore-helper, found as the plugin finds it
 * (helper_link.c): its own path as criu loaded it is used only when absolute, because criu may
 * have changed directory since; so a relative plugin directory finds no helper beside it.
 */
static void find_helper(struct report *r)
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
static int hooks_for_criu(const struct report *r, int max_hooks)
{
	bool v42 = r->criu_major > 4 || (r->criu_major == 4 && r->criu_minor >= 2);

	return v42 && CR_PLUGIN_HOOK__MAX > 12 && max_hooks == 12 ? 13 : max_hooks;
}

/*
 * Count the hooks our plugin registers; no plugin code runs (no init; its one constructor only
 * looks for criu 4.2's marker symbol, absent here, so the table is that of CRIU 4.0/4.1, and
 * hooks_for_criu gives what the criu found would load).
 */
static void load_plugin(struct report *r)
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

/* this build's install directory for the plugin, as a hint for "-L DIR" */
static const char *dir_hint(const struct report *r, char *buf, size_t len)
{
	if (strcmp(CS_CRIU_PLUGINDIR, r->plugindir))
		snprintf(buf, len,
			 "DIR: the directory holding %s, %s as this build installs it; give it here as "
			 "--plugin-dir DIR too",
			 PLUGIN_FILE, CS_CRIU_PLUGINDIR);
	else
		snprintf(buf, len, "DIR: the directory holding %s; give it here as --plugin-dir DIR too",
			 PLUGIN_FILE);
	return buf;
}

/* How the plugin gets into a criu run that loads none from where (the directory, or none at all). */
static void not_loaded(struct report *r, const char *where)
{
	char why[4400], hint[4300], other[4300];

	cli_plugindir_why(&r->pd, why, sizeof(why));
	if (r->pd.from == CLI_PD_ENV)
		snprintf(other, sizeof(other),
			 ", set CRIU_LIBS_DIR=DIR, or install with --with-criu-plugindir=%s", r->plugindir);
	else if (r->pd.from == CLI_PD_CONFIG)
		snprintf(other, sizeof(other),
			 ", change libdir in %s, or install with --with-criu-plugindir=%s", r->pd.config,
			 r->plugindir);
	else if (!strcmp(r->pd.builtin, "/usr/lib/criu"))
		snprintf(other, sizeof(other), " or install with --prefix=/usr");
	else
		snprintf(other, sizeof(other), " or install with --with-criu-plugindir=%s", r->pd.builtin);
	problem(r, "%s (%s): criu will not load the plugin from here; pass -L DIR%s (%s)", where, why, other,
		dir_hint(r, hint, sizeof(hint)));
}

/* the directory cannot be listed: criu fails every run on it, unless it is its absent default */
static void plugindir_unreadable(struct report *r, int e)
{
	char where[4300];

	snprintf(r->plugin_err, sizeof(r->plugin_err), "plugin directory %s: %s", r->plugindir, strerror(e));
	if (r->pd.from == CLI_PD_GIVEN) {
		problem(r,
			"criu's plugin directory %s (--plugin-dir) cannot be read (%s): install cudastore "
			"there (make install), or pass its directory to criu with --libdir/-L and here with "
			"--plugin-dir",
			r->plugindir, strerror(e));
	} else if (r->pd.from == CLI_PD_DEFAULT && r->pd.builtin_absent) {
		snprintf(r->plugin_err, sizeof(r->plugin_err), "not found");
		snprintf(where, sizeof(where), "%s is not in criu's plugin directory %s", PLUGIN_FILE,
			 r->plugindir);
		not_loaded(r, where);
	} else {
		snprintf(where, sizeof(where),
			 "criu's plugin directory %s cannot be read (%s), and every criu run fails on it",
			 r->plugindir, strerror(e));
		not_loaded(r, where);
	}
}

static void check_plugindir(struct report *r)
{
	char where[4300];
	struct dirent *de;
	DIR *d;

	d = opendir(r->plugindir);
	if (!d) {
		plugindir_unreadable(r, errno);
		return;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 4 || strcmp(de->d_name + len - 3, ".so"))
			continue;
		if (!strcmp(de->d_name, PLUGIN_FILE)) {
			snprintf(r->plugin_path, sizeof(r->plugin_path), "%s/%s", r->plugindir, de->d_name);
			continue;
		}
		if (r->nothers < 16)
			snprintf(r->others[r->nothers++], sizeof(r->others[0]), "%s", de->d_name);
		if (!strcmp(de->d_name, "cuda_plugin.so"))
			snprintf(r->conflict, sizeof(r->conflict), "%s/%s", r->plugindir, de->d_name);
	}
	closedir(d);
	if (!r->plugin_path[0]) {
		snprintf(r->plugin_err, sizeof(r->plugin_err), "not found");
		if (r->pd.from == CLI_PD_GIVEN) {
			problem(
			    r,
			    "%s is not in criu's plugin directory %s: install it there (make install), or "
			    "pass its directory to criu with --libdir/-L and here with --plugin-dir",
			    PLUGIN_FILE, r->plugindir);
		} else {
			snprintf(where, sizeof(where), "%s is not in criu's plugin directory %s", PLUGIN_FILE,
				 r->plugindir);
			not_loaded(r, where);
		}
	} else {
		load_plugin(r);
		if (r->plugin_err[0])
			problem(r, "%s %s: reinstall cudastore", r->plugin_path, r->plugin_err);
	}
	if (r->conflict[0])
		problem(r,
			"%s is CRIU's own CUDA plugin: it claims every CUDA process before cudastore "
			"sees it. Remove it from %s (or give criu a plugin directory without it)",
			r->conflict, r->plugindir);
}

static void check_criu(struct report *r, const char *given)
{
	if (!cli_criu_find(given, r->criu, sizeof(r->criu))) {
		problem(r, "criu %s: install CRIU 4.0 or newer (scripts/provide-criu.sh builds 4.2.1)",
			given ? "is not executable" : "not found in PATH, /usr/local/sbin or /usr/sbin");
	} else {
		criu_version(r);
		if (!r->criu_version[0])
			problem(r, "'%s --version' printed no version: is it criu?", r->criu);
		else if (r->criu_major < 4)
			problem(r,
				"criu %s at %s is too old: the plugin needs CRIU 4.0+ (device hooks); "
				"scripts/provide-criu.sh builds 4.2.1",
				r->criu_version, r->criu);
		else
			criu_check(r);
	}
	cli_criu_plugindir(&r->pd, r->criu, r->plugindir_given);
	r->plugindir = r->pd.dir;
	check_plugindir(r);
}

static void check_images(struct report *r)
{
	int fd;

	if (!r->images)
		return;
	fd = open(r->images, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || cs_imgdir_free_bytes(fd, &r->images_free)) {
		snprintf(r->images_err, sizeof(r->images_err), "%s", strerror(errno));
		problem(r, "images directory %s: %s; create it or pick another", r->images, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	r->images_ok = true;
	if (r->images_free < r->gpu_bytes && r->o.space_check) {
		char a[32], b[32];

		problem(r,
			"the images directory %s has %s free but the CUDA processes use %s of GPU "
			"memory: the dump would be refused (space_check). Free space or use a bigger "
			"directory",
			r->images, cli_bytes(r->images_free, a, sizeof(a)),
			cli_bytes(r->gpu_bytes, b, sizeof(b)));
	}
}

/* ---- output ---- */

/* the text output: every line through cli_line, escaped as what inspect and verify print */
static void text_options(const struct report *r)
{
	const char *w;
	char v[4096];
	unsigned i;
	size_t n;

	cli_line("options (config file %s):", cs_options_config_path());
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

static void text_gpus(const struct report *r)
{
	char a[32], b[32], on[8 * (CS_UUID_STRLEN + 1) + 1];
	size_t off;
	unsigned i, k;
	int j;

	cli_line("libcuda:");
	if (!r->cuda_ok) {
		cli_line("  NOT LOADED: %s", r->cuda_err);
	} else {
		cli_line("  library:        %s", r->cuda_file);
		cli_line("  driver:         CUDA %d.%d (%d)", r->cuda.driver_version / 1000,
			 r->cuda.driver_version % 1000 / 10, r->cuda.driver_version);
		cli_line("  checkpoint API: %s", r->cuda.has_checkpoint ? "yes" : "no");
		cli_line("  CustomStorage:  %s: %s", r->cuda.has_custom_storage ? "yes" : "no",
			 r->custom_reason);
		cli_line("  mode:           %s; auto picks %s", cs_opt_mode_name(r->o.mode), r->auto_mode);
	}
	cli_line("GPUs:%s%s", r->gpu_err[0] ? " " : "", r->gpu_err);
	for (j = 0; j < r->ngpu; j++) {
		const struct gpu *g = &r->gpu[j];

		if (g->used_known)
			cli_line("  %d  %s  %s  %s used of %s", j, g->uuid, g->name,
				 cli_bytes(g->used, a, sizeof(a)), cli_bytes(g->total, b, sizeof(b)));
		else
			cli_line("  %d  %s  %s  %s (use unknown: no NVML)", j, g->uuid, g->name,
				 cli_bytes(g->total, b, sizeof(b)));
	}
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

static void text_criu(const struct report *r)
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
	cli_line("  plugin dir:     %s (%s)", r->plugindir, cli_plugindir_why(&r->pd, v, sizeof(v)));
	if (r->plugin_path[0] && !r->plugin_err[0])
		cli_line("  plugin:         %s (%s, max_hooks %d as criu loads it, %d set)", r->plugin_path,
			 r->plugin_name, r->plugin_hooks, r->plugin_hooks_set);
	else
		cli_line("  plugin:         %s %s", PLUGIN_FILE, r->plugin_err);
	if (r->helper[0])
		cli_line("  helper:         %s (the one the plugin would start)", r->helper);
	for (i = 0; i < r->nothers; i++)
		cli_line("  other plugin:   %s%s", r->others[i],
			 !strcmp(r->others[i], "cuda_plugin.so") ? "  CONFLICT: claims every CUDA process"
								 : "");
}

static void print_text(const struct report *r)
{
	char a[32], b[32];
	unsigned i;

	text_options(r);
	text_gpus(r);
	text_criu(r);
	if (r->images) {
		cli_line("images directory %s:", r->images);
		if (r->images_ok)
			cli_line("  %s free, %s of GPU memory in use",
				 cli_bytes(r->images_free, a, sizeof(a)),
				 cli_bytes(r->gpu_bytes, b, sizeof(b)));
		else
			cli_line("  ERROR: %s", r->images_err);
	}
	if (!r->nproblems) {
		cli_line("verdict: a dump would work (mode %s)",
			 r->o.mode == CS_OPT_MODE_AUTO ? r->auto_mode : cs_opt_mode_name(r->o.mode));
		return;
	}
	cli_line("verdict: a dump would NOT work:");
	for (i = 0; i < r->nproblems; i++)
		cli_line("  - %s", r->problems[i]);
}

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

static void json_options(json_object *out, const struct report *r)
{
	json_object *o = cli_jobj(out, "options"), *vals, *v, *a;
	char val[4096], line[512];
	const char *w;
	unsigned i;
	size_t n;

	cli_jstr(o, "config_file", cs_options_config_path());
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

static void json_cuda(json_object *out, const struct report *r)
{
	json_object *o = cli_jobj(out, "libcuda"), *a, *g;
	int j;

	cli_jbool(o, "loaded", r->cuda_ok);
	if (r->cuda_ok) {
		cli_jstr(o, "path", r->cuda_file);
		cli_jint(o, "driver_version", r->cuda.driver_version);
		cli_jbool(o, "checkpoint_api", r->cuda.has_checkpoint);
		cli_jbool(o, "custom_storage", r->cuda.has_custom_storage);
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
	a = cli_jarr(out, "gpus");
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

static void json_procs(json_object *out, const struct report *r)
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

static void json_criu(json_object *out, const struct report *r)
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
	cli_jstr(o, "plugin_dir", r->plugindir);
	cli_jstr(o, "plugin_dir_from", cli_plugindir_from(&r->pd));
	if (r->pd.from == CLI_PD_CONFIG)
		cli_jstr(o, "plugin_dir_config", r->pd.config);
	cli_jstr(o, "default_plugin_dir", r->pd.builtin);
	cli_jbool(o, "default_plugin_dir_from_criu", r->pd.builtin_asked);
	cli_jbool(o, "default_plugin_dir_exists", !r->pd.builtin_absent);
	cli_jstr(o, "install_plugin_dir", CS_CRIU_PLUGINDIR);
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

static void print_json(const struct report *r)
{
	json_object *out = cli_jreport(SUB), *a, *o;
	unsigned i;

	cli_jbool(out, "ok", !r->nproblems);
	if (r->nproblems)
		cli_jstr(out, "error", r->problems[0]);
	a = cli_jarr(out, "problems");
	for (i = 0; i < r->nproblems; i++)
		cli_jstr(a, NULL, r->problems[i]);
	json_options(out, r);
	json_cuda(out, r);
	json_procs(out, r);
	json_criu(out, r);
	if (r->images) {
		o = cli_jobj(out, "images_dir");
		cli_jstr(o, "path", r->images);
		cli_jbool(o, "usable", r->images_ok);
		cli_ju64(o, "free_bytes", r->images_free);
		cli_ju64(o, "gpu_bytes_in_use", r->gpu_bytes);
		cli_jbool(o, "fits", r->images_ok && r->images_free >= r->gpu_bytes);
	}
	cli_jprint(out);
}

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

int cli_check(int argc, char **argv)
{
	static const struct option lopts[] = { { "json", no_argument, NULL, 'j' },
					       { "images-dir", required_argument, NULL, 'D' },
					       { "plugin-dir", required_argument, NULL, 'L' },
					       { "criu", required_argument, NULL, 'c' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	const char *criu = NULL;
	struct report *r;
	int c, rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return CLI_USAGE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jD:L:c:hv", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli_json = true;
			break;
		case 'D':
			r->images = optarg;
			break;
		case 'L':
			r->plugindir_given = optarg;
			break;
		case 'c':
			criu = optarg;
			break;
		case 'v':
			cli_verbose++;
			break;
		case 'h':
			free(r);
			return cli_help(SUB, usage);
		default:
			free(r);
			return cli_opt_error(SUB, c, argv);
		}
	}
	if (optind != argc) {
		free(r);
		return cli_usage_err(SUB, "unexpected argument '%s'", argv[optind]);
	}
	check_options(r);
	check_cuda(r);
	check_nvml(r);
	check_criu(r, criu);
	check_images(r);
	if (cli_json)
		print_json(r);
	else
		print_text(r);
	rc = r->nproblems ? CLI_FAIL : CLI_OK;
	free(r);
	return rc;
}
