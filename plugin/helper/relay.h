/* SPDX-License-Identifier: MIT */
/*
 * relay.h - the helper's side of its link to criu: what dump.c and restore.c reach through it.
 *
 * In cudastore-helper, cs_log_line() (log.h) sends each log line to criu's log, and
 * cs_relay_rt_run/stop() ask criu, the target's tracer, to let the driver's restore thread run
 * or stop it (criu does it with ptrace: plugin/criu/rthread.h). When criu is gone the relay
 * turns into the guardian's: log lines go to stderr and to the guardian log, and the
 * restore-thread calls succeed without doing anything (a dead tracer's tracees were detached by
 * the kernel and run on their own).
 */
#ifndef CUDASTORE_RELAY_H
#define CUDASTORE_RELAY_H

#include <stdbool.h>
#include <sys/types.h>

/* One process's restore thread, as far as the helper knows it. */
struct cs_relay_rt {
	pid_t tid;
	bool running; /* criu let it run: it must be stopped again */
};

void cs_relay_init(int sock);
/* criu is gone: serve the guardian. log_fd (or -1) receives a copy of every line from now on. */
void cs_relay_guardian(int log_fd);
bool cs_relay_criu_gone(void);
/* The request in flight moved (progress.h): criu's wait for its answer starts over. */
void cs_relay_progress(void);
/* RECOVER with CS_RECOVER_GATHER: pid's recovery began (-EINPROGRESS) or ended (ret). */
void cs_relay_recovered(pid_t pid, int ret);
/* The socket to criu (for the test hooks, test_hooks.h). */
int cs_relay_sock(void);
/*
 * Ask criu to let restore thread tid run (rt is filled in) and to stop it again. 0 or -errno;
 * -EPIPE when criu is gone. Both succeed without asking anything once the guardian runs.
 */
int cs_relay_rt_run(struct cs_relay_rt *rt, pid_t tid);
int cs_relay_rt_stop(struct cs_relay_rt *rt);

#endif /* CUDASTORE_RELAY_H */
