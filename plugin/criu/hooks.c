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
#include <unistd.h>

#include "criu-plugin.h"
#include "criu_opts.h"
#include "freezer.h"
#include "helper_link.h"
#include "log.h"
#include "wire.h"

#define CS_PUBLIC    __attribute__((visibility("default")))
#define CS_MAX_HOOKS	     12 /* CRIU 4.0 and 4.1 */
#define CS_HOOK_POST_FORKING 12 /* CR_PLUGIN_HOOK__POST_FORKING of CRIU 4.2's header */
#define CS_MAX_HOOKS_42	     (CS_HOOK_POST_FORKING + 1) /* CRIU 4.2 and later */
#define CS_HOOK_SLOTS	     (sizeof(CR_PLUGIN_DESC.hooks) / sizeof(CR_PLUGIN_DESC.hooks[0]))
#define PLUGIN_NAME  "cudastore"

extern void set_compel_interrupt_only_mode(void) __attribute__((weak));
extern bool check_and_remove_inventory_plugin(const char *name, size_t n) __attribute__((weak));
extern int add_inventory_plugin(const char *name) __attribute__((weak));
/* exported by criu since 4.2 (VMA guard regions, the release that added POST_FORKING); its
 * address is only tested, it is never called */
extern void collect_madv_guards(void) __attribute__((weak));

struct cs_plugin {
	int stage;
	bool disabled; /* no GPU work for us: every hook says -ENOTSUP */
	bool paused;   /* a PAUSE reached the helper: exit must tell it criu's final state */
	bool freezer;  /* criu keeps its cgroup freezer: no CUDA process may appear (freezer.h) */
	char freeze_cgroup[PATH_MAX];
	struct cs_options opt;
	struct cs_link link;
};

static struct cs_plugin *pl;

/* criu must stay single-threaded (setns into a container's mount namespace): say so per hook */
static void note_threads(const char *where)
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

/* init(DUMP), before the helper starts: may criu keep its cgroup freezer? (freezer.h) */
static bool freezer_may_keep(struct cs_plugin *p)
{
	struct cs_criu_view v;
	char why[320];
	bool keep;

	cs_criu_view_read_init(&v, criu_get_image_dir());
	keep = cs_freezer_may_keep(&v, why, sizeof(why));
	if (keep)
		snprintf(p->freeze_cgroup, sizeof(p->freeze_cgroup), "%s", v.freeze_cgroup);
	cs_info("seizing: %s: %s", keep ? "criu keeps its cgroup freezer" : "thread by thread", why);
	return keep;
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

static int cudastore_init(int stage)
{
	bool keep_freezer = false;
	char err[512];
	int ret;

	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -1;
	pl->stage = stage;
	pl->link.sock = -1;
	note_threads("init");
	if (cs_options_load(&pl->opt, err, sizeof(err))) {
		cs_err("bad configuration: %s", err);
		goto err_free;
	}
	cs_criu_opts_configure(&pl->opt);
	if (stage == CR_PLUGIN_STAGE__DUMP)
		keep_freezer = freezer_may_keep(pl);
	if (stage == CR_PLUGIN_STAGE__RESTORE && !images_need_us()) {
		cs_debug("images hold no GPU state; plugin idle");
		pl->disabled = true;
		return 0;
	}
	ret = cs_link_start(&pl->link, stage, &pl->opt,
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

static void cudastore_exit(int stage, int ret)
{
	if (!pl)
		return;
	note_threads("exit");
	/*
	 * The images dir is still open in exit(DUMP), already closed in exit(RESTORE). Without a
	 * PAUSE the helper touched nothing and criu's final state does not matter (nor can its
	 * options be checked against a tree criu never seized).
	 */
	if (stage == CR_PLUGIN_STAGE__DUMP && !pl->disabled)
		cs_link_call(&pl->link, CS_W_FINISH, 0, pl->paused ? leave_running(pl) : 0, ret,
			     criu_get_image_dir(), NULL);
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
	int ret;

	if (!pl || pl->disabled)
		return -ENOTSUP;
	if (pl->freezer)
		return cs_freezer_check_late(pid, pl->freeze_cgroup);
	if (cs_criu_refuse_unsupported(pid, criu_get_image_dir()))
		return -EINVAL;
	note_threads("pause");
	pl->paused = true;
	ret = cs_link_call(&pl->link, CS_W_PAUSE, pid, (int32_t)alarm_cap_ms(), 0,
			   criu_get_image_dir(), &flags);
	/* the helper asks once per dump, with the first CUDA process */
	if ((flags & CS_WF_INVENTORY) && add_inventory_plugin && add_inventory_plugin(PLUGIN_NAME))
		cs_warn("pid %d: CRIU could not record %s in its inventory", pid, PLUGIN_NAME);
	return ret;
}

static int cudastore_checkpoint_devices(int pid)
{
	if (!pl || pl->disabled || pl->stage != CR_PLUGIN_STAGE__DUMP)
		return -ENOTSUP;
	if (pl->freezer)
		return cs_freezer_check_late(pid, pl->freeze_cgroup);
	note_threads("checkpoint");
	return cs_link_call(&pl->link, CS_W_CHECKPOINT, pid, 0, 0, criu_get_image_dir(), NULL);
}

static int cudastore_resume_devices_late(int pid)
{
	int ret;

	if (!pl || pl->disabled || pl->stage != CR_PLUGIN_STAGE__RESTORE)
		return -ENOTSUP;
	note_threads("resume");
	ret = cs_link_call(&pl->link, CS_W_RESTORE, pid, 0, 0, criu_get_image_dir(), NULL);
	if (ret == -EIO) {
		/* CRIU ignores this hook's result: never let it resume a half-restored process */
		cs_err("pid %d: killing it: its GPU state could not be restored", pid);
		kill(pid, SIGKILL);
	}
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
	cs_link_call(&pl->link, CS_W_PREFETCH, 0, 0, 0, criu_get_image_dir(), NULL);
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
