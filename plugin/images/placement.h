/* SPDX-License-Identifier: MIT */
/*
 * placement.h - where a restore sends each checkpointed GPU, decided before anything is touched.
 *
 * One decision for a whole tree: the checkpointed GPUs are the union of its manifests' (by
 * UUID), so processes that shared a GPU keep sharing one. The restore host's GPUs come with
 * their facts (facts.h, free memory included). A GPU marked closed (the restored process has no
 * device node for it, device_view.h) is never chosen, and a map onto one is refused. Rules, in
 * order:
 *   - an explicit map (UUIDs, or ordinals: the dumping host's ordinal = this host's) wins: it
 *     must name every checkpointed GPU, each onto a distinct GPU that exists here;
 *   - else every checkpointed GPU goes to a distinct GPU of the same product name, compute
 *     capability and memory size, MIG off, with the memory the process used on it free: the
 *     same UUID first, then the same ordinal, then the one with the most free memory (a search
 *     that backs off when a greedy choice would leave another GPU without a place);
 *   - images without facts (format < 1.4) can only be matched by UUID: a visible UUID goes to
 *     itself, a single GPU that is not visible to the GPU of its ordinal (or GPU 0), as before.
 * No possible placement: -ENODEV with every GPU's reasons in why. Pure: no driver call, no log;
 * the restore and `cudastore check --images` call it with the same facts and so agree.
 */
#ifndef CUDASTORE_PLACEMENT_H
#define CUDASTORE_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"
#include "options.h" /* struct cs_device_pair: a map's pair, by UUID or by ordinal */

#define CS_PLACE_HOW_MAX 160

/* One checkpointed GPU to place: its recorded facts (has_facts false: only its UUID and ordinal). */
struct cs_place_want {
	bool has_facts;
	struct cs_gpu_facts facts;
};

/*
 * dest[i] = the index in host[] of want[i]'s GPU; how[i] says why it was chosen (for the log).
 * 0, or -ENODEV (no placement) / -EINVAL (a bad map) with the reasons in why.
 */
int cs_place(const struct cs_place_want *want, unsigned nwant, const struct cs_gpu_facts *host,
	     unsigned nhost, const struct cs_device_pair *map, unsigned nmap, int *dest,
	     char (*how)[CS_PLACE_HOW_MAX], char *why, size_t whylen);

#endif /* CUDASTORE_PLACEMENT_H */
