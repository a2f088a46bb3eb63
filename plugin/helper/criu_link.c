// SPDX-License-Identifier: MIT
/* criu_link.c - log lines and restore-thread calls from cudastore-helper to criu (criu_link.h) */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "criu_door.h"
#include "criu_link.h"
#include "log.h"
#include "wire.h"

static int sock = -1;
static bool gone;     /* criu closed its end (or a send failed) */
static bool guardian; /* the guardian runs: restore-thread calls are no-ops */
static int guard_log = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* one sender and log line at a time */

int cs_criu_link_sock(void)
{
	return sock;
}

static bool link_gone(void)
{
	return gone;
}

void cs_criu_link_guardian(int log_fd)
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
static void link_sink(unsigned int loglevel, const char *line)
{
	struct cs_wire_msg m;

	m.len = (uint32_t)strnlen(line, sizeof(m.data) - 1);
	memcpy(m.data, line, m.len);
	m.data[m.len] = '\0';
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

void cs_criu_link_progress(void)
{
	tell(CS_W_PROGRESS, 0, 0);
}

static void link_recovered(pid_t pid, int ret)
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

/* criu_door.h's rt_set: 0 without asking once the guardian runs */
static int link_rt_set(pid_t tid, bool run)
{
	if (guardian)
		return 0;
	return rt_call(run ? CS_W_RT_RUN : CS_W_RT_STOP, tid, 0);
}

static const struct cs_criu_door door = {
	.rt_set = link_rt_set,
	.recovered = link_recovered,
	.gone = link_gone,
};

void cs_criu_link_init(int fd)
{
	sock = fd;
	cs_log_set_sink(link_sink);
	cs_criu_door_install(&door);
}
