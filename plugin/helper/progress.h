/* SPDX-License-Identifier: MIT */
/*
 * progress.h - is the work in flight still moving? What cudastore-helper reports to criu as
 * progress (wire.h, PROGRESS), so that criu bounds the time a request goes without progress, not
 * its length (op_timeout_s): a slow dump that keeps moving finishes, a stuck one is cut off.
 *
 * Progress is any of:
 *   - a step of the helper's own: a process's phase done, a copy's bytes reported by the engine
 *     (cs_progress_note);
 *   - the driver at work inside a watched process (cs_progress_watch), while its restore thread
 *     runs: the CPU time of that thread (the driver works on it: a driver-managed checkpoint
 *     copies the GPU memory into the process's host memory there, in one long call of which the
 *     helper sees nothing) or the process's resident memory changed since the last look;
 *   - the helper's own CPU time (cuInit, pinning buffers), the ticker's own excluded.
 * A process whose driver does not answer shows none of these: its restore thread sleeps.
 * Thresholds keep noise out: a thread that wakes up now and then to poll is not at work. CPU time
 * counts as a share of one CPU since the last look, so a late look adds nothing up.
 *
 * cs_progress_tick() is called by one ticker thread every CS_PROGRESS_TICK_MS; everything else
 * from any thread.
 */
#ifndef CUDASTORE_PROGRESS_H
#define CUDASTORE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CS_PROGRESS_TICK_MS 250

/* One step done for pid (0: for no process in particular). */
void cs_progress_note(pid_t pid);
/* Look at pid, whose driver thread tid runs, at every tick until the matching unwatch. */
void cs_progress_watch(pid_t pid, pid_t tid);
void cs_progress_unwatch(pid_t pid);
/*
 * The ticker's look: samples every watched process; self_cpu_ns is the CPU time of the helper's
 * other threads that run now (a thread that ended leaves the sum). True when anything moved
 * since the last tick.
 */
bool cs_progress_tick(uint64_t self_cpu_ns);
/* Seconds since pid last moved (noted or seen at work); 0 when it is not watched. */
double cs_progress_idle(pid_t pid);

#endif /* CUDASTORE_PROGRESS_H */
