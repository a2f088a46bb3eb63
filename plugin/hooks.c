// SPDX-License-Identifier: MIT
/*
 * hooks.c - what CRIU sees: the descriptor, init/exit and three device hooks. Dispatch only.
 *
 * max_hooks is 12 on purpose (hooks up to CHECKPOINT_DEVICES): CRIU rejects a plugin whose
 * max_hooks exceeds its own, so 12 loads on CRIU 4.0 through 4.2.x (criu-plugin-abi §1.4).
 * Every hook answers -ENOTSUP for a process that is not ours, so plugins loaded after us
 * still see it (run_plugins stops at the first other answer, including 0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "criu-plugin.h"
#include "context.h"
#include "criu_opts.h"
#include "devices.h"
#include "dump.h"
#include "log.h"
#include "restore.h"

#define CS_PUBLIC    __attribute__((visibility("default")))
#define CS_MAX_HOOKS 12

extern void set_compel_interrupt_only_mode(void) __attribute__((weak));
extern bool check_and_remove_inventory_plugin(const char *name, int n) __attribute__((weak));

static struct cs_ctx *ctx; /* the one plugin context */

static const char *stage_name(int stage)
{
	return stage == CR_PLUGIN_STAGE__DUMP	   ? "dump"
	       : stage == CR_PLUGIN_STAGE__RESTORE ? "restore"
						   : "pre-dump";
}

/* Restore: claim our inventory entry; false means these images hold no GPU state of ours. */
static bool images_need_us(void)
{
	if (!check_and_remove_inventory_plugin)
		return true;
	return check_and_remove_inventory_plugin("cudastore", strlen("cudastore"));
}

static int load_driver(void)
{
	char err[512];

	if (cs_cuda_load(&ctx->cuda, ctx->opt.libcuda[0] ? ctx->opt.libcuda : NULL, err, sizeof(err))) {
		if (ctx->stage == CS_STAGE_RESTORE) {
			cs_err(
			    "the images hold CUDA GPU state but the driver cannot be used: %s. Install the "
			    "NVIDIA driver (or set CUDASTORE_LIBCUDA) and restore again",
			    err);
			return -1;
		}
		cs_info("plugin disabled: %s (no CUDA processes can be checkpointed)", err);
		ctx->disabled = true;
		return 0;
	}
	ctx->cuda_loaded = true;
	if (!ctx->cuda.has_checkpoint) {
		cs_warn(
		    "driver CUDA %d (%s) has no checkpoint API (needs R570+ / CUDA 12.8); plugin disabled",
		    ctx->cuda.driver_version, ctx->cuda.path);
		ctx->disabled = true;
		return ctx->stage == CS_STAGE_RESTORE ? -1 : 0;
	}
	return 0;
}

static int cudastore_init(int stage)
{
	char err[512];

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -1;
	ctx->stage = stage;
	if (cs_options_load(&ctx->opt, err, sizeof(err))) {
		cs_err("bad configuration: %s", err);
		goto err_free;
	}
	if (stage == CR_PLUGIN_STAGE__RESTORE && !images_need_us()) {
		cs_debug("images hold no GPU state; plugin idle");
		ctx->disabled = true;
		return 0;
	}
	if (load_driver())
		goto err_free; /* criu calls no exit for a plugin whose init failed */
	if (ctx->disabled)
		return 0;
	/* a cgroup freezer would freeze the driver's restore thread too: use ptrace interrupts */
	if (stage == CR_PLUGIN_STAGE__DUMP && set_compel_interrupt_only_mode)
		set_compel_interrupt_only_mode();
	cs_info("%s %s: %s stage; driver CUDA %d from %s, CustomStorage %s; mode %s (%s)", PACKAGE_NAME,
		PACKAGE_VERSION, stage_name(stage), ctx->cuda.driver_version, ctx->cuda.path,
		ctx->cuda.has_custom_storage ? "available" : "not available", cs_opt_mode_name(ctx->opt.mode),
		ctx->opt.source);
	return 0;

err_free:
	free(ctx);
	ctx = NULL;
	return -1;
}

static void cudastore_exit(int stage, int ret)
{
	if (!ctx)
		return;
	/* the images dir is still open in exit(DUMP), already closed in exit(RESTORE) */
	if (stage == CR_PLUGIN_STAGE__DUMP && !ctx->disabled)
		cs_dump_finish(ctx, ret, criu_get_image_dir());
	if (ctx->cuda_loaded) {
		cs_dev_release_all(ctx);
		cs_cuda_unload(&ctx->cuda);
	}
	free(ctx);
	ctx = NULL;
}

static int cudastore_pause_devices(int pid)
{
	if (!ctx || ctx->disabled)
		return -ENOTSUP;
	if (cs_criu_refuse_unsupported(pid, criu_get_image_dir()))
		return -EINVAL;
	return cs_dump_pause(ctx, pid, criu_get_image_dir());
}

static int cudastore_checkpoint_devices(int pid)
{
	if (!ctx || ctx->disabled || ctx->stage != CS_STAGE_DUMP)
		return -ENOTSUP;
	return cs_dump_checkpoint(ctx, pid, criu_get_image_dir());
}

static int cudastore_resume_devices_late(int pid)
{
	if (!ctx || ctx->disabled || ctx->stage != CS_STAGE_RESTORE)
		return -ENOTSUP;
	return cs_restore_process(ctx, pid, criu_get_image_dir());
}

CS_PUBLIC cr_plugin_desc_t CR_PLUGIN_DESC = {
	.name = "cudastore",
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
