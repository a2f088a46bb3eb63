// SPDX-License-Identifier: MIT
/* relay.c - log lines and restore-thread calls from cudastore-helper to criu (see relay.h) */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "relay.h"
#include "wire.h"

static int sock = -1;
static bool gone;     /* criu closed its end (or a send failed) */
static bool guardian; /* the guardian runs: restore-thread calls are no-ops */
static int guard_log = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* one sender and log line at a time */

void cs_relay_init(int fd)
{
	sock = fd;
}

int cs_relay_sock(void)
{
	return sock;
}

bool cs_relay_criu_gone(void)
{
	return gone;
}

void cs_relay_guardian(int log_fd)
{
	pthread_mutex_lock(&mu);
	gone = true;
	guardian = true;
	guard_log = log_fd;
	pthread_mutex_unlock(&mu);
}

static void local_line(unsigned level, const char *line)
{
	char stamp[64];
	struct timespec ts;
	struct tm tm;

	if (level > CS_LOG_INFO)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	dprintf(STDERR_FILENO, "%s cudastore-helper[%d]: %s", stamp, getpid(), line);
	if (guard_log >= 0)
		dprintf(guard_log, "%s %s", stamp, line);
}

/* Every log line of the helper, engine threads included, goes through here. */
void cs_log_line(unsigned int loglevel, const char *format, ...)
{
	struct cs_wire_msg m;
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsnprintf(m.data, sizeof(m.data), format, ap);
	va_end(ap);
	if (n < 0)
		return;
	m.len = (uint32_t)strnlen(m.data, sizeof(m.data) - 1);
	m.type = CS_W_LOG;
	m.pid = 0;
	m.arg = (int32_t)loglevel;
	m.ret = 0;
	m.flags = 0;
	pthread_mutex_lock(&mu);
	if (!gone && cs_wire_send(sock, &m, -1))
		gone = true;
	if (gone)
		local_line(loglevel, m.data);
	pthread_mutex_unlock(&mu);
}

/* A one-way message to criu (PROGRESS, RECOVERED), dropped once criu is gone. */
static void tell(uint32_t type, pid_t pid, int ret)
{
	pthread_mutex_lock(&mu);
	if (!gone && cs_wire_send_simple(sock, type, pid, 0, ret, 0, -1))
		gone = true;
	pthread_mutex_unlock(&mu);
}

void cs_relay_progress(void)
{
	tell(CS_W_PROGRESS, 0, 0);
}

void cs_relay_recovered(pid_t pid, int ret)
{
	tell(CS_W_RECOVERED, pid, ret);
}

#define RT_ANSWER_MS 60000

/* 0 when criu's answer is there, -ETIMEDOUT after RT_ANSWER_MS, -errno */
static int wait_answer(void)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	int ret;

	do
		ret = poll(&pfd, 1, RT_ANSWER_MS);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret ? 0 : -ETIMEDOUT;
}

static int rt_call(uint32_t type, pid_t tid, uint32_t flags)
{
	struct cs_wire_msg *m;
	int ret;

	if (gone)
		return -EPIPE;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	pthread_mutex_lock(&mu);
	ret = cs_wire_send_simple(sock, type, 0, tid, 0, flags, -1);
	pthread_mutex_unlock(&mu);
	/* only the helper's main thread makes these calls, so the answer is ours; criu serves them
	 * at once while it waits for our answer: one that does not come means criu is stuck or gone */
	if (!ret)
		ret = wait_answer();
	if (!ret)
		ret = cs_wire_recv(sock, m, NULL);
	if (!ret && m->type != CS_W_RT_DONE)
		ret = -EPROTO;
	if (ret) {
		gone = true;
		free(m);
		return -EPIPE;
	}
	ret = m->ret;
	free(m);
	return ret;
}

int cs_relay_rt_run(struct cs_relay_rt *rt, pid_t tid)
{
	int ret;

	memset(rt, 0, sizeof(*rt));
	rt->tid = tid;
	if (guardian)
		return 0;
	ret = rt_call(CS_W_RT_RUN, tid, 0);
	if (ret == -EPIPE)
		cs_err("restore thread %d: criu is gone; it cannot be let run", tid);
	rt->running = !ret;
	return ret;
}

int cs_relay_rt_stop(struct cs_relay_rt *rt)
{
	int ret;

	if (!rt->running)
		return 0;
	rt->running = false;
	if (guardian)
		return 0;
	ret = rt_call(CS_W_RT_STOP, rt->tid, 0);
	if (ret == -EPIPE)
		cs_err("restore thread %d: criu is gone before it could stop the thread", rt->tid);
	return ret;
}
