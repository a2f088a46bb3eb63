/* SPDX-License-Identifier: MIT */
/*
 * restore_view.h - the GPU device nodes the restored tree can open (devview.h), read from the
 * /dev of its mount namespace, which criu has set up by POST_FORKING: /proc/PID/root/dev of a
 * restored process. The restore's first RESTORE names that process; the warm-up, which runs at
 * POST_FORKING before any, finds the tree's root among criu's children (the child in another
 * mount namespace than criu's, else the first; none: criu's own root, the same /dev).
 */
#ifndef CUDASTORE_RESTORE_VIEW_H
#define CUDASTORE_RESTORE_VIEW_H

#include <sys/types.h>

#include "devview.h"

/* pid's view (pid 0: the root criu_pid restores); 0, or -errno (nothing read, reason logged) */
int cs_restore_view(pid_t criu_pid, pid_t pid, struct cs_device_view *v);

#endif /* CUDASTORE_RESTORE_VIEW_H */
