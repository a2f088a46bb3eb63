/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the cudastore command: shared pieces of its subcommands.
 *
 *   main.c     command dispatch, usage, exit codes
 *   args.c     option parsing shared by the subcommands (options anywhere on the line)
 *   said.c     what a run has said: its first error message, whether its JSON object is out
 *   out.c      messages, sizes, the progress bar, the log sink of the plugin's modules
 *   json.c     JSON output through json-c (schema in cudastore(1))
 *   archive.c  a checkpoint archive (podman, kubelet) unpacked into a private directory
 *   sumread.c  the helper's summary file (cudastore-<nspid>.json) read back
 *   images.c   the manifests in an images directory (cudastore-<nspid>.img), through manifest.c,
 *              and the CRIU dump they belong to
 *   inventory.c the run id in CRIU's inventory.img, as a restoring criu reads it
 *   hostops.c  a host-only struct cs_cuda_ops, so verify runs the engine's restore checks
 *              without a GPU
 *   criu.c     criu run with one argument, and the plugin directory it loads plugins from
 *   check*.c   cudastore check: probes that fill a report, its text and JSON (check.h)
 *   inspect.c  cudastore inspect
 *   hostfacts.c a manifest's host and GPU facts (format 1.4), as text and JSON
 *   verify.c   cudastore verify
 *
 * Exit codes: 0 good, 1 a check failed, 2 usage error, or images this user cannot read (an error
 * before any check ran, or one that left a file unchecked).
 */
#ifndef CUDASTORE_CLI_H
#define CUDASTORE_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "criu_run.h"
#include "cuda_ops.h"
#include "imgindex.h"

#define CLI_OK		0
#define CLI_FAIL	1
#define CLI_USAGE	2
#define CLI_CANNOT_READ 2 /* a directory or file this user may not read: the images were not judged */

extern int cli_verbose; /* -v: the plugin modules' log lines on stderr */
/* the locale's character set is UTF-8 (main.c): text output keeps valid UTF-8 as it is */
extern bool cli_utf8;

int cli_check(int argc, char **argv);
int cli_inspect(int argc, char **argv);
/* chunks.c: inspect of chunked images (format 1.5): a device's chunks (false: some missing),
 * and the dump's chain of parents */
bool cli_chunks_text(int dirfd, const struct cs_manifest_dev *d);
bool cli_chunks_json(json_object *dev, int dirfd, const struct cs_manifest_dev *d);
void cli_chain_text(int dirfd);
void cli_chain_json(json_object *p, int dirfd);
int cli_verify(int argc, char **argv);
int cli_gc(int argc, char **argv);

/* ---- what this run has said (said.c): out.c and json.c note it here, neither calls the other ---- */
/* the first message cli_err or cli_usage_err printed ("" none) */
const char *cli_first_error(void);
/* out.c: a message printed on stderr (fmt with ap); only the first is kept */
void cli_said_error(const char *fmt, va_list ap);
/* json.c: the command's JSON object is printed; cli_json_said tells, and no error object follows */
void cli_said_json(void);
bool cli_json_said(void);
/* A command runs once per process; one that runs several in-process (the fuzzer) starts each
 * anew: no error said and no JSON printed yet. */
void cli_forget_output(void);

/*
 * One line of text output on stdout, fmt without its newline: the whole line escaped (strsafe.h),
 * so nothing read from an image puts a control character, or a line of its own, on the terminal;
 * with cli_utf8 valid UTF-8 is kept (cs_str_escape_utf8), else every byte above 0x7e is \xNN.
 */
