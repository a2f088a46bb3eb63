/* SPDX-License-Identifier: MIT */
/*
 * run_capture.h - run a program and keep what it prints, bounded in bytes and in time: the one
 * fork + exec + pipe of the plugin and the cudastore command (criu --version, criu check, criu
 * --help).
 */
#ifndef CUDASTORE_RUN_CAPTURE_H
#define CUDASTORE_RUN_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#define CS_RUN_STDERR 1u /* its stderr into the same buffer (else to /dev/null) */
#define CS_RUN_TAIL   2u /* more than fits: keep the last bytes (else the first) */

struct cs_run {
	int exit_code;	/* 0-255; -1 when a signal ended it or another waiter reaped it */
	int signal;	/* the signal that ended it (SIGKILL at the timeout), else 0 */
	size_t len;	/* bytes kept in out, which is NUL-terminated */
	bool truncated; /* it printed more than len - 1 bytes: the rest is dropped */
};

/*
 * Runs path with argv (argv[0] as the program sees it; NULL-terminated; no PATH search), stdin
 * from /dev/null, stdout (and with CS_RUN_STDERR stderr) into out, at most len - 1 bytes of it
 * (the first, or the last with CS_RUN_TAIL) and the rest read and dropped, and waits for it.
 * timeout_ms 0: no limit; else the program is killed (SIGKILL) once that much time has passed.
 * Returns 0 when it ran to its end, whatever its exit status (in r); -ETIMEDOUT when it was
 * killed at the timeout (what it printed until then in out and r); the exec's -errno when it
 * could not be run (-ENOENT, -EACCES, -ENOEXEC...); another -errno when no pipe or child could
 * be made. A caller that reaps every child itself (criu) may take the child first: then
 * r->exit_code is -1 and the call still returns 0.
 */
int cs_run_capture(const char *path, char *const argv[], unsigned flags, unsigned timeout_ms, char *out,
		   size_t len, struct cs_run *r);

#endif /* CUDASTORE_RUN_CAPTURE_H */
