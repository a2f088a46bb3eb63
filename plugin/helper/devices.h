/* SPDX-License-Identifier: MIT */
/*
 * devices.h - GPUs as the plugin sees them: cuInit, primary contexts, UUIDs, device maps.
 *
 * The CustomStorage calls need the caller to have called cuInit and retained the primary
 * context of every GPU the target uses (else CUDA_ERROR_INVALID_CONTEXT). We retain only
 * those GPUs, so other tenants' GPUs get no context from us, and keep the references until
 * the helper exits (releasing them early can fault a restored target: the driver maps its
 * memory through them until the operation is complete).
 */
#ifndef CUDASTORE_DEVICES_H
#define CUDASTORE_DEVICES_H

#include "context.h"

int cs_dev_init(struct cs_ctx *ctx);
/* ordinal of the visible GPU with this UUID, or -ENODEV */
int cs_dev_by_uuid(struct cs_ctx *ctx, const CUuuid *uuid);
int cs_dev_uuid(struct cs_ctx *ctx, int ordinal, CUuuid *uuid);
int cs_dev_retain(struct cs_ctx *ctx, int ordinal);
int cs_dev_retain_all(struct cs_ctx *ctx);
void cs_dev_release_all(struct cs_ctx *ctx);
/* ordinal of the retained GPU whose primary context owns stream, or -errno */
int cs_dev_of_stream(struct cs_ctx *ctx, CUstream stream);

/*
 * Where each checkpointed GPU goes on restore: dest[i] = UUID for manifest device i.
 * With a device map (map[0..nmap), nmap 0 = none) every manifest UUID must be listed; without
 * one, a UUID present here maps to itself, and a single checkpointed GPU that is absent maps to
 * the visible GPU with its ordinal (or GPU 0). Pure function: the visible UUIDs are passed in.
 */
int cs_dev_plan_restore(const struct cs_manifest *m, const struct cs_device_pair *map, unsigned nmap,
			const CUuuid *visible, int nvisible, CUuuid *dest, char *err, size_t errlen);

#endif /* CUDASTORE_DEVICES_H */
