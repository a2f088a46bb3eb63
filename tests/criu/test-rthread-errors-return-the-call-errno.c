// SPDX-License-Identifier: MIT
/*
 * rthread.c's failures return the errno of the ptrace call that failed, not whatever the log line
 * left in errno: this test's log sink clobbers errno (as a log that writes to a closed pipe or a
 * full disk does) and the calls on a thread that does not exist must still answer -ESRCH.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "rthread.h"
#include "tap.h"

static unsigned lines;

static void failing_sink(unsigned int loglevel, const char *line)
{
	(void)loglevel;
	(void)line;
	lines++;
	errno = EIO; /* a sink that fails */
}

int main(void)
{
	struct cs_rthread rt;
	int ret;

	cs_log_set_sink(failing_sink);
	tap_plan(2);
	memset(&rt, 0, sizeof(rt));
	rt.tid = 0x3ffffff0; /* above any pid_max: no such thread */
	rt.running = true;
	ret = cs_rthread_stop(&rt);
	tap_ok(ret == -ESRCH && lines >= 1, "stopping a thread that is gone: %d (%s), %u line(s) logged", ret,
	       strerror(-ret), lines);
	rt.running = true;
	lines = 0;
	ret = cs_rthread_stop(&rt);
	tap_ok(ret == -ESRCH, "again, the log's errno never leaks into the result: %d", ret);
	return tap_done();
}