void cli_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The sink of the plugin modules' log lines (log.h): stderr, only with -v (-vv: debug lines too). */
void cli_log_sink(unsigned int loglevel, const char *line);
/* a cs_options_notes callback: the options' warnings and notes logged (on stderr with -v) */
void cli_log_option_note(void *arg, bool warn, const char *text);
/* "cudastore SUB: message" on stderr (escaped as cli_line); SUB NULL: the command line itself */
void cli_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* usage error: message, then "try 'cudastore SUB --help'"; returns CLI_USAGE */
int cli_usage_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- JSON output (json.c): one json-c object per command, "schema" first ---- */
#define CLI_SCHEMA 2 /* 2: check's option values typed, its warnings a list (cudastore(1)) */
extern bool cli_json; /* --json: the result, and any error, as one JSON object on stdout */
/* {"schema":1,"command":SUB}; NULL only without memory (every cli_j* accepts NULL) */
json_object *cli_jreport(const char *sub);
json_object *cli_jobj(json_object *parent, const char *key); /* new {} under key (or appended) */
json_object *cli_jarr(json_object *parent, const char *key); /* new [] under key (or appended) */
/* parent an object: key is set; parent an array: the value is appended (key ignored) */
void cli_jstr(json_object *parent, const char *key, const char *v); /* NULL: null; UTF-8 kept */
void cli_jint(json_object *parent, const char *key, long long v);
void cli_ju64(json_object *parent, const char *key, uint64_t v);
void cli_jdbl(json_object *parent, const char *key, double v); /* NaN, inf: null */
void cli_jbool(json_object *parent, const char *key, bool v);
void cli_jnull(json_object *parent, const char *key);
/* an instant: {"seconds": S, "nanoseconds": N, "utc": "YYYY-MM-DDTHH:MM:SSZ"} */
void cli_jtime(json_object *parent, const char *key, uint64_t unix_ns);
/* one device of a manifest, the same object in inspect and verify: appended to the array arr */
struct cs_manifest_dev;
json_object *cli_jdevice(json_object *arr, const struct cs_manifest_dev *d);
/* a manifest's host and GPU facts (hostfacts.c): text lines, or "host" and "gpus" under p */
struct cs_manifest;
void cli_facts_text(const struct cs_manifest *m);
void cli_facts_json(json_object *p, const struct cs_manifest *m);
/* print on stdout with a newline and free it; then no error object is printed (main.c) */
void cli_jprint(json_object *o);
/* main.c: under --json, a command that failed without printing its object gets the error one
 * (sub NULL: "command" null, for a command line that names none) */
void cli_json_error_if_silent(const char *sub, int rc);
/*
 * --help of SUB: usage's text on stdout, or under --json the object
 * {"schema", "command": SUB, "ok": true, "exit_code": 0, "help": TEXT}; CLI_OK.
 */
int cli_help(const char *sub, int (*usage)(FILE *f, int rc));
/* the command's own --help (main.c): the same as SUB "help", the object with "commands": NAMES */
int cli_help_commands(int (*usage)(FILE *f, int rc), const char *const *names, size_t n);

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

/* ---- arguments (args.c) ---- */
/* The message for getopt_long's '?' or ':' (unknown option, missing argument); CLI_USAGE */
int cli_opt_error(const char *sub, int c, char **argv);
/* The arguments of inspect and verify: [--json] [-v] [--help] DIR|ARCHIVE [PID], in any order */
struct cli_dir_args {
	bool help;
	const char *dir;
	int one; /* PID, or 0 for every process */
};
/* CLI_OK (with help set: print the usage and stop), or CLI_USAGE after a message */
int cli_dir_pid_args(const char *sub, int argc, char **argv, struct cli_dir_args *a);

/* ---- images directory (images.c) ---- */
/* err (-errno) says this user may not read a file (EACCES, EPERM), not that the images are bad */
bool cli_cannot_read(int err);
/* "cannot read FILE: Permission denied (EACCES)" into buf, for an err cli_cannot_read takes */
const char *cli_cannot_read_text(const char *file, int err, char *buf, size_t len);
/* what to do about cli_cannot_read, as a sentence for messages: run as whom */
const char *cli_cannot_read_advice(void);
/* the first cudastore file msg names (a plugin message: "... extent cudastore-7-gpu0.ext: ..."), or "" */
void cli_file_named(const char *msg, char *file, size_t len);
/* nspids of the manifests (cudastore-<nspid>.img) in dirfd, sorted; *n set. 0 or -errno. */
int cli_list_manifests(int dirfd, int **pids, unsigned *n);

