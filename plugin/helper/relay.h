/* SPDX-License-Identifier: MIT */
/*
 * relay.h - the helper's side of its link to criu: what dump.c and restore.c reach through it.
 *
 * In cudastore-helper, print_on_level() sends each log line to criu's log, and
 * cs_rthread_run/stop() (rthread.h) ask criu, the target's tracer, to let the restore thread
 * run or stop it. When criu is gone the relay turns into the guardian's: log lines go to stderr
 * and to the guardian log, and the restore-thread calls succeed without doing anything (a dead
 * tracer's tracees were detached by the kernel and run on their own).
 */
#ifndef CUDASTORE_RELAY_H
#define CUDASTORE_RELAY_H

#include <stdbool.h>

void cs_relay_init(int sock);
/* criu is gone: serve the guardian. log_fd (or -1) receives a copy of every line from now on. */
void cs_relay_guardian(int log_fd);
bool cs_relay_criu_gone(void);
/* The socket to criu (for the test hooks, test_hooks.h). */
int cs_relay_sock(void);

#endif /* CUDASTORE_RELAY_H */
