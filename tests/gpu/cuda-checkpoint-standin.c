// SPDX-License-Identifier: MIT
/*
 * cuda-checkpoint-standin: the part of NVIDIA's cuda-checkpoint command line that CRIU's cuda
 * plugin uses, made of the same driver calls, for hosts without NVIDIA's binary. Put on PATH as
 * "cuda-checkpoint", it lets CRIU's plugin run against the real driver (or the emulator):
 *
 *   cuda-checkpoint -h | --help
 *   cuda-checkpoint --get-restore-tid --pid PID    prints the restore thread's tid
 *   cuda-checkpoint --get-state --pid PID          prints running|locked|checkpointed|failed
 *   cuda-checkpoint --action lock|checkpoint|restore|unlock --pid PID [--timeout MS]
 *
 * Like NVIDIA's tool, each run is one process start and exactly one checkpoint-API call:
 * libcuda is loaded with cs_cuda_load ($CUDASTORE_LIBCUDA, else libcuda.so.1), cuInit is not
 * called, checkpoint and restore are driver-managed (no CustomStorage arguments) and the lock
 * timeout is --timeout's milliseconds (0: none). Exit 0 on success; 1 with a message naming the
 * pid and the driver's error when the call fails; 2 on a usage error or when libcuda cannot be
 * loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"

#define STANDIN_NAME "cuda-checkpoint"

enum standin_cmd {
	STANDIN_NONE,
	STANDIN_HELP,
	STANDIN_GET_TID,
	STANDIN_GET_STATE,
	STANDIN_ACTION,
};

struct standin_args {
	enum standin_cmd cmd;
	const char *action; /* lock|checkpoint|restore|unlock with STANDIN_ACTION */
	int pid;
	unsigned int timeout_ms;
};

static const char standin_help[] =
    "CUDA checkpoint and restore utility (cudastore's stand-in for NVIDIA's cuda-checkpoint).\n"
    "Each run makes one call of the CUDA driver's checkpoint API on another process.\n"
    "\n"
    "    --get-restore-tid --pid <value>\n"
    "        Print the thread id of the process's CUDA restore thread.\n"
    "    --get-state --pid <value>\n"
    "        Print the CUDA state of the process: running, locked, checkpointed or failed.\n"
    "    --action <value> --pid <value> [--timeout <value>]\n"
    "        Run one checkpoint action on the process: lock, checkpoint, restore or unlock.\n"
    "        --timeout bounds the lock, in milliseconds (0: no limit).\n"
    "    -h, --help\n"
    "        Print this text.\n";

static int standin_usage(const char *why)
{
	fprintf(stderr, "%s: %s; run '%s --help' for the options\n", STANDIN_NAME, why, STANDIN_NAME);
	return -EINVAL;
}

static int standin_number(const char *text, long max, long *out)
{
	char *end;

	if (!text)
		return -EINVAL;
	errno = 0;
	*out = strtol(text, &end, 10);
	if (errno || end == text || *end || *out < 0 || *out > max)
		return -EINVAL;
	return 0;
}

static int standin_set_cmd(struct standin_args *a, enum standin_cmd cmd)
{
	if (a->cmd != STANDIN_NONE && a->cmd != cmd)
		return standin_usage("give one of --get-restore-tid, --get-state, --action");
	a->cmd = cmd;
	return 0;
}

static int standin_parse_one(struct standin_args *a, const char *opt, const char *val, int *used)
{
	long n;

	*used = 0;
	if (!strcmp(opt, "-h") || !strcmp(opt, "--help"))
		return standin_set_cmd(a, STANDIN_HELP);
	if (!strcmp(opt, "--get-restore-tid"))
		return standin_set_cmd(a, STANDIN_GET_TID);
	if (!strcmp(opt, "--get-state"))
		return standin_set_cmd(a, STANDIN_GET_STATE);
	*used = 1;
	if (!strcmp(opt, "--action")) {
		if (!val)
			return standin_usage("--action needs lock, checkpoint, restore or unlock");
		a->action = val;
		return standin_set_cmd(a, STANDIN_ACTION);
	}
	if (!strcmp(opt, "--pid")) {
		if (standin_number(val, 0x7fffffff, &n) || n == 0)
			return standin_usage("--pid needs a process id");
		a->pid = (int)n;
		return 0;
	}
	if (!strcmp(opt, "--timeout")) {
		if (standin_number(val, 0xffffffffL, &n))
			return standin_usage("--timeout needs milliseconds");
		a->timeout_ms = (unsigned int)n;
		return 0;
	}
	fprintf(stderr, "%s: unknown option '%s'\n", STANDIN_NAME, opt);
	return standin_usage("only -h, --get-restore-tid, --get-state, --action, --pid, --timeout exist");
}

