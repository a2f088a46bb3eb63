/* SPDX-License-Identifier: MIT */
/*
 * helper_link.h - criu's side of the link to cudastore-helper (protocol: wire.h).
 *
 * cs_link_start() execs the helper (double fork: it is never criu's child, so criu's own
 * SIGCHLD handling and waits never see it), hands it the options and waits for its INIT answer.
 * cs_link_call() sends one request and serves the helper until its DONE: log lines go to
 * criu's log, RT_RUN/RT_STOP run the target's restore thread through ptrace (rthread.c), and
 * while the helper works the running restore threads are watched for signal stops.
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

struct cs_link {
	int sock;
	pid_t helper; /* its pid, as it reported it */
	bool dead;
	bool timed_out; /* it did not answer a request in time and was stopped (SIGKILL) */
	struct cs_rthread rt[CS_LINK_MAX_RT];
};

/*
 * Start the helper for stage, handing it the images directory when dirfd >= 0 (a dump's: the
 * helper clears an earlier dump's files before anything is frozen); *disabled says it found no
 * usable driver. 0 or -errno.
 */
int cs_link_start(struct cs_link *l, int stage, const struct cs_options *o, int dirfd, bool *disabled);
/* A request's bound from the options: op_timeout_s in ms, 0 when unlimited. */
unsigned cs_link_op_timeout_ms(const struct cs_options *o);
/*
 * One request (wire.h types); returns the helper's answer, or -EIO when the helper is gone.
 * timeout_ms (0: none) bounds the wait for its answer: past it the helper is stopped (SIGKILL),
 * the link is dead (l->timed_out) and the answer is -EIO.
 */
int cs_link_call(struct cs_link *l, uint32_t type, pid_t pid, int32_t arg, int32_t ret, int fd,
		 uint32_t *flags, unsigned timeout_ms);
/* BYE, then wait (bounded) for the helper to close its end. */
void cs_link_stop(struct cs_link *l);

#endif /* CUDASTORE_HELPER_LINK_H */
