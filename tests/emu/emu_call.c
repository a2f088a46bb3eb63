// SPDX-License-Identifier: MIT
/*
 * emu_call.c - the path every emulated API call takes, and the application's API gate.
 *
 * Order for one call: begin time, injected fault (counts the call, returns without doing
 * anything), cuInit check, gate entry (blocks while the process is LOCKED), injected delay
 * (slept while inside the gate, so a delayed call keeps a Lock waiting), the call itself,
 * gate exit, trace line with the begin and end times and the target the call concerns.
 *
 * Lock semantics (the driver's): new calls are held as soon as a Lock
 * starts; the Lock then waits for the calls already inside. If its timeout expires first,
 * the held calls are released again and the process stays RUNNING.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "emu.h"

static pthread_mutex_t gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static unsigned int gate_inside;
static bool gate_closed;

CUresult emu_call_begin(struct emu_call *c, const char *name, unsigned int flags, int target)
{
	CUresult res;
	unsigned int ms;

	c->begin_ns = emu_now_ns();
	c->name = name;
	c->gated = false;
	c->target = target;
	res = emu_fault_hit(name, target);
	if (res != CUDA_SUCCESS)
		return res;
	if ((flags & EMU_F_INIT) && !emu_initialized())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (flags & EMU_F_GATE) {
		emu_gate_enter();
		c->gated = true;
	}
	ms = emu_delay_ms(name);
	if (ms)
		usleep(ms * 1000u);
	return CUDA_SUCCESS;
}

CUresult emu_call_end(struct emu_call *c, CUresult res)
{
	if (c->gated)
		emu_gate_leave();
	emu_trace_span(c->name, res, c->begin_ns, emu_now_ns(), c->target);
	return res;
}

void emu_gate_enter(void)
{
	pthread_mutex_lock(&gate_mutex);
	while (gate_closed)
		pthread_cond_wait(&gate_cond, &gate_mutex);
	gate_inside++;
	pthread_mutex_unlock(&gate_mutex);
}

void emu_gate_leave(void)
{
	pthread_mutex_lock(&gate_mutex);
	if (!--gate_inside)
		pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_mutex);
}

static void deadline_after(struct timespec *ts, unsigned int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* CUDA_ERROR_NOT_READY on timeout: the documented Lock error closest to "timed out" */
CUresult emu_gate_lock(unsigned int timeout_ms)
{
	struct timespec deadline;
	CUresult res = CUDA_SUCCESS;

	if (timeout_ms)
		deadline_after(&deadline, timeout_ms);
	pthread_mutex_lock(&gate_mutex);
	gate_closed = true;
	while (gate_inside && res == CUDA_SUCCESS) {
		if (!timeout_ms)
			pthread_cond_wait(&gate_cond, &gate_mutex);
		else if (pthread_cond_timedwait(&gate_cond, &gate_mutex, &deadline) == ETIMEDOUT && gate_inside)
			res = CUDA_ERROR_NOT_READY;
	}
	if (res != CUDA_SUCCESS) {
		gate_closed = false;
		pthread_cond_broadcast(&gate_cond);
	}
	pthread_mutex_unlock(&gate_mutex);
	return res;
}

void emu_gate_unlock(void)
{
	pthread_mutex_lock(&gate_mutex);
	gate_closed = false;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_mutex);
}
