// SPDX-License-Identifier: MIT
/*
 * hooks.c - what CRIU sees: the descriptor, init/exit and three device hooks.
 *
 * This is criu's side of the plugin. It never loads libcuda or NVML: every driver call runs in
 * cudastore-helper (helper_main.c), which init starts and each hook forwards to (wire.h).
 * criu keeps what only it can do: CRIU's inventory, its timeout and leave-running decision,
 * the images-directory fd, and ptrace control of the target's restore thread (helper_link.c).
 *
 * max_hooks is 12 (hooks up to CHECKPOINT_DEVICES) unless the criu that loads us is 4.2 or
 * newer: CRIU rejects a plugin whose max_hooks exceeds its own, before init, and 4.0/4.1 have 12.
 * A constructor, which runs in dlopen before criu reads the descriptor, looks for a symbol the
 * criu binary exports since 4.2 and only then sets max_hooks to 13 with POST_FORKING, where the
 * restore prefetch starts (docs/design.md, "CRIU version compatibility").
 * Every hook answers -ENOTSUP for a process that is not ours, so plugins loaded after us
 * still see it (run_plugins stops at the first other answer, including 0).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "criu-plugin.h"
#include "criu_opts.h"
#include "criu_run.h"
#include "freezer.h"
#include "helper_link.h"
#include "helper_path.h"
#include "log.h"
#include "log_criu.h"
#include "procfs.h"
#include "wire.h"

#define CS_PUBLIC    __attribute__((visibility("default")))
#define CS_MAX_HOOKS	     12 /* CRIU 4.0 and 4.1 */
#define CS_HOOK_POST_FORKING 12 /* CR_PLUGIN_HOOK__POST_FORKING of CRIU 4.2's header */
#define CS_MAX_HOOKS_42	     (CS_HOOK_POST_FORKING + 1) /* CRIU 4.2 and later */
#define CS_HOOK_SLOTS	     (sizeof(CR_PLUGIN_DESC.hooks) / sizeof(CR_PLUGIN_DESC.hooks[0]))
#define PLUGIN_NAME  "cudastore"
#define PAUSE_GRACE_MS	     5000 /* PAUSE's answer after the lock's own bound (alarm_cap_ms) */

extern void set_compel_interrupt_only_mode(void) __attribute__((weak));
extern bool check_and_remove_inventory_plugin(const char *name, size_t n) __attribute__((weak));
extern int add_inventory_plugin(const char *name) __attribute__((weak));
/* exported by criu since 4.2 (VMA guard regions, the release that added POST_FORKING); its
 * address is only tested, it is never called */
extern void collect_madv_guards(void) __attribute__((weak));
/*
 * criu's run ids (criu/util.c, criu/image.c: char[RUN_ID_HASH_LENGTH], a UUID in text): this run's,
 * which a dump records in inventory.img, and at restore the one read back from it before plugins
 * are initialised (its first byte NO_DUMP_CRIU_RUN_ID when the inventory has none)
 */
extern char criu_run_id[] __attribute__((weak));
extern char dump_criu_run_id[] __attribute__((weak));
#define CRIU_RUN_ID_LEN	    (CS_CRIU_RUN_MAX + 1) /* RUN_ID_HASH_LENGTH */
#define NO_DUMP_CRIU_RUN_ID 0x7f

#define CS_MAX_TRACKED 256 /* processes one dump tracks (the helper's table holds as many) */

struct cs_plugin {
	int stage;
	bool disabled;	 /* no GPU work for us: every hook says -ENOTSUP */
	bool paused;	 /* a PAUSE reached the helper: exit must tell it criu's final state */
	bool recovered;	 /* the dump's helper died; a new one took its processes over (recover.h) */
	bool tree_ended; /* restore failed: every restored task was killed and reaped */
	bool freezer;	 /* criu keeps its cgroup freezer: no CUDA process may appear (freezer.h) */
	char freeze_cgroup[PATH_MAX];
	struct cs_options opt;
	struct cs_link link;
	unsigned ntracked;
	pid_t tracked[CS_MAX_TRACKED]; /* dump: the processes the helper took as CUDA ones */
	bool settled[CS_MAX_TRACKED];  /* recovery: its fate is decided (running again, or ended) */
};

static struct cs_plugin *pl;

