/* SPDX-License-Identifier: MIT */
/*
 * gpu_probe.h - this host's GPUs and driver as facts (facts.h): what a dump records of the
 * host it runs on, and what a restore host is judged by (placement.h). No context is made:
 * the CUDA facts (name, compute capability, memory, bus id) need only cuInit, free memory and
 * MIG mode and the device node's minor number come from NVML (nv may be NULL: free memory then
 * reads as the whole memory, MIG as off, the minor as unknown (-1), and the driver's version
 * string comes from /proc/driver/nvidia/version).
 */
#ifndef CUDASTORE_GPU_PROBE_H
#define CUDASTORE_GPU_PROBE_H

#include "cuda_ops.h"
#include "facts.h"

/* GPU ordinal's facts into g; 0 or -ENODEV when the driver does not answer for it */
int cs_probe_gpu(const struct cs_cuda_ops *cu, const struct cs_nvml_ops *nv, int ordinal,
		 struct cs_gpu_facts *g);
/* the driver's version string and branch, the loaded libcuda's identity, the architecture */
void cs_probe_host(const struct cs_cuda_ops *cu, const struct cs_nvml_ops *nv, struct cs_host_facts *h);
/*
 * This host as a restore judges it (restore_plan.h): cuInit, then the driver (cu's version and
 * CustomStorage, the host facts) and every GPU it makes visible. The caller's environment must
 * hide no GPU (no CUDA_VISIBLE_DEVICES: the helper gets a clean one, the cudastore command
 * removes it before it loads libcuda), so that the command and the restore see the same GPUs.
 */
void cs_probe_restore_host(const struct cs_cuda_ops *cu, const struct cs_nvml_ops *nv,
			   struct cs_restore_host *h);
/* "build-id:<hex>" of the ELF file path (its GNU build-id note), or -ENOENT/-errno */
int cs_probe_build_id(const char *path, char *out, size_t len);

#endif /* CUDASTORE_GPU_PROBE_H */
