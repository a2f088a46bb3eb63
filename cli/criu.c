// SPDX-License-Identifier: MIT
/*
 * criu.c - criu as cudastore check sees it: the binary, run with one argument, and the plugin
 * directory a criu run loads plugins from, found the way criu finds it (cr_plugin_init in
 * CRIU's criu/plugin.c, its config files in criu/config.c):
 *   1. -L/--libdir on criu's command line (check's --plugin-dir stands for it);
 *   2. "libdir" in criu's config files, read in this order, the last one winning:
 *      /etc/criu/default.conf, $HOME/.criu/default.conf, $CRIU_CONFIG_FILE (criu's own --config
 *      and --no-default-config are on its command line, which check cannot see);
 *   3. $CRIU_LIBS_DIR;
 *   4. the directory compiled into criu (CR_PLUGIN_DEFAULT, which CRIU's build sets from
 *      PLUGINDIR, "/usr/lib/criu/" unless told otherwise), which "criu --help" prints. Where
 *      that directory does not exist, criu loads no plugin at all and says nothing.
 * A directory named by 1 to 3 that cannot be opened fails every criu run.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "run_capture.h"

/* CRIU's CR_PLUGIN_DEFAULT (criu/include/plugin.h) when its build names no PLUGINDIR */
#define CRIU_PLUGIN_DEFAULT "/usr/lib/criu"

bool cli_criu_find(const char *given, char *path, size_t len)
{
	static const char *const extra[] = { "/usr/local/sbin", "/usr/sbin", "/sbin" };
	const char *env = getenv("PATH");
	char buf[4096], *save = NULL, *d;
	size_t i;

	if (given) {
		snprintf(path, len, "%s", given);
		return access(given, X_OK) == 0;
	}
	snprintf(buf, sizeof(buf), "%s", env ? env : "");
	for (d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, len, "%s/criu", d);
		if (!access(path, X_OK))
			return true;
	}
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		snprintf(path, len, "%s/criu", extra[i]);
		if (!access(path, X_OK))
			return true;
	}
	path[0] = '\0';
	return false;
}

int cli_criu_run(const char *criu, const char *arg, char *out, size_t len)
{
	char *const argv[] = { "criu", (char *)arg, NULL };
	struct cs_run r;

	if (cs_run_capture(criu, argv, CS_RUN_STDERR | CS_RUN_TAIL, CLI_CRIU_RUN_TIMEOUT_MS, out, len, &r))
		return -1;
	return r.exit_code;
}

/* dir without its trailing slashes ("/" stays), into out */
static void set_dir(char *out, size_t len, const char *dir, size_t dirlen)
{
	while (dirlen > 1 && dir[dirlen - 1] == '/')
		dirlen--;
	snprintf(out, len, "%.*s", (int)dirlen, dir);
}

/* "-L|--libdir  path to a plugin directory (by default /usr/lib/criu/)" in criu --help */
static bool builtin_from_help(const char *criu, char *dir, size_t len)
{
	static char out[1 << 16];
	const char *p, *q;

	if (!criu || !criu[0] || cli_criu_run(criu, "--help", out, sizeof(out)) < 0)
		return false;
	p = strstr(out, "--libdir");
	p = p ? strstr(p, "(by default ") : NULL;
	if (!p)
		return false;
	p += strlen("(by default ");
	q = strchr(p, ')');
	if (!q || q == p || memchr(p, '\n', (size_t)(q - p)) || *p != '/')
		return false;
	set_dir(dir, len, p, (size_t)(q - p));
	return true;
}

/* key is "libdir" or a prefix of it that getopt_long takes for it ("lib" and longer) */
static bool is_libdir(const char *key, size_t n)
{
	return n >= 3 && n <= 6 && !strncmp(key, "libdir", n);
}

/*
 * The value of a "libdir" line of a criu config file, as criu's parse_statement() reads it:
 * "libdir DIR", "libdir \"DIR\"" or "libdir=DIR"; '#' starts a comment. NULL for other lines.
 */