/* criu must stay single-threaded (setns into a container's mount namespace): say so per hook */
static void log_criu_thread_count(const char *where)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (!d)
		return;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	if (n == 1)
		cs_debug("%s: criu has 1 thread", where);
	else
		cs_warn("%s: criu has %d threads (expected 1: a threaded criu cannot enter a "
			"container's mount namespace)",
			where, n);
}

/* Restore: claim our inventory entry; false means these images hold no GPU state of ours. */
static bool images_need_us(void)
{
	if (!check_and_remove_inventory_plugin)
		return true;
	return check_and_remove_inventory_plugin(PLUGIN_NAME, strlen(PLUGIN_NAME));
}

/*
 * The CRIU run id the helper ties the images to (imgset.h): a dump's own, a restore's the one
 * CRIU's inventory names; NULL when this criu does not tell (then nothing is checked, as before).
 */
static const char *criu_run(int stage)
{
	const char *run = stage == CR_PLUGIN_STAGE__RESTORE ? dump_criu_run_id : criu_run_id;
	size_t n;

	if (!run || stage == CR_PLUGIN_STAGE__PRE_DUMP)
		return NULL;
	n = strnlen(run, CRIU_RUN_ID_LEN);
	if (n && run[0] != NO_DUMP_CRIU_RUN_ID && n < CRIU_RUN_ID_LEN && cs_criu_run_ok(run, n))
		return run;
	cs_debug("criu names no run id of %s dump",
		 stage == CR_PLUGIN_STAGE__RESTORE ? "the restored" : "this");
	return NULL;
}

/* init(DUMP), before the helper starts: may criu keep its cgroup freezer? (freezer.h) */
static bool freezer_may_keep(struct cs_plugin *p, const struct cs_criu_view *v)
{
	char why[512];
	bool keep;

	keep = cs_freezer_may_keep(v, why, sizeof(why));
	if (keep)
		snprintf(p->freeze_cgroup, sizeof(p->freeze_cgroup), "%s", v->freeze_cgroup);
	cs_info("seizing: %s: %s", keep ? "criu keeps its cgroup freezer" : "thread by thread", why);
	return keep;
}

/* init(DUMP): criu's --prev-images-dir goes to the helper with the options (a chunked parent) */
static void take_prev_images(struct cs_plugin *p, const struct cs_criu_view *v)
{
	if (!v->img_parent[0])
		return;
	if (strlen(v->img_parent) >= sizeof(p->opt.criu_parent)) {
		cs_warn("criu's --prev-images-dir '%.80s...' is too long to name a GPU parent: the GPU "
			"chunks are dumped in full; give a shorter relative path",
			v->img_parent);
		return;
	}
	snprintf(p->opt.criu_parent, sizeof(p->opt.criu_parent), "%s", v->img_parent);
	cs_debug("criu's --prev-images-dir: %s (read from %s)", v->img_parent, v->how);
}

/* init(DUMP): criu's view, read once before the helper starts */
static bool read_dump_view(struct cs_plugin *p)
{
	struct cs_criu_view v;

	cs_criu_view_read_init(&v, criu_get_image_dir());
	take_prev_images(p, &v);
	return freezer_may_keep(p, &v);
}

/*
 * A cgroup freezer would freeze the driver's restore thread too: a tree with a CUDA process is
 * seized with ptrace interrupts (interrupt-only mode), a tree without one keeps the freezer.
 */
static void pick_seizing(struct cs_plugin *p, bool keep_freezer)
{
	if (keep_freezer)
		p->freezer = true;
	else if (set_compel_interrupt_only_mode)
		set_compel_interrupt_only_mode();
}

/* cs_options_notes' lines into criu's log (the options never log) */
static void log_option_note(void *arg, bool warn, const char *text)
{
	cs_log_text(warn ? CS_LOG_WARN : CS_LOG_INFO, text);
}

