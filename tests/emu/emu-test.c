// SPDX-License-Identifier: MIT
/* emu-test.c - shared helpers of the emulator tests (see emu-test.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu-test.h"

#define MAX_APPS 16
static struct emu_app *apps[MAX_APPS];
static bool cleanup_registered;

const char *emu_test_path(const char *rel, char *buf, size_t len)
{
	const char *top = getenv("top_builddir");

	snprintf(buf, len, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

void emu_test_setup(const char *const *env, struct cs_cuda_ops *cu)
{
	char path[512], err[256];

	for (; env && *env; env++) {
		char kv[512], *eq;

		snprintf(kv, sizeof(kv), "%s", *env);
		eq = strchr(kv, '=');
		if (!eq)
			tap_bail("bad env entry %s", *env);
		*eq = '\0';
		setenv(kv, eq + 1, 1);
	}
	setenv("CUDASTORE_LIBCUDA", emu_test_path("tests/emu/lib/libcuda.so.1", path, sizeof(path)), 1);
	setenv("CUDASTORE_LIBNVML", emu_test_path("tests/emu/lib/libnvidia-ml.so.1", path, sizeof(path)), 1);
	if (cu && cs_cuda_load(cu, NULL, err, sizeof(err)))
		tap_bail("cannot load the emulator: %s", err);
}

static void kill_all(void)
{
	for (int i = 0; i < MAX_APPS; i++)
		if (apps[i])
			emu_app_kill(apps[i]);
}

static void track(struct emu_app *a, bool add)
{
	if (!cleanup_registered) {
		atexit(kill_all);
		cleanup_registered = true;
	}
	for (int i = 0; i < MAX_APPS; i++)
		if (add ? !apps[i] : apps[i] == a) {
			apps[i] = add ? a : NULL;
			return;
		}
}

int emu_apps_tracked(void)
{
	int n = 0;

	for (int i = 0; i < MAX_APPS; i++)
		n += apps[i] != NULL;
	return n;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static pid_t read_pid(const char *path)
{
	FILE *f = fopen(path, "r");
	int pid = -1;

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

static void app_exec(const struct emu_app *a, const char *const *env, const char *const *args)
{
	const char *argv[64];
	char prog[512];
	int n = 0;

	for (; env && *env; env++)
		putenv(strdup(*env));
	argv[n++] = emu_test_path("tests/workload/cuda-workload", prog, sizeof(prog));
	argv[n++] = "--pidfile";
	argv[n++] = a->pidfile;
	argv[n++] = "--ready";
	argv[n++] = a->ready;
	argv[n++] = "--outfile";
	argv[n++] = a->outfile;
	argv[n++] = "--log";
	argv[n++] = a->log;
	for (; args && *args && n < 63; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	execv(prog, (char *const *)argv);
	_exit(127);
}

static void dump_log(const struct emu_app *a)
{
	char line[512];
	FILE *f = fopen(a->log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   app: %s", line);
	fclose(f);
}

int emu_app_start(struct emu_app *a, const char *const *env, const char *const *args)
{
	bool daemon = false;
	pid_t child;

	memset(a, 0, sizeof(*a));
	snprintf(a->dir, sizeof(a->dir), "/tmp/cs-emu-XXXXXX");
	if (!mkdtemp(a->dir))
		return -1;
	snprintf(a->pidfile, sizeof(a->pidfile), "%s/pid", a->dir);
	snprintf(a->ready, sizeof(a->ready), "%s/ready", a->dir);
	snprintf(a->outfile, sizeof(a->outfile), "%s/out", a->dir);
	snprintf(a->log, sizeof(a->log), "%s/log", a->dir);
	for (const char *const *p = args; p && *p; p++)
		daemon |= !strcmp(*p, "--daemon");
	fflush(stdout);
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0)
		app_exec(a, env, args);
	a->pid = child;
	a->is_child = !daemon;
	track(a, true);
	for (int i = 0; i < 1000; i++) {
		int status;

		if (!access(a->ready, F_OK)) {
			if (daemon) {
				waitpid(child, &status, 0); /* the --daemon parent */
				a->pid = read_pid(a->pidfile);
			}
			if (a->pid > 0)
				return 0;
			a->pid = 0;
			track(a, false); /* a is the caller's: never reach it from exit after it is gone */
			return -1;
		}
		if (!daemon && waitpid(child, &status, WNOHANG) == child) {
			a->pid = 0;
			track(a, false);
			printf("# workload exited before it was ready (status %#x)\n", status);
			dump_log(a);
			return -1;
		}
		sleep_ms(10);
	}
	printf("# workload not ready after 10 s\n");
	dump_log(a);
	emu_app_kill(a);
	return -1;
}

int emu_app_wait(struct emu_app *a, int ms)
{
	int status;

	for (int i = 0; i <= ms / 10; i++) {
		if (a->is_child) {
			pid_t r = waitpid(a->pid, &status, WNOHANG);

			if (r == a->pid) {
				a->pid = 0;
				track(a, false);
				return status;
			}
		} else if (kill(a->pid, 0) && errno == ESRCH) {
			a->pid = 0;
			track(a, false);
			return 0;
		}
		sleep_ms(10);
	}
	return -1;
}

int emu_app_stop(struct emu_app *a, char *out, size_t len)
{
	FILE *f;
	int status;

	out[0] = '\0';
	if (a->pid <= 0)
		return -1;
	kill(a->pid, SIGTERM);
	status = emu_app_wait(a, 10000);
	if (status < 0) {
		printf("# workload %d did not stop on SIGTERM\n", a->pid);
		emu_app_kill(a);
		return -1;
	}
	f = fopen(a->outfile, "r");
	if (f) {
		if (!fgets(out, (int)len, f))
			out[0] = '\0';
		fclose(f);
		out[strcspn(out, "\n")] = '\0';
	}
	if (strcmp(out, "PASS"))
		dump_log(a);
	return a->is_child ? (WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) : 0;
}