/* ---- CRIU's inventory.img (inventory.c) ---- */
#define CLI_INVENTORY "inventory.img" /* CRIU writes it in every dump */
/*
 * The run id (criu_run.h) that DIR's inventory.img names as its dump's (inventory_entry field 13,
 * dump_criu_run_id), taken as a restoring criu takes it for the plugin: 0 with run set, "" when
 * it names none (an older criu); -ENOENT without inventory.img; else -errno (-EBADMSG: not an
 * inventory criu could read) with why in err.
 */
int cli_inventory_run(int dirfd, char run[CS_CRIU_RUN_MAX + 1], char *err, size_t errlen);
/* the same over the len bytes of such a file (unit-tested) */
int cli_inventory_parse(const void *buf, size_t len, char run[CS_CRIU_RUN_MAX + 1], char *err, size_t errlen);

/* The images a command looks at: a directory, or an archive unpacked into a private one. */
struct cli_images {
	const char *shown; /* what to call the directory in messages: DIR, or ARCHIVE:checkpoint */
	char shown_buf[4200];
	char tmp[4096]; /* the private directory an archive went into ("": none) */
	int dirfd;
	int *pids; /* the nspids to look at (malloc'ed) */
	unsigned n;
	bool gpu_state; /* false: CRIU images (inventory.img) without cudastore files */
	/* the dump's index as a restore reads it: bound to the run inv_run (cs_index_file_bind) */
	struct cs_index_file index;
	int inv_err; /* CRIU's inventory.img: 0 read (inv_run), -ENOENT absent, else unreadable (inv_why) */
	char inv_run[CS_CRIU_RUN_MAX + 1];
	char inv_why[256];
};
/*
 * PATH (a directory or a checkpoint archive) opened, and the nspids to look at: just ONE, or every
 * manifest, plus any the dump's index lists whose manifest is missing. CLI_OK, with gpu_state
 * false and n 0 for CRIU images without GPU state; CLI_USAGE when PATH cannot be opened or
 * listed, CLI_CANNOT_READ when this user may not read the dump's index or, beside cudastore files,
 * CRIU's inventory.img (cli_cannot_read); CLI_FAIL when it holds no images, when ONE is not among
 * them (the pids it holds are named) or when cudastore files remain without any manifest. Each
 * failure after a message and with nothing left open.
 */
int cli_images_open(const char *sub, const char *path, int one, struct cli_images *im);
void cli_images_close(struct cli_images *im);
/*
 * Why the images could not be tied to a CRIU dump (no inventory.img, an index or inventory that
 * names no run), else NULL: a restore then checks nothing either.
 */
const char *cli_images_unbound(const struct cli_images *im);
/* CRIU's inventory.img beside cudastore images cannot be read (inv_why): criu restores nothing */
bool cli_images_inventory_bad(const struct cli_images *im);
/*
 * The manifest of NSPID in im, loaded under every rule a restore applies before any byte reaches
 * a GPU (cs_index_load_manifest), so that inspect and verify judge the images as a restore does.
 * 0: m holds it (cs_manifest_free). -ENOTSUP: a file of another dump that a restore ignores (err
 * says why). -ENOENT: the dump's index lists NSPID but its manifest is missing. cli_cannot_read:
 * this user may not read the manifest or an extent (err: cli_cannot_read_text). Any other -errno:
 * a restore refuses the images, why in err.
 */
struct cs_manifest;
int cli_load_manifest(const struct cli_images *im, int nspid, struct cs_manifest *m, char *err,
		      size_t errlen);
/* the CRIU dump the images belong to, as a "criu_dump" object under out (verify, inspect) */
void cli_jcriu_dump(json_object *out, const struct cli_images *im);
/* the same as text lines (inspect); false when the images are of another CRIU dump */
bool cli_text_criu_dump(const struct cli_images *im);