static int cudastore_init(int stage)
{
	bool keep_freezer = false;
	char err[512];
	int ret;

	cs_log_to_criu(); /* first: every line of the plugin goes to criu's log */
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -1;
	pl->stage = stage;
	pl->link.sock = -1;
	log_criu_thread_count("init");
	ret = cs_options_load(&pl->opt, err, sizeof(err));
	cs_options_notes(&pl->opt, log_option_note, NULL);
	if (ret) {
		cs_err("bad configuration: %s", err);
		goto err_free;
	}
	cs_criu_opts_configure(&pl->opt);
	if (stage == CR_PLUGIN_STAGE__DUMP)
		keep_freezer = read_dump_view(pl);
	if (stage == CR_PLUGIN_STAGE__RESTORE && !images_need_us()) {
		cs_debug("images hold no GPU state; plugin idle");
		pl->disabled = true;
		return 0;
	}
	ret = cs_link_start(&pl->link, stage, &pl->opt, criu_run(stage),
			    stage == CR_PLUGIN_STAGE__DUMP ? criu_get_image_dir() : -1, &pl->disabled);
	if (ret)
		goto err_free; /* criu calls no exit for a plugin whose init failed */
	if (pl->disabled && stage == CR_PLUGIN_STAGE__RESTORE)
		goto err_stop; /* the images need a driver the helper could not use (it said why) */
	if (pl->disabled) /* no driver here (the helper said why): nothing for it to do */
		cs_link_stop(&pl->link);
	if (stage == CR_PLUGIN_STAGE__DUMP && !pl->disabled)
		pick_seizing(pl, keep_freezer);
	return 0;

err_stop:
	cs_link_stop(&pl->link);
err_free:
	free(pl);
	pl = NULL;
	return -1;
}

/* FINISH's arg: leave running 1, not 0, or CS_FINISH_WATCH: the helper watches the tasks */
static int32_t leave_running(const struct cs_plugin *p)
{
	int lr = cs_criu_leave_running(&p->opt, criu_get_image_dir());

	return lr == CS_CRIU_LR_WATCH ? CS_FINISH_WATCH : lr;
}

static void track(struct cs_plugin *p, pid_t pid, bool ours)
{
	unsigned i;

	for (i = 0; i < p->ntracked && p->tracked[i] != pid; i++)
		;
	if (ours && i == p->ntracked && i < CS_MAX_TRACKED)
		p->tracked[p->ntracked++] = pid;
	else if (!ours && i < p->ntracked)
		p->tracked[i] = p->tracked[--p->ntracked];
}

/* A new helper for the recovery; 0 or -errno (said why). */
static int recovery_helper(struct cs_plugin *p)
{
	bool disabled = false;

	cs_link_stop(&p->link);
	if (cs_link_start(&p->link, CR_PLUGIN_STAGE__DUMP, &p->opt, criu_run(CR_PLUGIN_STAGE__DUMP), -1,
			  &disabled) ||
	    disabled) {
		cs_err("no new %s could be started: the processes it had paused may stay locked or "
		       "checkpointed and block in their next CUDA call",
		       CS_HELPER_NAME);
		return -EIO;
	}
	return 0;
}

#define RECOVER_TRIES 3 /* helpers that may die recovering one process before it is ended */
/*
 * A recovery's bound without progress: at most this, or op_timeout_s when that is lower. The
 * dump already waited op_timeout_s for these processes; a driver that answers is back within
 * milliseconds, and a restore that moves reports its progress.
 */
#define RECOVER_STALL_MS 10000u

static unsigned recover_stall_ms(const struct cs_plugin *p)
{
	unsigned t = cs_link_op_timeout_ms(&p->opt);

	return t && t < RECOVER_STALL_MS ? t : RECOVER_STALL_MS;
}

/*
 * The process's end, when no helper could bring it back: it must not hang in its next CUDA
 * call, and its descendants are not left behind as orphans.
 */
static void end_tracked(struct cs_plugin *p, unsigned i, const char *why)
{
	int n = cs_procfs_kill_tree(p->tracked[i]);

	cs_err("pid %d: %s; killing it%s so that it does not hang in its next CUDA call", p->tracked[i], why,
	       n > 1 ? " and its descendants" : "");
	p->settled[i] = true;
}

/* What the at-once recovery reported of pid (RECOVERED): -ENOENT when it said nothing. */
static int fate_of(const struct cs_link *l, pid_t pid)
{
	for (unsigned i = 0; i < l->nfate; i++)
		if (l->fate[i].pid == pid)
			return l->fate[i].ret;
	return -ENOENT;
}

