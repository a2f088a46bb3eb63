/* SPDX-License-Identifier: MIT */
/*
 * options.h - every knob of the plugin, parsed once into one struct.
 *
 * Sources, later ones win: built-in defaults, the config file ($CUDASTORE_CONFIG, else
 * CS_DEFAULT_CONFIG = /etc/cudastore/cudastore.conf; "key = value" lines, '#' comments), then CUDASTORE_*
 * environment variables. Container runtimes often start criu with a clean environment,
 * so everything settable by environment is settable in the file too. docs/usage.md lists
 * every option.
 */
#ifndef CUDASTORE_OPTIONS_H
#define CUDASTORE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include "cuda_api.h"
#include "imglimits.h"

/* the copy engine's defaults (cs_engine_opts_default), and the options' */
#define CS_ENGINE_CHUNK_DEF   (4u << 20)   /* a CPU's two buffers stay in its caches (performance.md) */
#define CS_ENGINE_PINNED_DEF  (256u << 20) /* per device */
#define CS_ENGINE_THREADS_DEF 8		   /* per device (performance.md, "Threads and streams") */
#define CS_PREFETCH_MAX_DEF   (8ull << 30) /* host bytes a restore prefetch may hold */

enum cs_opt_mode { CS_OPT_MODE_AUTO, CS_OPT_MODE_CUSTOM, CS_OPT_MODE_DRIVER };
enum cs_tristate { CS_AUTO = -1, CS_NO = 0, CS_YES = 1 };

/* device_map's pairs: by UUID, or by ordinal (the dumping host's ordinal = this host's) */
struct cs_device_pair {
	CUuuid from, to;
	bool by_ordinal;
	int from_ordinal, to_ordinal;
};

struct cs_options {
	enum cs_opt_mode mode;
	char libcuda[256];   /* empty: libcuda.so.1 */
	char libnvml[256];   /* empty: libnvidia-ml.so.1 */
	char helper[256];    /* empty: cudastore-helper beside the plugin, else the installed one */
	uint32_t chunk_size; /* bytes */
	unsigned threads;    /* copy threads per GPU */
	uint64_t pinned_max; /* pinned bytes per GPU */
	bool direct_io;
	bool tmpfs_map; /* dump into tmpfs through a shared mapping */
	bool tmpfs_readback;	   /* dump into a memory filesystem: read each step back after writing it */
	enum cs_tristate tmpfs_restore_map; /* restore from one through a mapping; AUTO: when unread */
	unsigned stripes;	   /* extent files per GPU; 0 = auto (engine.h) */
	enum cs_tristate prefetch; /* restore: read + verify extents at POST_FORKING (CRIU >= 4.2);
				    * default NO; AUTO: when the machine has at least 4 CPUs */
	uint64_t prefetch_max;	   /* bytes of host memory the prefetch may hold */
	bool warmup; /* restore: cuInit, GPU contexts and pinned buffers at POST_FORKING (warmup.h) */
	bool skip_zero;
	bool space_check;		/* refuse a dump that cannot fit, before the lock */
	enum cs_tristate rescue;	/* host copy of GPU memory when writing extents fails */
	enum cs_tristate leave_running; /* AUTO: criu's own decision (criu_opts.c) */
	enum cs_tristate criu_options;	/* NO: never read criu's private options (criu_opts.h) */
	unsigned lock_timeout_ms;	/* 0: derived from criu's --timeout */
	unsigned parallel; /* processes checkpointed or restored at once; 0: all, at most CS_PARALLEL_AUTO */
	unsigned op_timeout_s; /* the longest a helper request may go without progress; 0: none */
	bool old_driver_trees; /* allow trees of several CUDA processes on drivers before 610 */
	unsigned custom_in_flight; /* CustomStorage processes CHECKPOINTING at once; 0: as parallel */
	/* chunked images (format 1.5; docs/image-format.md section 10): a CustomStorage dump writes
	 * content-addressed chunks; parent: an earlier chunked dump's images directory (relative to
	 * the images directory); chunk_store: a shared store directory. Either implies chunks. */
	bool chunks;
	char parent[512];
	char chunk_store[512];
	/* not a key: criu's --prev-images-dir as criu holds it (relative to the images directory),
	 * set by the plugin at dump; a chunked dump's parent when parent is not set */
	char criu_parent[512];
	unsigned ndevice_map;
	struct cs_device_pair device_map[CS_MAX_DEVICES];
	char source[320]; /* where the options came from, for the log */
	char config_path[256]; /* the config file read, or empty */
	unsigned from_file;    /* CS_OPT_FROM_FILE_*: which of those keys the file set (messages) */
	char warnings[512];    /* the config file's duplicate keys, one a line ("" none) */
	unsigned warnings_dropped; /* duplicates past what warnings holds */
	char notes[320];	   /* what is worth knowing but not wrong ("" none) */
};

