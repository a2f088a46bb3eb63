/* SPDX-License-Identifier: MIT */
/*
 * options.h - every knob of the plugin, parsed once into one struct.
 *
 * Sources, later ones win: built-in defaults, the config file ($CUDASTORE_CONFIG, else
 * /etc/cudastore/cudastore.conf; "key = value" lines, '#' comments), then CUDASTORE_*
 * environment variables. Container runtimes often start criu with a clean environment,
 * so everything settable by environment is settable in the file too. docs/usage.md lists
 * every option.
 */
#ifndef CUDASTORE_OPTIONS_H
#define CUDASTORE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include "cudastore/cuda_api.h"
#include "manifest.h"

enum cs_opt_mode { CS_OPT_MODE_AUTO, CS_OPT_MODE_CUSTOM, CS_OPT_MODE_DRIVER };
enum cs_tristate { CS_AUTO = -1, CS_NO = 0, CS_YES = 1 };

struct cs_device_pair {
	CUuuid from, to;
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
	unsigned stripes;	/* extent files per GPU; 0 = auto (engine.h) */
	enum cs_tristate prefetch; /* restore: read + verify extents at POST_FORKING (CRIU >= 4.2);
				    * AUTO: when the machine has at least 4 CPUs */
	uint64_t prefetch_max;	/* bytes of host memory the prefetch may hold */
	bool skip_zero;
	bool space_check;		/* refuse a dump that cannot fit, before the lock */
	enum cs_tristate rescue;	/* host copy of GPU memory when writing extents fails */
	enum cs_tristate leave_running; /* AUTO: read criu's command line */
	unsigned lock_timeout_ms;	/* 0: derived from criu's --timeout */
	unsigned ndevice_map;
	struct cs_device_pair device_map[CS_MAX_DEVICES];
	char source[320]; /* where the options came from, for the log */
};

/* Defaults, then file, then environment. Returns 0 or -EINVAL with a message in err. */
int cs_options_load(struct cs_options *o, char *err, size_t errlen);
/* Parse one "key = value" setting (used by the file and environment parsers, and tests). */
int cs_options_set(struct cs_options *o, const char *key, const char *value, char *err, size_t errlen);
const char *cs_opt_mode_name(enum cs_opt_mode m);
/* prefetch yes, or auto on a machine of at least CS_PREFETCH_AUTO_CPUS online CPUs */
#define CS_PREFETCH_AUTO_CPUS 4
bool cs_opt_prefetch_on(const struct cs_options *o);

#endif /* CUDASTORE_OPTIONS_H */