/*
 * The at-once recovery's helper was stopped: each process it reported decided is settled; those
 * it was still working on, when it was stopped for making no progress, did not move for
 * op_timeout_s (their driver does not answer) and are ended; the rest go one at a time.
 */
static void settle_reported(struct cs_plugin *p)
{
	char why[160];

	snprintf(why, sizeof(why), "its CUDA driver did not answer the recovery for %.0f s",
		 recover_stall_ms(p) / 1000.0);
	for (unsigned i = 0; i < p->ntracked; i++) {
		int fate = fate_of(&p->link, p->tracked[i]);

		if (fate != -ENOENT && fate != -EINPROGRESS)
			p->settled[i] = true;
		else if (fate == -EINPROGRESS && p->link.timed_out)
			end_tracked(p, i, why);
	}
}

/*
 * Several processes: a new helper is told each one, then recovers them all at once in the pid-0
 * request (the driver restores different processes concurrently), reporting each one's fate as
 * it is decided. True when it answered; else the caller goes one process at a time through those
 * still unsettled.
 */
static bool recover_at_once(struct cs_plugin *p, unsigned flags, int dirfd, unsigned timeout)
{
	unsigned i;

	if (recovery_helper(p))
		return false;
	p->link.nfate = 0;
	for (i = 0; i < p->ntracked && !p->link.dead; i++)
		cs_link_call(&p->link, CS_W_RECOVER, p->tracked[i], flags | CS_RECOVER_GATHER, 0, dirfd, NULL,
			     timeout);
	if (!p->link.dead)
		cs_link_call(&p->link, CS_W_RECOVER, 0, flags | CS_RECOVER_GATHER, 0, dirfd, NULL, timeout);
	if (!p->link.dead)
		return true;
	settle_reported(p);
	for (i = 0; i < p->ntracked && p->settled[i]; i++)
		;
	if (i < p->ntracked)
		cs_warn("the recovery of the %u processes at once did not finish; one process at a time now",
			p->ntracked);
	return false;
}

/* One process with helpers of its own until it is settled; false when no helper starts. */
static bool recover_alone(struct cs_plugin *p, unsigned i, unsigned flags, int dirfd, unsigned timeout)
{
	char why[160];

	for (unsigned t = 0; t < RECOVER_TRIES; t++) {
		if (p->link.dead && recovery_helper(p))
			return false;
		cs_link_call(&p->link, CS_W_RECOVER, p->tracked[i], flags, 0, dirfd, NULL, timeout);
		if (!p->link.dead) {
			p->settled[i] = true; /* its fate is logged by the helper */
			return true;
		}
		if (p->link.timed_out) {
			snprintf(why, sizeof(why), "its CUDA driver did not answer the recovery for %.0f s",
				 recover_stall_ms(p) / 1000.0);
			end_tracked(p, i, why);
			return true;
		}
	}
	snprintf(why, sizeof(why),
		 "%u %ss in a row died while recovering it (see the system log: the "
		 "OOM killer?)",
		 RECOVER_TRIES, CS_HELPER_NAME);
	end_tracked(p, i, why);
	return true;
}

/*
 * The dump's helper died (killed, or stopped for making no progress): a new one brings every
 * process it had touched back to running, or ends the ones whose GPU memory is lost (recover.h).
 * keep: the dump had succeeded and criu leaves the processes running: its images stay.
 */
static void recover(struct cs_plugin *p, bool keep)
{
	unsigned timeout = recover_stall_ms(p), flags = keep ? CS_RECOVER_KEEP : 0;
	int dirfd = criu_get_image_dir();

	if (p->recovered)
		return;
	p->recovered = true;
	memset(p->settled, 0, sizeof(p->settled));
	cs_warn("taking over the %u CUDA process(es) of this dump with a new %s", p->ntracked,
		CS_HELPER_NAME);
	if (p->ntracked > 1 && recover_at_once(p, flags, dirfd, timeout))
		return;
	/* one at a time, a new helper whenever one dies: a process whose driver does not answer is
	 * found, and ended */
	for (unsigned i = 0; i < p->ntracked; i++)
		if (!p->settled[i] && !recover_alone(p, i, flags, dirfd, timeout))
			return;
	if (p->link.dead && recovery_helper(p))
		return;
	cs_link_call(&p->link, CS_W_RECOVER, 0, flags, 0, dirfd, NULL, timeout);
}

