/* SPDX-License-Identifier: MIT */
/*
 * device_view.h - which of a restore host's GPUs the restored process can open: those whose
 * device node (/dev/nvidiaN, by its minor number, devview.h) is in the /dev of its mount
 * namespace. A container given GPUs 2 and 5 of a host of 8 has two such nodes, whatever they
 * are named there, and sees them as its CUDA ordinals 0 and 1; a restore that sent a GPU
 * elsewhere would fail in the driver, after processes were touched. So the GPUs it cannot open
 * are marked closed (facts.h) before placement (placement.h), which then never chooses them and
 * refuses a device map that names one. Pure: no I/O, no logging.
 */
#ifndef CUDASTORE_DEVICE_VIEW_H
#define CUDASTORE_DEVICE_VIEW_H

#include <stddef.h>

#include "devview.h"
#include "facts.h"

#define CS_VIEW_NOTE_MAX 512

/*
 * Marks closed every GPU of h whose minor number is not among v's device nodes, and says in
 * note what was done. Nothing is restricted (and note says why) when v holds no GPU device node
 * (a /dev without them: a host without the NVIDIA driver, a root that does not show them) or
 * when a GPU's minor number is unknown (no NVML, or one without nvmlDeviceGetMinorNumber).
 * Returns the number of GPUs marked closed.
 */
unsigned cs_view_restrict(struct cs_restore_host *h, const struct cs_device_view *v, char *note, size_t len);

#endif /* CUDASTORE_DEVICE_VIEW_H */
