/* SPDX-License-Identifier: MIT */
/* procfs.h - the few facts we read from /proc (no driver calls: criu's side reads them too) */
#ifndef CUDASTORE_PROCFS_H
#define CUDASTORE_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* pid of the process inside its own pid namespace (last NSpid entry); CRIU keeps it stable. */
pid_t cs_procfs_ns_pid(pid_t pid);
/* MemAvailable in bytes, 0 if unknown */
uint64_t cs_procfs_mem_available(void);
/* the /proc/vmstat counter named key (e.g. "pgactivate"), 0 if unknown */
uint64_t cs_procfs_vmstat(const char *key);
/*
 * What a process's driver thread is doing, for telling work from a wait (progress.h): the CPU
 * time of thread tid of pid in ns (kernel time included) and the process's resident pages.
 * 0, or -errno (-ENOENT: gone).
 */
int cs_procfs_thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *ns);
int cs_procfs_rss_pages(pid_t pid, uint64_t *pages);
/*
 * The value of environment variable name in pid's initial environment (/proc/PID/environ: what
 * it was started with) into out: 0, -ENOENT when unset, -ENAMETOOLONG when it does not fit, or
 * -errno.
 */
int cs_procfs_environ(pid_t pid, const char *name, char *out, size_t len);
/* pid maps the CUDA driver's IPC file (/dev/shm/cuda.shm.*): its name into name */
bool cs_procfs_cuda_ipc(pid_t pid, char *name, size_t len);
#define CS_PROCFS_MAX_FDS 65536 /* fds looked at in one process */
/*
 * Does the process whose /proc/PID directory is open at dirfd use the CUDA driver? Read from
 * /proc only, no driver call: one pass over its maps, then, when they show none, over its fds
 * (at most CS_PROCFS_MAX_FDS of them). It does when a mapping or an open fd is an NVIDIA device
 * file (a path whose last two components are dev/nvidiactl*, dev/nvidia<digit>* or
 * dev/nvidia-uvm*, wherever the process's root lies) or a mapping is the driver library
 * (libcuda.so*). 1 when it does, what (len bytes, may be NULL) saying which file; 0 when it
 * does not; -errno when its maps or fds cannot be read, what saying which. Callers take -errno
 * for a CUDA process: a process that cannot be told must not be handled as CPU-only.
 */
int cs_procfs_cuda_driver_at(int dirfd, char *what, size_t len);
/* The same for pid, through /proc/PID (-errno, e.g. -ENOENT, when that cannot be opened). */
int cs_procfs_cuda_driver(pid_t pid, char *what, size_t len);

/* What /proc/<tid>/status says about one thread's signals and seccomp */
struct cs_thread_status {
	pid_t tgid;
	uint64_t pending; /* SigPnd | ShdPnd: signals queued for it or its process */
	int seccomp;	  /* 0 none, 1 strict, 2 filter */
	char state;	  /* 'R', 'S', 'D', 'T' (job-control stop), 't' (ptrace stop), 'Z', ... */
	pid_t tracer;	  /* 0: none */
};

/* 0, or -errno (-ENOENT: no such thread) */
int cs_procfs_thread_status(pid_t tid, struct cs_thread_status *st);

/*
 * pid and its descendants (every thread's children, level by level): at most max pids into out,
 * pid first. Their number (which may exceed max), or -errno when pid's own entry cannot be read.
 */
int cs_procfs_tree(pid_t pid, pid_t *out, unsigned max);

/*
 * End pid and its descendants (SIGKILL, the whole tree looked up first): a process that can no
 * longer run leaves no orphans behind. How many were signalled.
 */
int cs_procfs_kill_tree(pid_t pid);

/* A kB field of /proc/PID/status ("VmRSS", "VmHWM") in bytes, 0 when unknown. */
uint64_t cs_procfs_status_bytes(pid_t pid, const char *field);

/* A pid-valued field of /proc/PID/status ("PPid", "TracerPid"), or -1. */
pid_t cs_procfs_status_pid(pid_t pid, const char *field);

/*
 * The processes (thread-group leaders, as this pid namespace sees them) whose main thread is
 * ptrace-stopped or traced by tracer: at most max pids into out, in /proc order. Their number
 * (which may exceed max), or -errno when /proc cannot be read.
 */
int cs_procfs_traced_by(pid_t tracer, pid_t *out, unsigned max);

/*
 * What /proc/<pid>/stat and status say of a process's main thread: its state letter ('R', 'S',
 * 'T', 't', 'Z', ...), its start time (clock ticks after boot: tells a reused pid apart) and its
 * tracer (0: none). 0, or -errno (-ENOENT: no such process).
 */
int cs_procfs_task(pid_t pid, char *state, unsigned long long *start, pid_t *tracer);

/* How the threads of a process stand together (cs_procfs_group) */
struct cs_group_state {
	unsigned threads; /* threads read */
	unsigned live;	  /* of them, neither zombie nor dead */
	unsigned traced;  /* with a tracer, or in a ptrace stop ('t') */
	unsigned stopped; /* in a job-control stop ('T') */
	bool stop_queued; /* a SIGSTOP queued for the process or its main thread, not yet taken */
};

/*
 * The threads of process pid, read so that a stop on its way is never missed: first whether a
 * SIGSTOP is queued, then every thread's state. The thread that takes a SIGSTOP enters its stop
 * in the same step, under the process's signal lock, so a SIGSTOP no longer queued at the first
 * read shows as a stopped thread at the second (a single read of state, then of the queue, can
 * see neither). 0, or -errno (-ENOENT: no such process).
 */
int cs_procfs_group(pid_t pid, struct cs_group_state *gs);

#endif /* CUDASTORE_PROCFS_H */
