/* SPDX-License-Identifier: MIT */
/*
 * rthread.h - let the driver's restore thread of a ptrace-stopped process run, and stop it again.
 *
 * The CUDA driver does checkpoint/restore work on a helper thread inside the target (the
 * "restore thread", cuCheckpointProcessGetRestoreThreadId). When CRIU calls
 * CHECKPOINT_DEVICES or RESUME_DEVICES_LATE every thread of the target is ptrace-stopped by
 * the criu process we run in, so driver calls would block forever. cs_rthread_run() resumes
 * that one thread; cs_rthread_stop() interrupts it again and leaves it exactly as CRIU expects:
 * in a ptrace stop, tracer, signal mask and ptrace options unchanged.
 *
 * While it runs (dump, rollback and restore alike):
 * - every signal is blocked in it, so none parks it in a signal-delivery stop while criu waits
 *   in the driver and no application handler runs on it. Blocked signals stay pending and reach
 *   the application once the mask is back (docs/design.md, "The restore thread");
 * - a SIGSTOP already queued for the process (criu restore -s sends it before
 *   RESUME_DEVICES_LATE) is taken off the thread and sent to the process again on stop;
 * - PTRACE_O_SUSPEND_SECCOMP is cleared: the target's seccomp filter applies to it.
 */
#ifndef CUDASTORE_RTHREAD_H
#define CUDASTORE_RTHREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cs_rthread {
	pid_t tid, tgid;
	bool running;	  /* we let it run and must stop it again */
	bool mask_saved;  /* sigmask replaced; put back on stop */
	bool options_set; /* ptrace options replaced; put back on stop */
	bool resend_stop; /* a SIGSTOP for the process was taken off the thread: send it again */
	long saved_options;
	uint64_t saved_mask;
};

int cs_rthread_run(struct cs_rthread *rt, pid_t tid);
int cs_rthread_stop(struct cs_rthread *rt);
/*
 * While it runs: a stop it ran into is passed on as cs_rthread_stop() would (a SIGSTOP is held
 * back for the process), and it runs on. criu polls this while cudastore-helper waits in the
 * driver, so no stop can hold up a driver call. -ESRCH if it died.
 */
int cs_rthread_poll(struct cs_rthread *rt);

#endif /* CUDASTORE_RTHREAD_H */
