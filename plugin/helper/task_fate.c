// SPDX-License-Identifier: MIT
/*
 * task_fate.c - what criu did to a dumped process once it let it go (task_fate.h).
 *
 * criu's -s sends the process a SIGSTOP and then detaches from it, thread by thread. Until a
 * thread takes that signal the process reads 'R' or 'S' with the signal queued; the thread that
 * takes it reads 'T' from that moment, and the others follow when they next run (a thread asleep
 * in the kernel without being interruptible, such as one in vfork or in a driver call, follows
 * only later). So the queue is read before the threads (procfs.h, cs_procfs_group), and one
 * stopped thread is enough to call the process stopped: a stop already taken by a thread other
 * than the one looked at is never mistaken for "running".
 */
#include <errno.h>

#include "procfs.h"
#include "task_fate.h"

enum cs_fate cs_task_fate(pid_t pid, unsigned long long start, pid_t *tracer)
{
	struct cs_group_state gs;
	unsigned long long now_start;
	int ret;
	char st;

	*tracer = 0;
	if (!start || cs_procfs_task(pid, &st, &now_start, tracer) || now_start != start)
		return CS_FATE_GONE;
	if (*tracer || st == 't')
		return CS_FATE_HELD; /* criu still holds it: its threads need no reading yet */
	ret = cs_procfs_group(pid, &gs);
	if (ret)
		return ret == -ENOENT ? CS_FATE_GONE : CS_FATE_HELD; /* unreadable now: look again */
	if (!gs.live)
		return CS_FATE_GONE;
	if (gs.traced || gs.stop_queued)
		return CS_FATE_HELD;
	return gs.stopped ? CS_FATE_STOPPED : CS_FATE_RUNNING;
}
