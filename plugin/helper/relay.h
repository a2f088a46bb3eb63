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
/*
 * Test hook: when CUDASTORE_TEST_STALL names this phase, write our pid to
 * CUDASTORE_TEST_STALL_FILE and wait (at most 60 s) until criu is gone or the file is removed,
 * so a test can look at criu then, or SIGKILL it at exactly that point. Phases: init, after-lock, copy-out,
 * after-complete, exit-hook, restore.
 */
void cs_relay_test_stall(const char *phase);

#endif /* CUDASTORE_RELAY_H */
