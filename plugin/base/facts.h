/* SPDX-License-Identifier: MIT */
/*
 * facts.h - what a restore host must match (image format 1.4): the GPUs a process used and the
 * host that dumped it, as its manifest records them (manifest.h: ngpu, gpu[], host), and the
 * same facts of the host that restores (filled by the helper and by cudastore check).
 *
 * The manifest's decoder checks them (cs_facts_check_*): at most CS_MAX_DEVICES GPUs, 16-byte
 * UUIDs listed once, strings of printable ASCII within the limits below, a compute capability
 * and a memory size in range. Images of format 1.0 to 1.3 have none: host.known is false and
 * ngpu 0, and what depends on them says so.
 */
#ifndef CUDASTORE_FACTS_H
#define CUDASTORE_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_api.h"
#include "imglimits.h"

#define CS_FACT_NAME_MAX    96	/* a product name, NUL included */
#define CS_FACT_BUS_MAX	    32	/* a PCI bus id: "0000:06:00.0" */
#define CS_FACT_DRIVER_MAX  32	/* a driver version string: "580.159.04" */
#define CS_FACT_LIBCUDA_MAX 80	/* "build-id:" + 40 hex, or "sha256:" + 64 hex */
#define CS_FACT_ARCH_MAX    16	/* "x86_64", "aarch64" */
#define CS_FACT_VISIBLE_MAX 256 /* a CUDA_VISIBLE_DEVICES value */

struct cs_gpu_facts {
	CUuuid uuid;
	char name[CS_FACT_NAME_MAX];
	unsigned cc_major, cc_minor;
	uint64_t total_memory; /* bytes */
	char bus_id[CS_FACT_BUS_MAX];
	bool mig;		 /* MIG mode on */
	int32_t ordinal;	 /* CUDA ordinal with every GPU visible */
	int32_t process_ordinal; /* the ordinal the process saw it as; -1: unknown */
	uint64_t used_bytes;	 /* the process's memory on it at dump; 0: unknown */
	uint64_t free_memory;	 /* a restore host's: free now (not in images) */
	int32_t minor;		 /* a restore host's: the N of its /dev/nvidiaN (NVML); -1: unknown */
	bool closed;		 /* a restore host's: no device node in the restored process's /dev */
};

struct cs_host_facts {
	bool known;				 /* recorded (format 1.4), or probed on this host */
	char driver_version[CS_FACT_DRIVER_MAX]; /* "580.159.04"; "": unknown */
	unsigned branch;			 /* 580; 0: unknown */
	char libcuda_id[CS_FACT_LIBCUDA_MAX];	 /* "": unknown */
	char arch[CS_FACT_ARCH_MAX];
	bool has_visible;			   /* the process had CUDA_VISIBLE_DEVICES set */
	char visible_devices[CS_FACT_VISIBLE_MAX]; /* its value */
};

/* A host that restores, as probed (gpu_probe.h) and judged (restore_plan.h). */
struct cs_restore_host {
	struct cs_host_facts host;
	int cuda_version;	/* cuDriverGetVersion; 0: no usable driver */
	bool custom_storage;	/* the driver has CustomStorage */
	char driver_error[160]; /* why there is no usable driver ("" when there is one) */
	unsigned ngpu;		/* GPUs visible, by ordinal */
	struct cs_gpu_facts gpu[CS_MAX_DEVICES];
};

/* The driver branch of a version string ("580.159.04" -> 580), 0 when it has none. */
unsigned cs_facts_branch(const char *driver_version);
/* driver versions compared part by part ("580.159.04" < "580.160"): <0, 0 or >0 */
int cs_facts_version_cmp(const char *a, const char *b);
/* s is printable ASCII and shorter than max: 0; else -EINVAL with why in err (naming what) */
int cs_facts_check_string(const char *what, const char *s, size_t max, char *err, size_t errlen);

#endif /* CUDASTORE_FACTS_H */