static void cudastore_exit(int stage, int ret)
{
	if (!pl)
		return;
	log_criu_thread_count("exit");
	/*
	 * The images dir is still open in exit(DUMP), already closed in exit(RESTORE). Without a
	 * PAUSE the helper touched nothing and criu's final state does not matter (nor can its
	 * options be checked against a tree criu never seized).
	 */
	if (stage == CR_PLUGIN_STAGE__DUMP && !pl->disabled && !pl->recovered) {
		int lr = pl->paused ? leave_running(pl) : 0;

		cs_link_call(&pl->link, CS_W_FINISH, 0, lr, ret, criu_get_image_dir(), NULL,
			     cs_link_op_timeout_ms(&pl->opt));
		/* nothing to take over when the tree is dumped and criu kills it */
		if (pl->link.dead && (ret || lr))
			recover(pl, !ret);
		else if (pl->link.dead)
			cs_warn("the dump had succeeded before that: its images are complete and restore "
				"the tree, which criu now kills as asked; nothing was lost");
	}
	cs_link_stop(&pl->link);
	free(pl);
	pl = NULL;
}

/*
 * PAUSE runs under criu's --timeout alarm; a lock that outlives it gets criu killed by BUG().
 * alarm(0) tells the seconds left without needing criu's private option struct. The helper
 * gets the milliseconds the lock may take at most (0: no alarm) and spends part of them on
 * set-up before the lock (dump.c, lock_timeout).
 */
static unsigned alarm_cap_ms(void)
{
	unsigned left = alarm(0);

	if (!left) /* no alarm running (criu without --timeout handling) */
		return 0;
	alarm(left);
	/* alarm() rounds up: keep a margin so the lock gives up before criu's alarm fires */
	return left * 1000 > 1500 ? left * 1000 - 1000 : 500;
}

static int cudastore_pause_devices(int pid)
{
	uint32_t flags;
	unsigned cap;
	int ret;

	if (!pl || pl->disabled)
		return -ENOTSUP;
	if (pl->freezer)
		return cs_freezer_check_late(pid, pl->freeze_cgroup);
	if (cs_criu_refuse_unsupported(pid, criu_get_image_dir()))
		return -EINVAL;
	log_criu_thread_count("pause");
	if (pl->recovered)
		return -EIO; /* the dump's helper died: it fails */
	pl->paused = true;
	cap = alarm_cap_ms();
	track(pl, pid, true); /* until the helper says it is not a CUDA process */
	/* the lock is bounded by what criu's alarm leaves: the answer comes a little after */
	if (cap)
		ret = cs_link_call_within(&pl->link, CS_W_PAUSE, pid, (int32_t)cap, 0, criu_get_image_dir(),
					  &flags, cap + PAUSE_GRACE_MS);
	else
		ret = cs_link_call(&pl->link, CS_W_PAUSE, pid, 0, 0, criu_get_image_dir(), &flags,
				   cs_link_op_timeout_ms(&pl->opt));
	if (ret == -ENOTSUP)
		track(pl, pid, false);
	if (pl->link.dead) {
		recover(pl, false);
		return -EIO;
	}
	/* the helper asks once per dump, with the first CUDA process */
	if ((flags & CS_WF_INVENTORY) && add_inventory_plugin && add_inventory_plugin(PLUGIN_NAME))
		cs_warn("pid %d: CRIU could not record %s in its inventory", pid, PLUGIN_NAME);
	return ret;
}

static int cudastore_checkpoint_devices(int pid)
{
	int ret;

	if (!pl || pl->disabled || pl->stage != CR_PLUGIN_STAGE__DUMP)
		return -ENOTSUP;
	if (pl->freezer)
		return cs_freezer_check_late(pid, pl->freeze_cgroup);
	log_criu_thread_count("checkpoint");
	if (pl->recovered)
		return -EIO;
	ret = cs_link_call(&pl->link, CS_W_CHECKPOINT, pid, 0, 0, criu_get_image_dir(), NULL,
			   cs_link_op_timeout_ms(&pl->opt));
	if (pl->link.dead)
		recover(pl, false);
	return ret;
}

