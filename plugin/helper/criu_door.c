// SPDX-License-Identifier: MIT
/* criu_door.c - the registered door to criu and its calls (criu_door.h) */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "criu_door.h"
#include "log.h"

static int none_rt_set(pid_t tid, bool run)
{
	(void)tid;
	(void)run;
	return 0;
}

static void none_recovered(pid_t pid, int ret)
{
	(void)pid;
	(void)ret;
}

static bool none_gone(void)
{
	return false;
}

static const struct cs_criu_door no_criu = {
	.rt_set = none_rt_set,
	.recovered = none_recovered,
	.gone = none_gone,
};

static _Atomic(const struct cs_criu_door *) door = &no_criu;

void cs_criu_door_install(const struct cs_criu_door *d)
{
	atomic_store(&door, d ? d : &no_criu);
}

int cs_criu_rt_run(struct cs_criu_rt *rt, pid_t tid)
{
	int ret;

	memset(rt, 0, sizeof(*rt));
	rt->tid = tid;
	ret = atomic_load(&door)->rt_set(tid, true);
	if (ret == -EPIPE)
		cs_err("restore thread %d: criu is gone; it cannot be let run", tid);
	rt->running = !ret;
	return ret;
}

int cs_criu_rt_stop(struct cs_criu_rt *rt)
{
	int ret;

	if (!rt->running)
		return 0;
	rt->running = false;
	ret = atomic_load(&door)->rt_set(rt->tid, false);
	if (ret == -EPIPE)
		cs_err("restore thread %d: criu is gone before it could stop the thread", rt->tid);
	return ret;
}

void cs_criu_recovered(pid_t pid, int ret)
{
	atomic_load(&door)->recovered(pid, ret);
}

bool cs_criu_gone(void)
{
	return atomic_load(&door)->gone();
}
