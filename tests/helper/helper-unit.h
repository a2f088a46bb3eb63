/* SPDX-License-Identifier: MIT */
/*
 * helper-unit.h - what the helper's unit tests share: a context on the fake driver
 * (tests/engine/fake-cuda.h, with its checkpoint API), child processes that stand for the
 * targets, a log sink and a criu door (criu_door.h) that record what the library did.
 */
#ifndef CUDASTORE_TESTS_HELPER_UNIT_H
#define CUDASTORE_TESTS_HELPER_UNIT_H

#include <stdbool.h>
#include <sys/types.h>

#include "context.h"

/* A calloc'ed context of stage on the fake driver, the fake reset; NULL on failure. */
struct cs_ctx *hu_ctx(enum cs_stage stage);
void hu_ctx_free(struct cs_ctx *ctx);

/* A child that sleeps until it is killed; -1 on failure. */
pid_t hu_child(void);
/* Whether pid was ended by SIGKILL; reaps it either way (a live one is killed first). */
bool hu_reap_killed(pid_t pid);

/* Every log line from now on is kept (and copied to stderr); hu_log_clear forgets them. */
void hu_log_capture(void);
void hu_log_clear(void);
bool hu_logged(const char *text);

/* The recording door: each restore-thread call and RECOVERED note is kept, in order. */
struct hu_door_call {
	char what; /* 'r' run, 's' stop, 'n' a RECOVERED note */
	pid_t id;  /* the thread (run, stop) or the process (note) */
	int ret;   /* what the call answered, or the note's value */
};
#define HU_DOOR_MAX 256
struct hu_door {
	pid_t fail_tid; /* letting this thread run fails with fail_ret */
	int fail_ret;
	bool gone; /* what gone() answers */
	unsigned n;
	struct hu_door_call calls[HU_DOOR_MAX];
};
/* d (zeroed by the caller, then set) is registered as the door; NULL: no criu attached again. */
void hu_door_install(struct hu_door *d);
/* how many of d's calls are what for id */
unsigned hu_door_count(const struct hu_door *d, char what, pid_t id);

#endif /* CUDASTORE_TESTS_HELPER_UNIT_H */
