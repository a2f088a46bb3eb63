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

#include <pthread.h>
#include <stdbool.h>

#include "cuda_ops.h"
#include "manifest.h"
#include "options.h"

/*
 * The GPUs this helper sees (owned here: no other file writes it). A batch's workers retain
 * GPUs at the same time: every call that changes it takes mu. retained[] is read without it
 * once a GPU is retained (a context, once retained, is kept until cs_dev_release_all).
 */
struct cs_gpus {
	const struct cs_cuda_ops *cuda;
	pthread_mutex_t mu;
	bool inited;			    /* cuInit called in this (helper) process */
	int ndev;			    /* GPUs visible to us */
	CUcontext retained[CS_MAX_DEVICES]; /* primary contexts we hold, by ordinal */
};

/* g empty, its driver calls through cuda (loaded later: the table is read at each call) */
void cs_dev_setup(struct cs_gpus *g, const struct cs_cuda_ops *cuda);
int cs_dev_init(struct cs_gpus *g);
/* ordinal of the visible GPU with this UUID, or -ENODEV */
int cs_dev_by_uuid(struct cs_gpus *g, const CUuuid *uuid);
int cs_dev_uuid(struct cs_gpus *g, int ordinal, CUuuid *uuid);
int cs_dev_retain(struct cs_gpus *g, int ordinal);
int cs_dev_retain_all(struct cs_gpus *g);
void cs_dev_release_all(struct cs_gpus *g);
/* ordinal of the retained GPU whose primary context owns stream, or -errno */
int cs_dev_of_stream(struct cs_gpus *g, CUstream stream);
/* the context retained for ordinal (NULL: none) */
CUcontext cs_dev_ctx(const struct cs_gpus *g, int ordinal);

/*
 * Where each checkpointed GPU goes on restore: dest[i] = UUID for manifest device i.
 * With a device map (map[0..nmap), nmap 0 = none) every manifest UUID must be listed; without
 * one, a UUID present here maps to itself, and a single checkpointed GPU that is absent maps to
 * the visible GPU with its ordinal (or GPU 0). Pure function: the visible UUIDs are passed in.
 */
int cs_dev_plan_restore(const struct cs_manifest *m, const struct cs_device_pair *map, unsigned nmap,
			const CUuuid *visible, int nvisible, CUuuid *dest, char *err, size_t errlen);

#endif /* CUDASTORE_DEVICES_H */