/*
 * A failed restore: no process of the tree may run. Every task criu restored (its tracees) is
 * killed and reaped here, by criu, their tracer: a killed pid-namespace init waits until every
 * process of its namespace is reaped, and a killed tracee is reaped only once its tracer has
 * waited for it, so criu, waiting for that init after the failed detach, would wait forever.
 */
static void end_restored_tree(void)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	pid_t *tree = NULL;
	int n, i, st;

	if (pl->tree_ended)
		return;
	pl->tree_ended = true;
	n = cs_procfs_traced_by(getpid(), NULL, 0);
	if (n > 0)
		tree = calloc((size_t)n + 64, sizeof(*tree));
	n = tree ? cs_procfs_traced_by(getpid(), tree, (unsigned)n + 64) : 0;
	for (i = 0; tree && i < n; i++)
		kill(tree[i], SIGKILL);
	free(tree);
	for (i = 0; i < 1000; i++) { /* at most ~10 s */
		pid_t w = waitpid(-1, &st, __WALL | WNOHANG);

		if (w > 0)
			continue;
		if ((w < 0 && errno == ECHILD) || cs_procfs_traced_by(getpid(), NULL, 0) <= 0)
			break;
		nanosleep(&pause, NULL);
	}
	cs_err("the restore failed: every process of the tree was ended (%d), none runs", n);
}

static int cudastore_resume_devices_late(int pid)
{
	int ret;

	if (!pl || pl->disabled || pl->stage != CR_PLUGIN_STAGE__RESTORE)
		return -ENOTSUP;
	log_criu_thread_count("resume");
	if (pl->tree_ended)
		return -ECANCELED;
	ret = cs_link_call(&pl->link, CS_W_RESTORE, pid, 0, 0, criu_get_image_dir(), NULL,
			   cs_link_op_timeout_ms(&pl->opt));
	if (ret == -EIO)
		/* CRIU ignores this hook's result: never let it resume a half-restored process */
		cs_err("pid %d: killing it and its tree: its GPU state could not be restored", pid);
	if (ret && ret != -ENOTSUP)
		end_restored_tree();
	return ret;
}

/*
 * CRIU >= 4.2, while it still restores memory and files: let the helper set up the GPU phase
 * ahead (warmup.h: cuInit, contexts, pinned buffers) and, with prefetch on, start reading and
 * verifying the extents (prefetch.c). Always -ENOTSUP: this hook has no pid, so other plugins
 * get it too, and nothing here may fail a restore (set-up that does not happen only costs time).
 */
static int cudastore_post_forking(void)
{
	if (!pl || pl->disabled || pl->stage != CR_PLUGIN_STAGE__RESTORE)
		return -ENOTSUP;
	cs_link_call(&pl->link, CS_W_PREFETCH, 0, 0, 0, criu_get_image_dir(), NULL,
		     cs_link_op_timeout_ms(&pl->opt));
	return -ENOTSUP;
}

CS_PUBLIC cr_plugin_desc_t CR_PLUGIN_DESC = {
	.name = PLUGIN_NAME,
	.init = cudastore_init,
	.exit = cudastore_exit,
	.version = CRIU_PLUGIN_VERSION,
	.max_hooks = CS_MAX_HOOKS,
	.hooks = {
		[CR_PLUGIN_HOOK__RESUME_DEVICES_LATE] = cudastore_resume_devices_late,
		[CR_PLUGIN_HOOK__PAUSE_DEVICES] = cudastore_pause_devices,
		[CR_PLUGIN_HOOK__CHECKPOINT_DEVICES] = cudastore_checkpoint_devices,
	},
};

_Static_assert(CS_MAX_HOOKS == CR_PLUGIN_HOOK__CHECKPOINT_DEVICES + 1, "max_hooks covers our hooks");

/*
 * Runs in criu's dlopen, before criu reads max_hooks (see the top). A build against a 4.0/4.1
 * header (hook table of 12) never offers POST_FORKING.
 */
__attribute__((constructor)) static void cs_pick_max_hooks(void)
{
	void **hooks = CR_PLUGIN_DESC.hooks;

	if (!collect_madv_guards || CS_HOOK_SLOTS < CS_MAX_HOOKS_42)
		return;
	CR_PLUGIN_DESC.max_hooks = CS_MAX_HOOKS_42;
	hooks[CS_HOOK_POST_FORKING] = (void *)cudastore_post_forking;
}
