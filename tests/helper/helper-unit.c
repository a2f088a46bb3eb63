// SPDX-License-Identifier: MIT
/* helper-unit.c - the helper unit tests' shared pieces (helper-unit.h) */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "criu_door.h"
#include "fake-cuda.h"
#include "helper-unit.h"
#include "log.h"

struct cs_ctx *hu_ctx(enum cs_stage stage)
{
	struct cs_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->stage = stage;
	ctx->restore.warmup.dirfd = -1;
	pthread_mutex_init(&ctx->mu, NULL);
	fake_cuda_init(&ctx->cuda);
	fake_cuda_ckpt_init(&ctx->cuda);
	ctx->cuda_loaded = true;
	cs_dev_setup(&ctx->gpus, &ctx->cuda);
	return ctx;
}

void hu_ctx_free(struct cs_ctx *ctx)
{
	if (!ctx)
		return;
	pthread_mutex_destroy(&ctx->mu);
	free(ctx);
}

pid_t hu_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* 'Z' once pid died and is not reaped yet */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

bool hu_reap_killed(pid_t pid)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int status = 0, i;

	/* a SIGKILL sent just before is delivered at once, but give it 200 ms */
	for (i = 0; i < 20 && proc_state(pid) != 'Z'; i++)
		nanosleep(&pause, NULL);
	if (proc_state(pid) != 'Z') {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_buf[1 << 16];
static size_t log_len;

static void capture_sink(unsigned int loglevel, const char *line)
{
	size_t n = strlen(line);

	(void)loglevel;
	fputs(line, stderr);
	pthread_mutex_lock(&log_mu);
	if (log_len + n < sizeof(log_buf)) {
		memcpy(log_buf + log_len, line, n + 1);
		log_len += n;
	}
	pthread_mutex_unlock(&log_mu);
}

void hu_log_capture(void)
{
	cs_log_set_sink(capture_sink);
}

void hu_log_clear(void)
{
	pthread_mutex_lock(&log_mu);
	log_len = 0;
	log_buf[0] = '\0';
	pthread_mutex_unlock(&log_mu);
}

bool hu_logged(const char *text)
{
	bool found;

	pthread_mutex_lock(&log_mu);
	found = strstr(log_buf, text) != NULL;
	pthread_mutex_unlock(&log_mu);
	return found;
}

static struct hu_door *door;
static pthread_mutex_t door_mu = PTHREAD_MUTEX_INITIALIZER;

static void keep(char what, pid_t id, int ret)
{
	pthread_mutex_lock(&door_mu);
	if (door->n < HU_DOOR_MAX)
		door->calls[door->n++] = (struct hu_door_call){ .what = what, .id = id, .ret = ret };
	pthread_mutex_unlock(&door_mu);
}

static int rec_rt_set(pid_t tid, bool run)
{
	int ret = run && tid == door->fail_tid ? door->fail_ret : 0;

	keep(run ? 'r' : 's', tid, ret);
	return ret;
}

static void rec_recovered(pid_t pid, int ret)
{
	keep('n', pid, ret);
}

static bool rec_gone(void)
{
	return door->gone;
}

static const struct cs_criu_door recording = {
	.rt_set = rec_rt_set,
	.recovered = rec_recovered,
	.gone = rec_gone,
};

void hu_door_install(struct hu_door *d)
{
	door = d;
	cs_criu_door_install(d ? &recording : NULL);
}

unsigned hu_door_count(const struct hu_door *d, char what, pid_t id)
{
	unsigned i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->calls[i].what == what && d->calls[i].id == id;
	return n;
}