#define CS_OP_TIMEOUT_DEF 30  /* seconds without progress (progress.h): a stuck request, not a long one */
#define CS_PARALLEL_AUTO  16  /* parallel = 0: every process of the tree, at most this many at once */
#define CS_PARALLEL_MAX	  256 /* the most processes one dump tracks */

#define CS_OPT_FROM_FILE_CHUNK	 1u
#define CS_OPT_FROM_FILE_PINNED	 2u
#define CS_OPT_FROM_FILE_THREADS 4u

/*
 * Defaults, then file, then environment; then every check of cs_options_check(). Returns 0 or
 * -EINVAL with a message in err. Refused as well: a CUDASTORE_* variable that is neither an
 * option nor on the documented allow-list, and a config file that is not a regular file owned
 * by root (or the caller) and writable by its owner only.
 */
int cs_options_load(struct cs_options *o, char *err, size_t errlen);
/* Combinations that cannot work (pinned bound below one chunk, device map not one-to-one). */
int cs_options_check(const struct cs_options *o, char *err, size_t errlen);
/* Parse one "key = value" setting (used by the file and environment parsers, and tests). */
int cs_options_set(struct cs_options *o, const char *key, const char *value, char *err, size_t errlen);
/*
 * cs_options_load, calling fn(arg, key, value, where) for every value taken from the file
 * (where = "PATH:LINE") or the environment (where = the variable's name), in the order
 * applied; the cudastore command uses it to show where each value came from.
 */
typedef void (*cs_options_trace_fn)(void *arg, const char *key, const char *value, const char *where);
int cs_options_load_traced(struct cs_options *o, cs_options_trace_fn fn, void *arg, char *err, size_t errlen);
/*
 * What cs_options_load noticed that is not an error, for the caller to log (the options never
 * log): each duplicate key of the config file as a warning, "config file PATH:LINE: 'KEY' set
 * again (first at line N); the last value wins: keep one", then (warn false) a pinned bound that
 * caps the copy threads. fn(arg, warn, text) once per line, in that order.
 */
typedef void (*cs_options_note_fn)(void *arg, bool warn, const char *text);
void cs_options_notes(const struct cs_options *o, cs_options_note_fn fn, void *arg);
/* The config file cs_options_load reads: $CUDASTORE_CONFIG, else the default under /etc. */
const char *cs_options_config_path(void);
const char *cs_opt_mode_name(enum cs_opt_mode m);
/* A tristate as the file spells it ("auto", "yes", "no"), and parsed as the file takes it
 * (auto, or a boolean: yes/no, true/false, on/off, 1/0, any case); 0 or -EINVAL. */
const char *cs_tristate_name(enum cs_tristate t);
int cs_tristate_parse(const char *v, enum cs_tristate *out);
/* Every option: its key in the file (CUDASTORE_<KEY> in the environment), in a stable order. */
#define CS_OPTION_COUNT 29
const char *cs_option_key(unsigned i); /* i < CS_OPTION_COUNT, else NULL */
/* The value of option key in o, as the file would spell it (defaults spelled out); 0 or -ENOENT. */
int cs_option_format(const struct cs_options *o, const char *key, char *buf, size_t len);
/* Is name (n bytes, no '=') an option's variable or one of the allowed CUDASTORE_* settings? */
bool cs_options_env_known(const char *name, size_t n);
/* prefetch yes, or auto on a machine of at least CS_PREFETCH_AUTO_CPUS online CPUs */
#define CS_PREFETCH_AUTO_CPUS 4
bool cs_opt_prefetch_on(const struct cs_options *o);
/* a dump writes chunked images: chunks, parent or chunk_store set */
bool cs_opt_chunked(const struct cs_options *o);

#endif /* CUDASTORE_OPTIONS_H */
