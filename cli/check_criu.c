// SPDX-License-Identifier: MIT
/*
 * check_criu.c - cudastore check's criu probe: the criu binary, its version and (as root)
 * "criu check", and the plugin directory criu would use (found as criu finds it, criu.c: -L, else
 * libdir in its config files, else $CRIU_LIBS_DIR, else the directory compiled into it, which
 * "criu --help" names): our plugin there with the hooks it registers and the helper it would
 * start, and any plugin beside it that conflicts. Our plugin is dlopened only to count its
 * hooks; no plugin code runs.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "criu-plugin.h"

#include "check.h"
#include "criu_version.h"
#include "helper_path.h"

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

void cli_check_criu(struct cli_check_report *r, const char *criu, const char *plugindir)
{
	find_criu(r, criu);
	cli_criu_plugindir(&r->pd, r->criu, plugindir);
	check_plugindir(r);
}
