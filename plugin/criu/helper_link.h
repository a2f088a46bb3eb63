/* SPDX-License-Identifier: MIT */
/*
 * helper_link.h - criu's side of the link to cudastore-helper (protocol: wire.h).
 *
 * cs_link_start() execs the helper (double fork: it is never criu's child, so criu's own
 * SIGCHLD handling and waits never see it), hands it the options and waits for its INIT answer.
 * cs_link_call() sends one request and serves the helper until its DONE: log lines go to
 * criu's log, RT_RUN/RT_STOP run the target's restore thread through ptrace (rthread.c), and
 * while the helper works the running restore threads are watched for signal stops.
 * The wait is bounded by the time without progress, not by the request's length: each PROGRESS
 * report of the helper (bytes copied, a driver call answered, the target's driver thread at
 * work: progress.h) and each RT_RUN/RT_STOP starts the bound over, so a slow dump that keeps
 * moving finishes and a stuck one is stopped op_timeout_s after it last moved.
 * If the helper dies, every restore thread it had running is stopped again and every later call
 * fails with -EIO: criu then fails the dump (or kills what it restored) instead of going on
 * without the GPU state.
 */
#ifndef CUDASTORE_HELPER_LINK_H
#define CUDASTORE_HELPER_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "rthread.h"

#define CS_LINK_MAX_RT 256 /* restore threads running at once: one per process of a tree */

/* RECOVERED (wire.h): one process's recovery, as the helper last reported it */
struct cs_link_fate {
	pid_t pid;
	int ret; /* -EINPROGRESS: under way; 0: running again; else -errno: ended */
};

struct cs_link {
	int sock;
	pid_t helper; /* its pid, as it reported it */
	bool dead;
	bool timed_out; /* it did not answer a request in time and was stopped (SIGKILL) */
	struct cs_rthread rt[CS_LINK_MAX_RT];
	unsigned nfate;
	struct cs_link_fate fate[CS_LINK_MAX_RT]; /* RECOVERED reports of the requests so far */
};

/* How long criu waits for a request's answer (0: no bound). */
struct cs_link_bound {
	unsigned stall_ms; /* with no progress reported for this long */
	unsigned total_ms; /* in all, whatever the helper reports */
};

/*
 * Start the helper for stage, handing it the images directory when dirfd >= 0 (a dump's: the
 * helper clears an earlier dump's files before anything is frozen) and the CRIU run id run (a
 * dump's own, a restore's from CRIU's inventory; cs_criu_run_ok, criu_run.h) unless it is NULL;
 * *disabled says it found no usable driver. 0 or -errno.
 */
int cs_link_start(struct cs_link *l, int stage, const struct cs_options *o, const char *run, int dirfd,
		  bool *disabled);
/* A request's bound from the options: op_timeout_s in ms (the time without progress), 0: none. */
unsigned cs_link_op_timeout_ms(const struct cs_options *o);
/*
 * One request (wire.h types); returns the helper's answer, or -EIO when the helper is gone.
 * stall_ms (0: none) bounds the time the helper may go without reporting progress: past it the
 * helper is stopped (SIGKILL), the link is dead (l->timed_out) and the answer is -EIO.
 */
int cs_link_call(struct cs_link *l, uint32_t type, pid_t pid, int32_t arg, int32_t ret, int fd,
		 uint32_t *flags, unsigned stall_ms);
/* The same with a bound on the whole wait instead (PAUSE: criu's --timeout alarm runs). */
int cs_link_call_within(struct cs_link *l, uint32_t type, pid_t pid, int32_t arg, int32_t ret, int fd,
			uint32_t *flags, unsigned total_ms);
/* BYE, then wait (bounded) for the helper to close its end. */
void cs_link_stop(struct cs_link *l);

#endif /* CUDASTORE_HELPER_LINK_H */