void emu_app_kill(struct emu_app *a)
{
	if (a->pid > 0) {
		kill(a->pid, SIGKILL);
		if (a->is_child)
			waitpid(a->pid, NULL, 0);
		a->pid = 0;
	}
	track(a, false);
}

int emu_app_maps(pid_t pid, size_t *bytes, unsigned long addr, char *name_out, size_t len)
{
	char path[64], line[512];
	int n = 0;
	FILE *f;

	*bytes = 0;
	if (name_out)
		name_out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		char *name = strstr(line, "/memfd:cudastore-emu:");

		if (!name || sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		n++;
		*bytes += end - start;
		if (name_out && start == addr) {
			snprintf(name_out, len, "%s", name + strlen("/memfd:cudastore-emu:"));
			name_out[strcspn(name_out, " \n")] = '\0';
		}
	}
	fclose(f);
	return n;
}

bool emu_uuid_eq(const CUuuid *a, const CUuuid *b)
{
	return !memcmp(a->bytes, b->bytes, sizeof(a->bytes));
}

int emu_entry_uuid(const struct cs_cuda_ops *cu, CUstream stream, CUuuid *uuid, int *dev)
{
	CUcontext ctx;
	CUdevice d;

	if (!CU_OK(cu->StreamGetCtx(stream, &ctx)) || !CU_OK(cu->CtxSetCurrent(ctx)) ||
	    !CU_OK(cu->CtxGetDevice(&d)) || !CU_OK(cu->DeviceGetUuid(uuid, d)))
		return -1;
	if (dev)
		*dev = d;
	return 0;
}

int emu_cs_save(const struct cs_cuda_ops *cu, const CUcheckpointCustomStorageInfo *info, struct emu_saved *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int i = 0; i < info->deviceCount && i < 8; i++) {
		const CUcheckpointCustomStoragePerDeviceData *e = &info->perDeviceData[i];

		if (emu_entry_uuid(cu, e->stream, &s->dev[i].uuid, NULL))
			return -1;
		s->dev[i].size = e->size;
		s->dev[i].data = malloc(e->size);
		s->n = i + 1;
		if (!s->dev[i].data || !CU_OK(cu->MemcpyDtoHAsync(s->dev[i].data, e->devPtr, e->size, e->stream)) ||
		    !CU_OK(cu->StreamSynchronize(e->stream)))
			return -1;
	}
	return 0;
}

static const CUuuid *source_uuid(const CUuuid *dst, const CUcheckpointGpuPair *pairs, unsigned int npairs)
{
	for (unsigned int p = 0; p < npairs; p++)
		if (emu_uuid_eq(&pairs[p].newUuid, dst))
			return &pairs[p].oldUuid;
	return dst;
}

int emu_cs_load(const struct cs_cuda_ops *cu, const CUcheckpointCustomStorageInfo *info,
		const struct emu_saved *s, const CUcheckpointGpuPair *pairs, unsigned int npairs)
{
	for (unsigned int i = 0; i < info->deviceCount; i++) {
		const CUcheckpointCustomStoragePerDeviceData *e = &info->perDeviceData[i];
		const CUuuid *src;
		CUuuid uuid;
		unsigned int j;

		if (emu_entry_uuid(cu, e->stream, &uuid, NULL))
			return -1;
		src = source_uuid(&uuid, pairs, npairs);
		for (j = 0; j < s->n && !emu_uuid_eq(&s->dev[j].uuid, src); j++)
			;
		if (j == s->n || s->dev[j].size != e->size) {
			printf("# no saved data of the right size for restore entry %u\n", i);
			return -1;
		}
		if (!CU_OK(cu->MemcpyHtoDAsync(e->devPtr, s->dev[j].data, e->size, e->stream)) ||
		    !CU_OK(cu->StreamSynchronize(e->stream)))
			return -1;
	}
	return 0;
}

void emu_saved_free(struct emu_saved *s)
{
	for (unsigned int i = 0; i < s->n; i++)
		free(s->dev[i].data);
	memset(s, 0, sizeof(*s));
}

double emu_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double emu_test_parallel(void *(*fn)(void *), void *args, size_t size, int n)
{
	pthread_t t[MAX_APPS];
	double start = emu_test_now();
	int i, started = 0;

	for (i = 0; i < n && i < MAX_APPS; i++)
		if (!pthread_create(&t[i], NULL, fn, (char *)args + (size_t)i * size))
			started++;
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return started == n ? emu_test_now() - start : -1;
}

/* runs a function of tests/e2e/lib.sh with up to three arguments; its exit status, or -1 */
static int lib_sh(const char *fn, const char *a1, const char *a2, const char *a3)
{
	const char *src = getenv("top_srcdir");
	char cmd[1024];
	int status;

	snprintf(cmd, sizeof(cmd), "bash -c '. \"$0/tests/e2e/lib.sh\" && %s \"$@\"' '%s' '%s' '%s' %s", fn,
		 src && *src ? src : ".", a1, a2, a3 ? a3 : "");
	fflush(stdout);
	status = system(cmd);
	return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int emu_test_tr_overlap(const char *trace, const char *name, int n)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", n);
	return lib_sh("tr_overlap", trace, name, num);
}

void emu_test_tr_span(const char *trace, const char *name)
{
	printf("# %s: first begin to last end, s: ", name);
	if (lib_sh("tr_span", trace, name, NULL))
		printf("(none)\n");
	fflush(stdout);
}
