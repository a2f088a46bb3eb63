/* SPDX-License-Identifier: MIT */
/*
 * criu_link.h - cudastore-helper's end of its link to criu (plugin/criu/helper_link.c is the
 * other end): the door of criu_door.h and the log sink of log.h over the socket criu passed.
 *
 * cs_criu_link_init() registers both: each log line goes to criu's log, and the restore-thread
 * calls ask criu, the target's tracer, to let the driver's restore thread run or stop it. When
 * criu is gone the link turns into the guardian's: log lines go to stderr and to the guardian
 * log, and the restore-thread calls succeed without doing anything (a dead tracer's tracees
 * were detached by the kernel and run on their own).
 */
#ifndef CUDASTORE_CRIU_LINK_H
#define CUDASTORE_CRIU_LINK_H

/* sock is connected to criu: register the door and the log sink that use it */
void cs_criu_link_init(int sock);
/* criu is gone: serve the guardian. log_fd (or -1) receives a copy of every line from now on. */
void cs_criu_link_guardian(int log_fd);
/* The request in flight moved (progress.h): criu's wait for its answer starts over. */
void cs_criu_link_progress(void);
/* The socket to criu (for the test hooks, test_hooks_env.c). */
int cs_criu_link_sock(void);

#endif /* CUDASTORE_CRIU_LINK_H */
