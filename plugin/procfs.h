/* SPDX-License-Identifier: MIT */
/* procfs.h - the few facts we read from /proc */
#ifndef CUDASTORE_PROCFS_H
#define CUDASTORE_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* pid of the process inside its own pid namespace (last NSpid entry); CRIU keeps it stable. */
pid_t cs_procfs_ns_pid(pid_t pid);
/* MemAvailable in bytes, 0 if unknown */
uint64_t cs_procfs_mem_available(void);

#endif /* CUDASTORE_PROCFS_H */
