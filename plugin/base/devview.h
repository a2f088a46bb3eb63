/* SPDX-License-Identifier: MIT */
/*
 * devview.h - the GPUs a process can open: the NVIDIA GPU device nodes (/dev/nvidiaN, char
 * major 195) under a /dev directory, usually /proc/PID/root/dev, the /dev of the mount namespace
 * a restored process lives in. A node's minor number names the physical GPU (NVML's
 * nvmlDeviceGetMinorNumber); the N of its name may differ (a container may number its nodes
 * anew), so the name only finds the nodes and the minor counts. Nothing is opened.
 */
#ifndef CUDASTORE_DEVVIEW_H
#define CUDASTORE_DEVVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "imglimits.h"

#define CS_NVIDIA_MAJOR	    195 /* NVIDIA's character device major number */
#define CS_NVIDIA_MINOR_CTL 254 /* 254 and 255 are nvidia-modeset and nvidiactl, never a GPU */
#define CS_VIEW_MAX	    64	/* GPU device nodes read at most */
#define CS_VIEW_DIR_MAX	    64	/* "/proc/4194304/root/dev" */

struct cs_device_view {
	char dir[CS_VIEW_DIR_MAX]; /* the /dev that was read */
	unsigned n;		   /* GPU device nodes found there */
	uint32_t minor[CS_VIEW_MAX];
};

/* the GPU device nodes of dir into v (sorted by minor, each once): 0, or -errno (dir unreadable) */
int cs_devview_read(const char *dir, struct cs_device_view *v);
/* the same for pid's root: /proc/PID/root/dev */
int cs_devview_of_pid(pid_t pid, struct cs_device_view *v);
/* minor is among v's nodes */
bool cs_devview_has(const struct cs_device_view *v, uint32_t minor);

#endif /* CUDASTORE_DEVVIEW_H */
