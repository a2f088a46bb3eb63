/* SPDX-License-Identifier: MIT */
/*
 * task_fate.h - what criu did to a dumped process once it let it go, read from /proc.
 *
 * criu changes a process's state only while it traces it, so a process is judged once no thread
 * of it is traced any more:
 *
 *   CS_FATE_GONE      every thread ended, or the pid now names another process (start time)
 *   CS_FATE_HELD      a thread is still traced, or a SIGSTOP is queued and not yet taken
 *   CS_FATE_STOPPED   a thread is in a job-control stop: criu's -s (the others follow it)
 *   CS_FATE_RUNNING   none of the above: criu let it run
 *
 * One look is a snapshot; a caller that must tell criu's -s from the instant a task passes
 * through 'T' on its way out of a ptrace stop asks again (watch.c holds a stop for a while).
 */
#ifndef CUDASTORE_TASK_FATE_H
#define CUDASTORE_TASK_FATE_H

#include <sys/types.h>

enum cs_fate { CS_FATE_HELD, CS_FATE_GONE, CS_FATE_STOPPED, CS_FATE_RUNNING };

/*
 * The fate of pid, started at start (clock ticks after boot, as /proc/PID/stat field 22 says;
 * 0 when unknown: the pid is then taken as gone). *tracer: the main thread's tracer (0: none).
 */
enum cs_fate cs_task_fate(pid_t pid, unsigned long long start, pid_t *tracer);

#endif /* CUDASTORE_TASK_FATE_H */
