// SPDX-License-Identifier: MIT
/* imgset.c - which cudastore files belong to this dump; processes the images lack (imgset.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "imgdir.h"
#include "imgset.h"
#include "log.h"
#include "rthread.h"

int cs_imgset_dump_begin(int dirfd)
{
	unsigned removed = 0;
	int ret;

	ret = cs_imgdir_remove_ours(dirfd, &removed);
	if (ret) {
		cs_err("cannot remove the cudastore files of an earlier dump from the images directory: %s. "
		       "A dump must not leave them next to its own: remove them, or dump into an empty "
		       "directory",
		       strerror(-ret));
		return ret;
	}
	if (removed)
		cs_info("removed %u cudastore file(s) of an earlier dump from the images directory", removed);
	return 0;
}

static const char *state_name(CUprocessState s)
{
	static const char *names[] = { "RUNNING", "LOCKED",	   "CHECKPOINTED",
				       "FAILED",  "CHECKPOINTING", "RESTORING" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "in an unknown state";
}

int cs_imgset_no_manifest(struct cs_ctx *ctx, pid_t pid, const char *name)
{
	struct cs_rthread rt = { 0 };
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	CUresult res;
	int tid, ret;

	if (ctx->cuda.CheckpointProcessGetRestoreThreadId(pid, &tid) != CUDA_SUCCESS)
		return -ENOTSUP; /* not a CUDA process: CRIU's alone */
	/* the driver answers through the restore thread: let it run (mask left as on restore) */
	ret = cs_rthread_run(&rt, tid, false);
	if (ret)
		return ret;
	res = ctx->cuda.CheckpointProcessGetState(pid, &st);
	ret = cs_rthread_stop(&rt);
	if (res == CUDA_SUCCESS && st == CU_PROCESS_STATE_RUNNING && !ret)
		return -ENOTSUP;
	if (res != CUDA_SUCCESS)
		cs_err("pid %d: a CUDA process without a manifest (%s missing from the images directory), and "
		       "its CUDA state cannot be read (%s): it cannot be resumed safely",
		       pid, name, cs_cuda_errname(&ctx->cuda, res));
	else
		cs_err("pid %d: the driver reports it %s and CRIU's inventory says the dump used cudastore, "
		       "but its manifest %s is missing from the images directory (deleted, or images "
		       "incomplete): its GPU state cannot be restored. Restore from a complete copy of the "
		       "images",
		       pid, state_name(st), name);
	return -ENOENT;
}
