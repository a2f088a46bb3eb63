// SPDX-License-Identifier: MIT
/* main.c - cudastore: the user's command for cudastore images and setups (cli.h) */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "check", cli_check },
	{ "inspect", cli_inspect },
	{ "verify", cli_verify },
};

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore COMMAND [OPTIONS] [ARGS]\n"
		   "\n"
		   "Commands:\n"
		   "  check [--images-dir DIR]  what a dump on this machine would do, and why\n"
		   "  inspect DIR [PID]         what the cudastore images in DIR hold\n"
		   "  verify DIR [PID]          whether a restore would accept the images in DIR\n"
		   "  help [COMMAND]            this text, or COMMAND's\n"
		   "\n"
		   "DIR may also be a checkpoint archive (podman container checkpoint --export, the\n"
		   "kubelet's checkpoint). Options may come anywhere on the line. Every command takes\n"
		   "--help and --json. Exit status: 0 good, 1 a check failed, 2 usage error, or\n"
		   "images this user may not read (named, with the errno; not checked).\n"
		   "See cudastore(1); the plugin itself: cudastore-plugin(8).\n"
		   "\n"
		   "  -h, --help     this text\n"
		   "  -V, --version  print the version\n");
	return rc;
}

static const struct cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
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

/* cudastore help [COMMAND] */
static int help(int argc, char **argv)
{
	static char opt[] = "--help";
	const struct cmd *c;
	char *av[3];

	if (argc < 2)
		return usage(stdout, CLI_OK);
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "cudastore: no help for '%s': not a command\n", argv[1]);
		return usage(stderr, CLI_USAGE);
	}
	av[0] = argv[1];
	av[1] = opt;
	av[2] = NULL;
	return c->run(2, av);
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
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct cmd *c;
	int rc;

	cli_utf8 = locale_utf8();
	if (!name)
		return usage(stderr, CLI_USAGE);
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return usage(stdout, CLI_OK);
	if (!strcmp(name, "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
		printf("cudastore %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	c = find(name);
	if (!c) {
		fprintf(stderr, "cudastore: unknown command '%s'\n", name);
		return usage(stderr, CLI_USAGE);
	}
	cli_json = wants_json(argc - 1, argv + 1);
	rc = c->run(argc - 1, argv + 1);
	cli_json_error_if_silent(c->name, rc);
	return rc;
}
