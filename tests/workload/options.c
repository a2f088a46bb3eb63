// SPDX-License-Identifier: MIT
/* options.c - cuda-workload's command line. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: cuda-workload [--devices M] [--buffers N] [--size BYTES[k|m|g]] [--seed S]\n"
	    "                     [--zero-percent P] [--fork-cuda K] [--fork-cpu K] [--daemon]\n"
	    "                     [--pidfile F] [--ready F] [--outfile F] [--log F]\n"
	    "                     [--itimer-us N] [--seccomp-deny-yield] [--host-mb N]\n"
	    "                     [--decoy-driver-thread] [--cuda-ipc-file] [--child-size BYTES]\n"
	    "                     [--child-zero-percent P] [--gpu-each] [--child-ipc-import]\n"
	    "Fills N buffers per device with a pattern, keeps checking them, and on SIGTERM verifies\n"
	    "every byte and writes PASS or FAIL: ... to the outfile (exit 0 or 1). --child-size and\n"
	    "--child-zero-percent: the --fork-cuda children's buffers (default: --size, --zero-percent).\n"
	    "--gpu-each: one worker per GPU, the root on device 0 and child k on device k (--devices 1).\n"
	    "--child-ipc-import: the --fork-cuda children are CUDA IPC importers to the emulated driver\n"
	    "(CUDASTORE_EMU_IPC_IMPORTER), which a driver before branch 610 can never restore.\n"
	    "SIGUSR1 (to the root): every byte of its buffers changes (the next seed's pattern); the\n"
	    "ready file's name + \".refill\" then holds how many times.\n");
}

static int parse_size(const char *text, size_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text)
		return -EINVAL;
	switch (*end) {
	case 'g': case 'G': v <<= 10; /* fall through */
	case 'm': case 'M': v <<= 10; /* fall through */
	case 'k': case 'K': v <<= 10; end++; break;
	default: break;
	}
	if (*end || !v)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

static int parse_int(const char *text, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 0);
	if (errno || end == text || *end || v < min || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

enum {
	O_DEV = 1,
	O_BUF,
	O_SIZE,
	O_SEED,
	O_ZERO,
	O_PID,
	O_READY,
	O_OUT,
	O_FCUDA,
	O_FCPU,
	O_DAEMON,
	O_LOG,
	O_ITIMER,
	O_SECCOMP,
	O_HOSTMB,
	O_DECOY,
	O_IPC,
	O_CSIZE,
	O_CZERO,
	O_GPUEACH,
	O_CIPC
};

static const struct option longopts[] = {
	{ "devices", required_argument, NULL, O_DEV },
	{ "buffers", required_argument, NULL, O_BUF },
	{ "size", required_argument, NULL, O_SIZE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "zero-percent", required_argument, NULL, O_ZERO },
	{ "pidfile", required_argument, NULL, O_PID },
	{ "ready", required_argument, NULL, O_READY },
	{ "outfile", required_argument, NULL, O_OUT },
	{ "fork-cuda", required_argument, NULL, O_FCUDA },
	{ "fork-cpu", required_argument, NULL, O_FCPU },
	{ "daemon", no_argument, NULL, O_DAEMON },
	{ "log", required_argument, NULL, O_LOG },
	{ "itimer-us", required_argument, NULL, O_ITIMER },
	{ "seccomp-deny-yield", no_argument, NULL, O_SECCOMP },
	{ "host-mb", required_argument, NULL, O_HOSTMB },
	{ "decoy-driver-thread", no_argument, NULL, O_DECOY },
	{ "cuda-ipc-file", no_argument, NULL, O_IPC },
	{ "child-size", required_argument, NULL, O_CSIZE },
	{ "child-zero-percent", required_argument, NULL, O_CZERO },
	{ "gpu-each", no_argument, NULL, O_GPUEACH },
	{ "child-ipc-import", no_argument, NULL, O_CIPC },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_one(struct wl_opts *o, int c, const char *arg)
{
	switch (c) {
	case O_DEV: return parse_int(arg, 1, WL_MAXDEV, &o->devices);
	case O_BUF: return parse_int(arg, 1, WL_MAXBUF, &o->buffers);
	case O_SIZE: return parse_size(arg, &o->size);
	case O_CSIZE: return parse_size(arg, &o->child_size);
	case O_SEED: o->seed = strtoull(arg, NULL, 0); return 0;
	case O_ZERO: return parse_int(arg, 0, 100, &o->zero_percent);
	case O_CZERO: return parse_int(arg, 0, 100, &o->child_zero_percent);
	case O_GPUEACH: o->gpu_each = true; return 0;
	case O_CIPC:
		o->child_ipc_import = true;
		return 0;
	case O_FCUDA: return parse_int(arg, 0, 64, &o->fork_cuda);
	case O_FCPU: return parse_int(arg, 0, 64, &o->fork_cpu);
	case O_DAEMON: o->daemon = true; return 0;
	case O_PID: o->pidfile = arg; return 0;
	case O_READY: o->ready = arg; return 0;
	case O_OUT: o->outfile = arg; return 0;
	case O_LOG: o->log = arg; return 0;
	case O_ITIMER: {
		int us;

		if (parse_int(arg, 1, 10000000, &us))
			return -EINVAL;
		o->itimer_us = us;
		return 0;
	}
	case O_SECCOMP: o->seccomp_deny_yield = true; return 0;
	case O_HOSTMB: return parse_int(arg, 1, 1 << 20, &o->host_mb);
	case O_DECOY:
		o->decoy_driver_thread = true;
		return 0;
	case O_IPC:
		o->cuda_ipc_file = true;
		return 0;
	default: return -EINVAL;
	}
}

int wl_parse(struct wl_opts *o, int argc, char **argv)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->devices = 1;
	o->buffers = 2;
	o->size = 4UL << 20;
	o->seed = 1;
	o->child_zero_percent = -1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage();
			exit(0);
		}
		if (parse_one(o, c, optarg)) {
			if (c != '?')
				fprintf(stderr, "cuda-workload: bad value \"%s\" for --%s\n", optarg,
					longopts[c - 1].name);
			usage();
			return -EINVAL;
		}
	}
	if (o->gpu_each && o->devices != 1) {
		fprintf(stderr, "cuda-workload: --gpu-each gives every process one GPU: no --devices\n");
		usage();
		return -EINVAL;
	}
	if (optind < argc) {
		fprintf(stderr, "cuda-workload: unexpected argument \"%s\"\n", argv[optind]);
		usage();
		return -EINVAL;
	}
	return 0;
}
