/* SPDX-License-Identifier: MIT */
/*
 * rthread.h - let the driver's restore thread of a ptrace-stopped process run, and stop it again.
 *
 * The CUDA driver does checkpoint/restore work on a helper thread inside the target (the
 * "restore thread", cuCheckpointProcessGetRestoreThreadId). When CRIU calls
 * CHECKPOINT_DEVICES or RESUME_DEVICES_LATE every thread of the target is ptrace-stopped by
 * the criu process we run in, so driver calls would block forever. cs_rthread_run() resumes
 * that one thread (on dump with every signal but SIGTRAP blocked, so no application handler
 * runs on it); cs_rthread_stop() interrupts it again and puts its signal mask back, leaving
 * the thread exactly as CRIU expects: in a ptrace stop, tracer unchanged.
 */
#ifndef CUDASTORE_RTHREAD_H
#define CUDASTORE_RTHREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cs_rthread {
	pid_t tid;
	bool running;	 /* we let it run and must stop it again */
	bool mask_saved; /* sigmask replaced; put back on stop */
	uint64_t saved_mask;
};

/* block_signals: replace the thread's mask (dump); false keeps it (restore: rt_sigreturn sets it) */
int cs_rthread_run(struct cs_rthread *rt, pid_t tid, bool block_signals);
int cs_rthread_stop(struct cs_rthread *rt);
/*
 * While it runs: if the thread sits in a signal-delivery stop, deliver the signal and let it run
 * on (criu polls this while cudastore-helper waits in the driver; before the helper existed
 * criu was blocked in that call and a signal stop hung the restore). -ESRCH if it died.
 */
int cs_rthread_poll(struct cs_rthread *rt);

#endif /* CUDASTORE_RTHREAD_H */
