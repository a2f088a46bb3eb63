// SPDX-License-Identifier: MIT
/*
 * test-emu-workload: cuda-workload runs as a daemon (not our child) with CUDA and CPU-only
 * children, only the CUDA processes have a driver thread, and SIGTERM gives PASS; a bad
 * option is refused.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"

static struct cs_cuda_ops cu;

static int ppid_of(int pid)
{
	char path[64], buf[512], *p;
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c %d", &ppid);
	fclose(f);
	return ppid;
}

/* children of pid, split by whether they have a CUDA driver thread */
static void count_children(int pid, int *cuda, int *cpu)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	*cuda = *cpu = 0;
	while (d && (de = readdir(d))) {
		int c = atoi(de->d_name), tid;

		if (c <= 0 || ppid_of(c) != pid)
			continue;
		if (cu.CheckpointProcessGetRestoreThreadId(c, &tid) == CUDA_SUCCESS)
			(*cuda)++;
		else if (cu.CheckpointProcessGetRestoreThreadId(c, &tid) == CUDA_ERROR_NOT_INITIALIZED)
			(*cpu)++;
	}
	if (d)
		closedir(d);
}

int main(void)
{
	const char *args[] = { "--daemon", "--fork-cuda", "2", "--fork-cpu", "1", "--buffers", "3", "--size", "2500k",
			       "--zero-percent", "50", "--seed", "5", NULL };
	char prog[512], cmd[700], out[256];
	struct emu_app app;
	int cuda = 0, cpu = 0, tid;

	emu_test_setup(NULL, &cu);
	if (emu_app_start(&app, NULL, args))
		tap_bail("cannot start the workload as a daemon");
	tap_ok(app.pid > 0 && ppid_of(app.pid) != getpid(), "--daemon: pid %d from the pidfile is not our child",
	       app.pid);
	tap_ok(cu.CheckpointProcessGetRestoreThreadId(app.pid, &tid) == CUDA_SUCCESS, "the root uses CUDA");
	count_children(app.pid, &cuda, &cpu);
	tap_ok(cuda == 2 && cpu == 1, "2 CUDA children and 1 CPU-only child (%d, %d)", cuda, cpu);
	usleep(300000);
	tap_ok(emu_app_stop(&app, out, sizeof(out)) == 0 && !strcmp(out, "PASS"), "SIGTERM: %s", out);
	snprintf(cmd, sizeof(cmd), "%s --size 12q 2>/dev/null",
		 emu_test_path("tests/workload/cuda-workload", prog, sizeof(prog)));
	tap_ok(WEXITSTATUS(system(cmd)) == 2, "bad --size is refused with exit 2");
	{
		const char *bad[] = { "--size", "12q", NULL };
		struct emu_app gone;
		int rc, left;

		/* the exit handler must not keep a pointer to an app whose start failed */
		rc = emu_app_start(&gone, NULL, bad);
		left = emu_apps_tracked();
		tap_ok(rc == -1 && left == 0,
		       "a workload that exits before it is ready: start fails (%d), nothing left to kill at exit (%d)",
		       rc, left);
	}
	tap_plan(tap_n);
	return tap_done();
}
