// SPDX-License-Identifier: MIT
/* device_view.c - the GPUs the restored process can open (see device_view.h) */
#include <stdio.h>

#include "device_view.h"

/* "/dev/nvidia2 (minor 2), ..." : the view's nodes by minor number, for the note */
static void list_minors(const struct cs_device_view *v, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < v->n && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%u", i ? "," : "", v->minor[i]);
}

unsigned cs_view_restrict(struct cs_restore_host *h, const struct cs_device_view *v, char *note, size_t len)
{
	unsigned closed = 0, i;
	char minors[160];

	if (!v->n) {
		snprintf(note, len,
			 "%s holds no GPU device node (/dev/nvidiaN, major %d): every GPU of the host is "
			 "a candidate",
			 v->dir, CS_NVIDIA_MAJOR);
		return 0;
	}
	for (i = 0; i < h->ngpu; i++)
		if (h->gpu[i].minor < 0) {
			snprintf(note, len,
				 "GPU %d's device node minor number is unknown (NVML lacks "
				 "nvmlDeviceGetMinorNumber, or there is no NVML): the GPUs are placed "
				 "without reading which ones %s holds",
				 h->gpu[i].ordinal, v->dir);
			return 0;
		}
	for (i = 0; i < h->ngpu; i++) {
		h->gpu[i].closed = !cs_devview_has(v, (uint32_t)h->gpu[i].minor);
		closed += h->gpu[i].closed;
	}
	list_minors(v, minors, sizeof(minors));
	snprintf(note, len,
		 "%s holds the GPU device nodes of minor numbers %s: %u of this host's %u GPUs can be "
		 "opened there, only those are placed onto",
		 v->dir, minors, h->ngpu - closed, h->ngpu);
	return closed;
}
