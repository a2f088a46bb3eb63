// SPDX-License-Identifier: MIT
/* images.c - which processes an images directory holds: the cudastore-<nspid>.img manifests */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "imgdir.h"

/* DIR as a directory fd, with a message naming it on failure; -errno */
static int cli_open_dir(const char *sub, const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		cli_err(sub, "cannot open the images directory %s: %s%s", dir, strerror(e),
			e == EACCES ? " (run as root, or as the owner of the images: they are 0600)" : "");
		return -e;
	}
	return fd;
}

/* "cudastore-<digits>.img" with the name cs_name_manifest would build for that pid */
static int nspid_of(const char *name)
{
	char want[CS_NAME_MAX];
	char *end;
	long v;

	if (strncmp(name, "cudastore-", 10))
		return -1;
	v = strtol(name + 10, &end, 10);
	if (end == name + 10 || strcmp(end, ".img") || v <= 0 || v > 0x3fffffff)
		return -1;
	cs_name_manifest(want, (int)v);
	return strcmp(want, name) ? -1 : (int)v;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int cli_list_manifests(int dirfd, int **pids, unsigned *n)
{
	struct dirent *de;
	unsigned cap = 0;
	int *v = NULL, fd, pid;
	DIR *d;

	*pids = NULL;
	*n = 0;
	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		pid = nspid_of(de->d_name);
		if (pid < 0)
			continue;
		if (*n == cap) {
			int *nv = realloc(v, (cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[(*n)++] = pid;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_int);
	*pids = v;
	return 0;
}

int cli_dir_pid_args(const char *sub, int argc, char **argv, struct cli_dir_args *a)
{
	static const struct option lopts[] = { { "json", no_argument, NULL, 'j' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	char *end;
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "+jhv", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case 'v':
			cli_verbose++;
			break;
		case 'h':
			a->help = true;
			return CLI_OK;
		default:
			return cli_usage_err(sub, "unknown option");
		}
	}
	if (optind >= argc || argc - optind > 2)
		return cli_usage_err(sub, "expected an images directory and at most one PID");
	a->dir = argv[optind];
	if (argc - optind == 2) {
		a->one = (int)strtol(argv[optind + 1], &end, 10);
		if (*end || a->one <= 0)
			return cli_usage_err(sub, "'%s' is not a pid", argv[optind + 1]);
	}
	return CLI_OK;
}

/* the nspids to look at: just one, or every manifest in dirfd (DIR names it); 0 or -errno */
static int cli_pids(const char *sub, int dirfd, const char *dir, int one, int **pids, unsigned *n)
{
	*n = 0;
	if (one) {
		*pids = malloc(sizeof(**pids));
		if (!*pids)
			return -ENOMEM;
		(*pids)[0] = one;
		*n = 1;
		return 0;
	}
	if (cli_list_manifests(dirfd, pids, n)) {
		int ret = -errno;

		cli_err(sub, "cannot list %s: %s", dir, strerror(errno));
		return ret;
	}
	return 0;
}

int cli_open_images(const char *sub, const char *dir, int one, const char *none, int *dirfd, int **pids,
		    unsigned *n)
{
	int rc = CLI_USAGE;

	*pids = NULL;
	*n = 0;
	*dirfd = cli_open_dir(sub, dir);
	if (*dirfd < 0)
		return CLI_USAGE;
	if (cli_pids(sub, *dirfd, dir, one, pids, n))
		goto err_close;
	if (!*n) {
		cli_err(sub,
			"%s holds no cudastore images (no cudastore-PID.img)%s; is it the directory given "
			"to criu dump -D?",
			dir, none);
		rc = CLI_FAIL;
		goto err_free;
	}
	return CLI_OK;
err_free:
	free(*pids);
	*pids = NULL;
err_close:
	close(*dirfd);
	*dirfd = -1;
	return rc;
}
