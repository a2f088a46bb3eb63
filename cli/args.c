// SPDX-License-Identifier: MIT
/*
 * args.c - option parsing shared by the subcommands.
 *
 * getopt_long permutes, so options may come anywhere on the line (cudastore inspect DIR --json);
 * "--" ends them. Its own messages are off (a leading ':' in each option string): a bad option
 * gets one message here, and a missing argument is named as such, not as an unknown option.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_opt_error(const char *sub, int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':')
		return cli_usage_err(sub, "option '%s' needs an argument", arg);
	if (optopt && strncmp(arg, "--", 2))
		return cli_usage_err(sub, "unknown option '-%c'", optopt);
	if (optopt && strchr(arg, '='))
		return cli_usage_err(sub, "option '%.*s' takes no value", (int)strcspn(arg, "="), arg);
	return cli_usage_err(sub, "unknown option '%s'", arg);
}

static int parse_pid(const char *sub, const char *s, int *pid)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (*end || end == s || v <= 0 || v > 0x3fffffff)
		return cli_usage_err(sub, "'%s' is not a pid", s);
	*pid = (int)v;
	return CLI_OK;
}

int cli_dir_pid_args(const char *sub, int argc, char **argv, struct cli_dir_args *a)
{
	static const struct option lopts[] = { { "json", no_argument, NULL, 'j' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	int c;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jhv", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli_json = true;
			break;
		case 'v':
			cli_verbose++;
			break;
		case 'h':
			a->help = true;
			return CLI_OK;
		default:
			return cli_opt_error(sub, c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_err(sub, "expected an images directory (or a checkpoint archive)");
	if (argc - optind > 2)
		return cli_usage_err(sub, "expected an images directory and at most one PID, not '%s'",
				     argv[optind + 2]);
	a->dir = argv[optind];
	if (argc - optind == 2)
		return parse_pid(sub, argv[optind + 1], &a->one);
	return CLI_OK;
}