static const char *config_libdir(char *line)
{
	char *p = line, *key, *v, *end;

	line[strcspn(line, "\n")] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return NULL;
	key = p;
	p += strcspn(p, " \t=");
	if (!is_libdir(key, (size_t)(p - key)))
		return NULL;
	if (*p == '=') {
		v = p + 1;
	} else {
		v = p;
		while (*v == ' ' || *v == '\t')
			v++;
	}
	if (*v == '"') {
		end = strchr(++v, '"');
		if (!end)
			return NULL;
	} else {
		end = v + strcspn(v, " \t#");
	}
	*end = '\0';
	return *v ? v : NULL;
}

/* a libdir in FILE, the last one: set in p (dir, config) */
static void read_config(struct cli_plugindir *p, const char *file)
{
	char line[4096];
	const char *v;
	unsigned n = 0;
	FILE *f;

	if (!file || !file[0])
		return;
	f = fopen(file, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		n++;
		v = config_libdir(line);
		if (!v)
			continue;
		set_dir(p->dir, sizeof(p->dir), v, strlen(v));
		snprintf(p->config, sizeof(p->config), "%s:%u", file, n);
		p->from = CLI_PD_CONFIG;
	}
	fclose(f);
}

void cli_criu_plugindir(struct cli_plugindir *p, const char *criu, const char *given)
{
	const char *home = getenv("HOME"), *env = getenv("CRIU_LIBS_DIR");
	char user[4200];

	memset(p, 0, sizeof(*p));
	p->builtin_asked = builtin_from_help(criu, p->builtin, sizeof(p->builtin));
	if (!p->builtin_asked)
		snprintf(p->builtin, sizeof(p->builtin), "%s", CRIU_PLUGIN_DEFAULT);
	p->builtin_absent = access(p->builtin, F_OK) != 0; /* criu's own test */
	if (given) {
		set_dir(p->dir, sizeof(p->dir), given, strlen(given));
		p->from = CLI_PD_GIVEN;
		return;
	}
	p->from = CLI_PD_DEFAULT;
	read_config(p, "/etc/criu/default.conf");
	if (home) {
		snprintf(user, sizeof(user), "%s/.criu/default.conf", home);
		read_config(p, user);
	}
	read_config(p, getenv("CRIU_CONFIG_FILE"));
	if (p->from == CLI_PD_CONFIG)
		return;
	if (env) { /* criu takes it as it is, even empty (and then fails to open it) */
		snprintf(p->dir, sizeof(p->dir), "%s", env);
		p->from = CLI_PD_ENV;
		return;
	}
	snprintf(p->dir, sizeof(p->dir), "%s", p->builtin);
}

const char *cli_plugindir_from(const struct cli_plugindir *p)
{
	switch (p->from) {
	case CLI_PD_GIVEN:
		return "--plugin-dir";
	case CLI_PD_CONFIG:
		return "config_file";
	case CLI_PD_ENV:
		return "CRIU_LIBS_DIR";
	default:
		return "default";
	}
}

const char *cli_plugindir_why(const struct cli_plugindir *p, char *buf, size_t len)
{
	switch (p->from) {
	case CLI_PD_GIVEN:
		snprintf(buf, len, "--plugin-dir, as given to criu -L");
		break;
	case CLI_PD_CONFIG:
		snprintf(buf, len, "libdir in criu's config file %s", p->config);
		break;
	case CLI_PD_ENV:
		snprintf(buf, len, "$CRIU_LIBS_DIR");
		break;
	default:
		snprintf(buf, len, "criu's compiled-in default, %s%s",
			 p->builtin_asked ? "as 'criu --help' says" : "CRIU's own: criu did not say",
			 p->builtin_absent ? "; it does not exist, so criu loads no plugin at all" : "");
	}
	return buf;
}