/*
 * The process a --pid names. CRIU's cuda plugin asks --get-state with the id of the restore
 * thread; the driver's calls take a process id, so a thread id is taken for its thread group.
 * The id is kept when /proc cannot tell (the driver then answers for it).
 */
static int standin_tgid(int pid)
{
	char path[64], line[128];
	int tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : pid;
}

static int standin_parse(int argc, char **argv, struct standin_args *a)
{
	int i, used, ret;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i += 1 + used) {
		ret = standin_parse_one(a, argv[i], i + 1 < argc ? argv[i + 1] : NULL, &used);
		if (ret)
			return ret;
	}
	if (a->cmd == STANDIN_NONE)
		return standin_usage("nothing to do");
	if (a->cmd != STANDIN_HELP && !a->pid)
		return standin_usage("--pid is required");
	a->pid = standin_tgid(a->pid);
	if (a->cmd == STANDIN_ACTION && strcmp(a->action, "lock") && strcmp(a->action, "checkpoint") &&
	    strcmp(a->action, "restore") && strcmp(a->action, "unlock"))
		return standin_usage("--action is one of lock, checkpoint, restore, unlock");
	return 0;
}

static const char *standin_state_name(CUprocessState st)
{
	switch (st) {
	case CU_PROCESS_STATE_RUNNING:
		return "running";
	case CU_PROCESS_STATE_LOCKED:
		return "locked";
	case CU_PROCESS_STATE_CHECKPOINTED:
		return "checkpointed";
	case CU_PROCESS_STATE_FAILED:
		return "failed";
	default:
		return "unknown";
	}
}

/* the one driver call of an --action (checked by standin_parse) */
static CUresult standin_action(const struct cs_cuda_ops *cu, const struct standin_args *a)
{
	CUcheckpointLockArgs la = { 0 };

	la.timeoutMs = a->timeout_ms;
	if (!strcmp(a->action, "lock"))
		return cu->CheckpointProcessLock(a->pid, &la);
	if (!strcmp(a->action, "checkpoint"))
		return cu->CheckpointProcessCheckpoint(a->pid, NULL);
	if (!strcmp(a->action, "restore"))
		return cu->CheckpointProcessRestore(a->pid, NULL);
	return cu->CheckpointProcessUnlock(a->pid, NULL);
}

static int standin_run(const struct cs_cuda_ops *cu, const struct standin_args *a)
{
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	const char *what;
	CUresult res;
	int tid = 0;

	switch (a->cmd) {
	case STANDIN_GET_TID:
		what = "get the restore thread of";
		res = cu->CheckpointProcessGetRestoreThreadId(a->pid, &tid);
		if (res == CUDA_SUCCESS)
			printf("%d\n", tid);
		break;
	case STANDIN_GET_STATE:
		what = "get the CUDA state of";
		res = cu->CheckpointProcessGetState(a->pid, &st);
		if (res == CUDA_SUCCESS)
			printf("%s\n", standin_state_name(st));
		break;
	default:
		what = a->action;
		res = standin_action(cu, a);
		break;
	}
	if (res == CUDA_SUCCESS)
		return 0;
	fprintf(stderr, "Could not %s process %d: %s\n", what, a->pid, cs_cuda_errname(cu, res));
	return -EPROTO;
}

int main(int argc, char **argv)
{
	struct standin_args a;
	struct cs_cuda_ops cu;
	char err[256] = "";
	int ret;

	if (standin_parse(argc, argv, &a))
		return 2;
	if (a.cmd == STANDIN_HELP) {
		fputs(standin_help, stdout);
		return 0;
	}
	if (cs_cuda_load(&cu, NULL, err, sizeof(err)) || !cu.has_checkpoint) {
		fprintf(stderr, "%s: %s; the checkpoint API needs an NVIDIA driver of CUDA 12.8 or newer\n",
			STANDIN_NAME, err[0] ? err : "libcuda has no checkpoint API");
		return 2;
	}
	ret = standin_run(&cu, &a);
	fflush(stdout);
	return ret ? 1 : 0;
}
