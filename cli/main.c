// SPDX-License-Identifier: MIT
/* main.c - cudastore: the user's command for cudastore images and setups (cli.h) */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore COMMAND [OPTIONS] [ARGS]\n"
		   "\n"
		   "Commands:\n"
		   "  check [--images-dir DIR]  what a dump on this machine would do, and why\n"
		   "  inspect DIR [PID]         what the cudastore images in DIR hold\n"
		   "  verify DIR [PID]          whether a restore would accept the images in DIR\n"
		   "\n"
		   "Every command takes --help and --json. Exit status: 0 good, 1 a check failed,\n"
		   "2 usage error. See cudastore(1); the plugin itself: cudastore-plugin(8).\n"
		   "\n"
		   "  -h, --help     this text\n"
		   "  -V, --version  print the version\n");
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return usage(stderr, CLI_USAGE);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help"))
		return usage(stdout, CLI_OK);
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("cudastore %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	if (!strcmp(cmd, "check"))
		return cli_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "inspect"))
		return cli_inspect(argc - 1, argv + 1);
	if (!strcmp(cmd, "verify"))
		return cli_verify(argc - 1, argv + 1);
	fprintf(stderr, "cudastore: unknown command '%s'\n", cmd);
	return usage(stderr, CLI_USAGE);
}