/* ---- checkpoint archives (archive.c) ---- */
/*
 * Unpacks the CRIU images of ARCHIVE (tar, optionally gzip/zstd/xz/bzip2-compressed: podman's
 * checkpoint --export and the kubelet's checkpoint, images under checkpoint/; or a tar of an
 * images directory, its files at the top or in one top-level directory) into a new 0700
 * directory under $TMPDIR (else /tmp), named in tmp; the images directory inside it is named in
 * dir. Only regular files are written; 0 or -errno after a message, with nothing left behind.
 */
int cli_archive_unpack(const char *sub, const char *archive, char *tmp, size_t tmplen, char *dir,
		       size_t dirlen);
/* removes what cli_archive_unpack wrote, and tmp itself */
void cli_archive_remove(const char *tmp);

/* ---- the helper's summary file (sumread.c) ---- */
#define CLI_MAX_PHASES 32
#define CLI_MAX_COPIES 64 /* devices whose copy account is read */
struct cli_summary {
	double seconds; /* NaN when absent */
	unsigned nphases;
	struct {
		char name[64];
		double seconds;
		uint64_t bytes;
	} phase[CLI_MAX_PHASES];
	json_object *batch, *gpu_phase; /* optional objects as written, or NULL */
	/* devices[i].copy: the engine's copy of device i (CustomStorage dumps), when well formed */
	struct cli_copy {
		bool present;
		unsigned threads;
		double seconds, io_seconds, gpu_wait_seconds;
	} copy[CLI_MAX_COPIES];
};
/*
 * cudastore-<nspid>.json read with json-c. 0; -ENOENT when absent; -EBADMSG (message in err) when
 * it is no summary: not JSON, nested deeper than the parser allows, a wrong type or a schema
 * newer than this command. cli_summary_free releases batch and gpu_phase.
 */
int cli_summary_read(int dirfd, int nspid, struct cli_summary *s, char *err, size_t errlen);
void cli_summary_free(struct cli_summary *s);

/* ---- criu (criu.c), for check ---- */
/* GIVEN, else PATH, /usr/local/sbin, /usr/sbin, /sbin: the criu binary into path; false: none */
bool cli_criu_find(const char *given, char *path, size_t len);
/*
 * "criu ARG" with its stdout and stderr read into out, whose end is kept when it says more than
 * fits (run_capture.h); its exit status, or -1 when it could not run, a signal ended it or it
 * ran past CLI_CRIU_RUN_TIMEOUT_MS (it is killed).
 */
#define CLI_CRIU_RUN_TIMEOUT_MS 60000u
int cli_criu_run(const char *criu, const char *arg, char *out, size_t len);
/* Where a criu run finds its plugin directory (criu.c says how criu picks it). */
enum cli_plugindir_source { CLI_PD_DEFAULT, CLI_PD_GIVEN, CLI_PD_CONFIG, CLI_PD_ENV };
struct cli_plugindir {
	char dir[4096]; /* the directory criu loads every *.so of */
	enum cli_plugindir_source from;
	char config[4200];   /* CLI_PD_CONFIG: "FILE:LINE" of the libdir line */
	char builtin[4096];  /* the directory compiled into criu */
	bool builtin_asked;  /* builtin is what 'criu --help' says (else CRIU's own default) */
	bool builtin_absent; /* builtin does not exist: used, criu loads no plugin at all */
};
/* p for the criu binary CRIU (NULL or "": none found) and check's --plugin-dir GIVEN (or NULL) */
void cli_criu_plugindir(struct cli_plugindir *p, const char *criu, const char *given);
/* "--plugin-dir", "config_file", "CRIU_LIBS_DIR" or "default" (check --json: plugin_dir_from) */
const char *cli_plugindir_from(const struct cli_plugindir *p);
/* the same in words, for the text output and messages */
const char *cli_plugindir_why(const struct cli_plugindir *p, char *buf, size_t len);

/* ---- host-only CUDA ops (verify) ---- */
void cli_hostops(struct cs_cuda_ops *ops);

#endif /* CUDASTORE_CLI_H */
