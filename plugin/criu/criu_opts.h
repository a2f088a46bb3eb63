/* SPDX-License-Identifier: MIT */
/*
 * criu_opts.h - what criu itself was asked to do, read from criu's own options.
 *
 * criu-side only: no driver calls. criu exports its global options ("opts", struct
 * cr_options); its layout is not part of CRIU's plugin API, so it comes from the CRIU tree
 * configure probed (--with-criu-src) or from a checked-in table keyed by criu's version, and
 * every use is preceded by a run-time check against values the plugin knows independently
 * (criu's mode, the root pid being dumped, criu's log level, the images directory).
 * When no layout passes, criu's command line is parsed, with a warning saying what cannot be
 * seen that way (config files, RPC).
 */
#ifndef CUDASTORE_CRIU_OPTS_H
#define CUDASTORE_CRIU_OPTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "options.h"

/* Offsets into struct cr_options of the fields we read or check. */
struct cs_criu_layout {
	const char *what;     /* for the log: "probed CRIU 4.2.1 tree", "table for CRIU 4.3.x", ... */
	const char *versions; /* version prefixes it applies to, '|'-separated ("4.0|4.1") */
	size_t final_state, use_page_server, lazy_pages, stream, tree_id, log_level, imgs_dir, mode;
	size_t freeze_cgroup;
	size_t img_parent; /* --prev-images-dir: the same offset in 4.0-4.2, 24 bytes on in 4.3 */
};

/* What criu was asked to do, as far as the plugin can tell. */
struct cs_criu_view {
	bool known;	    /* read from criu's options through a validated layout */
	bool from_cmdline;  /* known == false: taken from criu's command line (CLI use only) */
	bool leave_running; /* final state TASK_ALIVE (-R, leave-running in a config file, RPC) */
	bool stream;	    /* --stream (criu-image-streamer) */
	bool lazy_pages;    /* --lazy-pages */
	bool page_server;   /* --page-server (memory pages go to a remote page server) */
	bool pre_dump;	    /* criu's mode is pre-dump (known only from criu's options) */
	pid_t tree;	    /* the pid criu dumps (-t), 0 when not known (RPC) */
	char freeze_cgroup[PATH_MAX]; /* --freeze-cgroup, "" when none is given */
	char img_parent[PATH_MAX];    /* --prev-images-dir as given, "" when none */
	char how[200];	    /* which layout or fallback, and why, for the log */
};

/*
 * Read criu's view. pid: a pid of the tree being dumped (the PAUSE argument), or 0 when
 * unknown (exit hook); dirfd: criu_get_image_dir(), or -1. Never fails: see view->known /
 * from_cmdline.
 */
void cs_criu_view_read(struct cs_criu_view *v, pid_t pid, int dirfd);

/*
 * init(DUMP), before criu seizes anything: read criu's view as far as it can be known yet (the
 * tree is not seized, so a layout passes without the tree check and is not trusted for later).
 */
void cs_criu_view_read_init(struct cs_criu_view *v, int dirfd);

/*
 * o->criu_options: read criu's private options (CS_AUTO, CS_YES) or never (CS_NO: the command
 * line and what criu observably does to the tasks only). Set once, at init.
 */
void cs_criu_opts_configure(const struct cs_options *o);

/*
 * 1 when criu will leave the dumped tree running (so the plugin must resume the GPU state), 0
 * when it will not, CS_CRIU_LR_WATCH when it cannot be read from criu's options: the helper
 * then watches what criu does to the tasks once it lets them go (docs/design.md, "exit(DUMP,
 * ret): rollback"). The leave_running option overrides.
 */
#define CS_CRIU_LR_WATCH 2
int cs_criu_leave_running(const struct cs_options *o, int dirfd);

/*
 * PAUSE_DEVICES, before anything else: refuse the CRIU modes the plugin cannot serve
 * (--stream, --lazy-pages, --page-server) for a process that uses the CUDA driver, or may: one
 * whose use cannot be read from /proc (cs_procfs_cuda_driver).
 * dirfd: criu_get_image_dir().
 * Returns 0, or -EINVAL after logging why and what to do (not -ENOTSUP/-EOPNOTSUPP: CRIU
 * reads that as "not this plugin's process" and dumps on without the GPU state).
 */
int cs_criu_refuse_unsupported(int pid, int dirfd);

/* Testing hooks (tests/criu): validate a layout against a fake options block. */
int cs_criu_layout_check(const struct cs_criu_layout *l, const unsigned char *base, pid_t pid, int dirfd,
			 char *why, size_t whylen);
/* Read v through layout l from the options block base (as criu's own options are read). */
void cs_criu_layout_read(struct cs_criu_view *v, const struct cs_criu_layout *l, const unsigned char *base);
/* Parse a criu argv (NUL-separated, as /proc/self/cmdline) into v; false if not a criu dump. */
bool cs_criu_parse_cmdline(const char *buf, size_t len, struct cs_criu_view *v);
/* Whether criu version ver ("4.3") is one of list ("4.0|4.1.": prefixes; "4.3." matches 4.3). */
bool cs_criu_version_matches(const char *list, const char *ver);
/* The checked-in layouts, terminated by an entry with what == NULL. */
extern const struct cs_criu_layout cs_criu_layout_table[];

#endif /* CUDASTORE_CRIU_OPTS_H */
