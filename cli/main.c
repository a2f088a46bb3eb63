// SPDX-License-Identifier: MIT
/* main.c - cudastore: the user's command for cudastore images and setups (cli.h) */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "log.h"

static int help(int argc, char **argv);

/* Each command: its name, its arguments and what it does (the usage's lines, in this order). */
struct cmd {
	const char *name;
	const char *args;
	const char *what;
	int (*run)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "check", "[--images-dir|--images DIR]", "would a dump, or a restore of DIR, work here", cli_check },
	{ "inspect", "DIR [PID]", "what the cudastore images in DIR hold", cli_inspect },
	{ "verify", "DIR [PID]", "whether a restore would accept the images in DIR", cli_verify },
	{ "gc", "--store DIR", "remove the chunks no images directory links from a chunk store", cli_gc },
	{ "help", "[COMMAND]", "this text, or COMMAND's", help },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* "NAME ARGS" of c into buf */
static const char *synopsis(const struct cmd *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", c->name, c->args);
	return buf;
}

/* the table as the usage's list: each synopsis in a column as wide as the widest, then what */
static void list_commands(FILE *f)
{
	char buf[128];
	int w = 0, n;
	size_t i;

	for (i = 0; i < NCMDS; i++) {
		n = (int)strlen(synopsis(&cmds[i], buf, sizeof(buf)));
		w = n > w ? n : w;
	}
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-*s  %s\n", w, synopsis(&cmds[i], buf, sizeof(buf)), cmds[i].what);
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore COMMAND [OPTIONS] [ARGS]\n"
		   "\n"
		   "Commands:\n");
	list_commands(f);
	fprintf(f, "\n"
		   "DIR may also be a checkpoint archive (podman container checkpoint --export, the\n"
		   "kubelet's checkpoint) or a tar of an images directory. Options may come anywhere on\n"
		   "the line. Every command takes --help and --json. Exit status: 0 good, 1 a check\n"
		   "failed, 2 usage error, or images this user may not read (named, with the errno;\n"
		   "not checked).\n"
		   "See cudastore(1); the plugin itself: cudastore-plugin(8).\n"
		   "\n"
		   "  -h, --help     this text\n"
		   "  -V, --version  print the version\n");
	return rc;
}

/* the command's own --help: the usage, and under --json the commands' names too */
static int own_help(void)
{
	const char *names[NCMDS];
	size_t i;

	for (i = 0; i < NCMDS; i++)
		names[i] = cmds[i].name;
	return cli_help_commands(usage, names, NCMDS);
}

static const struct cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* --json anywhere before "--": a usage error is then a JSON object too */
static bool wants_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			return true;
	return false;
}

/* a usage error of the command line itself: the message and the usage on stderr, CLI_USAGE */
static int top_error(const char *sub, const char *fmt, const char *arg)
{
	cli_err(NULL, fmt, arg);
	usage(stderr, CLI_USAGE);
	cli_json_error_if_silent(sub, CLI_USAGE);
	return CLI_USAGE;
}

/* cudastore help [COMMAND] ("--json" may come anywhere) */
static int help(int argc, char **argv)
{
	static char opt[] = "--help", json[] = "--json";
	const struct cmd *c;
	const char *topic = NULL;
	char *av[4];
	int i, n = 0;

	for (i = 1; i < argc && !topic; i++)
		if (strcmp(argv[i], "--json"))
			topic = argv[i];
	if (!topic)
		return own_help();
	c = find(topic);
	if (!c || c->run == help) /* help takes no --help: "help help" names no command to show */
		return top_error("help", "no help for '%s': not a command", topic);
	av[n++] = (char *)c->name;
	av[n++] = opt;
	if (cli_json)
		av[n++] = json;
	av[n] = NULL;
	return c->run(n, av);
}

/* cudastore --version */
static int version(void)
{
	json_object *o;

	if (!cli_json) {
		printf("cudastore %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	o = cli_jreport("version");
	cli_jbool(o, "ok", true);
	cli_jint(o, "exit_code", CLI_OK);
	cli_jstr(o, "version", PACKAGE_VERSION);
	cli_jprint(o);
	return CLI_OK;
}

/* a locale name whose character set is UTF-8 ("C.UTF-8", "de_DE.utf8") */
static bool names_utf8(const char *name)
{
	const char *cs = name ? strchr(name, '.') : NULL;

	return cs && (!strncasecmp(cs + 1, "utf-8", 5) || !strncasecmp(cs + 1, "utf8", 4));
}

/*
 * Whether the terminal shows UTF-8, as the locale says (LC_ALL, else LC_CTYPE, else LANG): its
 * character set when the C library has it, else its name (a locale not installed here). Only the
 * answer is kept: the command itself runs in the C locale.
 */
static bool locale_utf8(void)
{
	const char *name = getenv("LC_ALL");
	bool utf8;

	if (setlocale(LC_CTYPE, "")) {
		utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
		setlocale(LC_CTYPE, "C");
		return utf8;
	}
	if (!name || !name[0])
		name = getenv("LC_CTYPE");
	if (!name || !name[0])
		name = getenv("LANG");
	return names_utf8(name);
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	const char *name;
	int rc, first = 1;

	cs_log_set_sink(cli_log_sink);
	cli_utf8 = locale_utf8();
	cli_json = wants_json(argc, argv);
	while (first < argc && !strcmp(argv[first], "--json")) /* cudastore --json COMMAND ... */
		first++;
	name = first < argc ? argv[first] : NULL;
	if (!name)
		return top_error(NULL, "%s", "no command given");
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return own_help();
	if (!strcmp(name, "-V") || !strcmp(name, "--version"))
		return version();
	c = find(name);
	if (!c)
		return top_error(NULL, "unknown command '%s'", name);
	rc = c->run(argc - first, argv + first);
	cli_json_error_if_silent(c->name, rc);
	return rc;
}
