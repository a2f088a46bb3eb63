/* SPDX-License-Identifier: MIT */
/*
 * emu-test.h - helpers for the emulator tests: configure the caller, start and stop the
 * workload as the "CUDA app", move CustomStorage data through host memory.
 *
 * The emulator reads its CUDASTORE_EMU_* configuration once per process, so a test sets its
 * own (caller) variables with emu_test_setup() before the first CUDA call, and gives each app
 * its own through emu_app_start()'s env list. Every app started is killed at exit, whatever
 * path the test takes.
 */
#ifndef CUDASTORE_EMU_TEST_H
#define CUDASTORE_EMU_TEST_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_ops.h"
#include "emu.h" /* EMU_VA_BASE */
#include "../tap.h"

/* build-tree path of a file: $top_builddir/rel */
const char *emu_test_path(const char *rel, char *buf, size_t len);
/* setenv each "K=V" (NULL-terminated list), point CUDASTORE_LIBCUDA/LIBNVML at the emulator
 * and load libcuda into cu; bails out on failure. */
void emu_test_setup(const char *const *env, struct cs_cuda_ops *cu);

struct emu_app {
	pid_t pid;
	bool is_child;
	char dir[64];
	char pidfile[96], ready[96], outfile[96], log[96];
};

/* Start cuda-workload with extra env ("K=V") and args; waits until ready. 0 or -1. */
int emu_app_start(struct emu_app *a, const char *const *env, const char *const *args);
/* SIGTERM, wait (10 s), read the outfile into out; returns the exit status or -1. */
int emu_app_stop(struct emu_app *a, char *out, size_t len);
void emu_app_kill(struct emu_app *a);
/* how many started apps the exit handler would kill (a failed start must leave none behind) */
int emu_apps_tracked(void);
/* Waits (up to ms) for a child app to die; returns its wait status or -1. */
int emu_app_wait(struct emu_app *a, int ms);
/* The app's memfd mappings: count and total bytes; name_out gets the one at addr (if any). */
int emu_app_maps(pid_t pid, size_t *bytes, unsigned long addr, char *name_out, size_t len);

/* CustomStorage data held by the test between checkpoint and restore */
struct emu_saved {
	unsigned int n;
	struct {
		CUuuid uuid;
		size_t size;
		unsigned char *data;
	} dev[8];
};

/* UUID of the device of an entry's stream (cuStreamGetCtx -> cuCtxGetDevice -> cuDeviceGetUuid) */
int emu_entry_uuid(const struct cs_cuda_ops *cu, CUstream stream, CUuuid *uuid, int *dev);
int emu_cs_save(const struct cs_cuda_ops *cu, const CUcheckpointCustomStorageInfo *info, struct emu_saved *s);
/* Copies saved data into the restore entries, finding the source through pairs (new -> old). */
int emu_cs_load(const struct cs_cuda_ops *cu, const CUcheckpointCustomStorageInfo *info,
		const struct emu_saved *s, const CUcheckpointGpuPair *pairs, unsigned int npairs);
void emu_saved_free(struct emu_saved *s);
bool emu_uuid_eq(const CUuuid *a, const CUuuid *b);

/* ---- several targets at once ---- */
double emu_test_now(void); /* CLOCK_MONOTONIC, seconds */
/* Runs fn(args + i * size) for i < n, each in its own thread, all at once; wall seconds, or -1. */
double emu_test_parallel(void *(*fn)(void *), void *args, size_t size, int n);
/* tests/e2e/lib.sh's tr_overlap TRACE NAME N, run by bash: its exit status (0: they overlapped). */
int emu_test_tr_overlap(const char *trace, const char *name, int n);
/* tests/e2e/lib.sh's tr_span TRACE NAME, printed as a TAP comment */
void emu_test_tr_span(const char *trace, const char *name);

/*
 * Runs fn in a child process whose TAP lines continue this process's numbering (for
 * scenarios that need their own emulator configuration). Child exit: tests run, +128 if any
 * failed.
 */
static inline void emu_test_fork(void (*fn)(void *), void *arg)
{
	int status, start = tap_n;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		tap_failed = 0;
		fn(arg);
		fflush(stdout);
		_exit((tap_n - start) | (tap_failed ? 128 : 0));
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		tap_ok(0, "scenario child %d ended abnormally", pid);
		return;
	}
	tap_n += WEXITSTATUS(status) & 127;
	if (WEXITSTATUS(status) & 128)
		tap_failed++;
}

#define CU_OK(expr) ((expr) == CUDA_SUCCESS)

#endif /* CUDASTORE_EMU_TEST_H */
