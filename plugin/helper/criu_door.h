/* SPDX-License-Identifier: MIT */
/*
 * criu_door.h - what the helper's library asks of criu, through three calls the program
 * registers at start-up.
 *
 * batch.c, restore.c, rollback.c and recover.c need criu, the target's tracer, to let the driver's
 * restore thread run and stop it again (criu does it with ptrace: plugin/criu/rthread.h), to
 * hear how a recovery went, and to know whether criu is still there. They reach it through
 * struct cs_criu_door, which cudastore-helper fills in from its socket to criu (criu_link.c).
 * Until a program installs one, the door is that of a helper with no criu attached: the
 * restore-thread calls succeed doing nothing (nobody traces the thread: it runs on its own),
 * recovery notes go nowhere, and criu is never gone (a failure is the helper's own). Unit tests
 * link the library that way.
 *
 * The calls return 0 or -errno; none sets errno.
 */
#ifndef CUDASTORE_CRIU_DOOR_H
#define CUDASTORE_CRIU_DOOR_H

#include <stdbool.h>
#include <sys/types.h>

struct cs_criu_door {
	/* let restore thread tid run (run) or stop it (!run): 0 or -errno, -EPIPE when criu is gone */
	int (*rt_set)(pid_t tid, bool run);
	/* a one-way note: pid's recovery began (ret -EINPROGRESS) or ended with ret */
	void (*recovered)(pid_t pid, int ret);
	/* criu closed its end or stopped answering */
	bool (*gone)(void);
};

/* door's calls from now on (it must stay valid); NULL: no criu attached (see above). */
void cs_criu_door_install(const struct cs_criu_door *door);

/* One process's restore thread, as far as the helper knows it. */
struct cs_criu_rt {
	pid_t tid;
	bool running; /* criu let it run: it must be stopped again */
};

/* Let restore thread tid run (rt is filled in) and stop it again: 0 or -errno, logged. */
int cs_criu_rt_run(struct cs_criu_rt *rt, pid_t tid);
int cs_criu_rt_stop(struct cs_criu_rt *rt);
void cs_criu_recovered(pid_t pid, int ret);
bool cs_criu_gone(void);

#endif /* CUDASTORE_CRIU_DOOR_H */
