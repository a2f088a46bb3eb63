/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the cudastore command: shared pieces of its subcommands.
 *
 *   main.c     argument dispatch, usage, exit codes
 *   out.c      text/JSON output helpers, the progress bar, print_on_level for the plugin's modules
 *   images.c   the manifests in an images directory (cudastore-<nspid>.img), through manifest.c
 *   hostops.c  a host-only struct cs_cuda_ops, so verify runs the engine's restore checks
 *              without a GPU
 *   check.c    cudastore check
 *   inspect.c  cudastore inspect
 *   verify.c   cudastore verify
 *
 * Exit codes: 0 good, 1 a check failed, 2 usage error (or an error before any check ran).
 */
#ifndef CUDASTORE_CLI_H
#define CUDASTORE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cudastore/cuda_ops.h"

#define CLI_OK	  0
#define CLI_FAIL  1
#define CLI_USAGE 2

extern int cli_verbose; /* -v: the plugin modules' log lines on stderr */

int cli_check(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_verify(int argc, char **argv);

/* "cudastore SUB: message" on stderr */
void cli_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* usage error: message, then "try 'cudastore SUB --help'"; returns CLI_USAGE */
int cli_usage_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- JSON writer (stdout): keys NULL inside arrays ---- */
struct jw {
	FILE *f;
	int depth;
	bool first[32];
};
void jw_init(struct jw *w, FILE *f);
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end_obj(struct jw *w);
void jw_end_arr(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *v); /* v NULL: null */
void jw_int(struct jw *w, const char *key, long long v);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_dbl(struct jw *w, const char *key, double v);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_finish(struct jw *w); /* newline */

/* "1.50 GiB" */
const char *cli_bytes(uint64_t b, char *buf, size_t len);

/* progress bar on stderr, only when stderr is a terminal */
struct cli_progress {
	bool on;
	uint64_t total;
	double t0;
};
void cli_progress_begin(struct cli_progress *p, uint64_t total);
void cli_progress_update(struct cli_progress *p, uint64_t done, const char *what);
void cli_progress_end(struct cli_progress *p);
double cli_now(void);

/* ---- images directory ---- */
/* nspids of the manifests (cudastore-<nspid>.img) in dirfd, sorted; *n set. 0 or -errno. */
int cli_list_manifests(int dirfd, int **pids, unsigned *n);
/* The arguments of inspect and verify: [--json] [-v] [--help] DIR [PID] */
struct cli_dir_args {
	bool json, help;
	const char *dir;
	int one; /* PID, or 0 for every process */
};
/* CLI_OK (with help set: print the usage and stop), or CLI_USAGE after a message */
int cli_dir_pid_args(const char *sub, int argc, char **argv, struct cli_dir_args *a);
/*
 * DIR opened (*dirfd) and the nspids to look at (*pids, malloc'ed): just one, or every manifest
 * in DIR. CLI_OK; CLI_USAGE when DIR cannot be opened or listed, CLI_FAIL when it holds no
 * manifest (the message says so, none right after "(no cudastore-PID.img)"), each after a
 * message and with nothing left open.
 */
int cli_open_images(const char *sub, const char *dir, int one, const char *none, int *dirfd, int **pids,
		    unsigned *n);

/* ---- host-only CUDA ops (verify) ---- */
void cli_hostops(struct cs_cuda_ops *ops);

#endif /* CUDASTORE_CLI_H */
