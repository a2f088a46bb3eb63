/* SPDX-License-Identifier: MIT */
/*
 * emu_nvml.h - the NVML functions the emulated libnvidia-ml.so.1 exports, and the layouts of
 * the NVML structures they fill.
 *
 * The prototypes follow NVIDIA's NVML header (the versioned names it maps the plain ones to, as
 * nvmlDeviceGetPciInfo_v3). The structures carry emulator names with NVML's layout, pinned
 * below, so that cudastore's own declarations may later name the real ones without a clash.
 */
#ifndef CUDASTORE_EMU_NVML_H
#define CUDASTORE_EMU_NVML_H

#include "emu.h"

#define NVML_API EMU_API

#define EMU_NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25

/* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) */
struct emu_nvml_pci_info {
	char busIdLegacy[16]; /* "%04X:%02X:%02X.0" */
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId; /* device id << 16 | vendor id */
	unsigned int pciSubSystemId;
	char busId[32]; /* "%08X:%02X:%02X.0" */
};

/* nvmlMemory_t */
struct emu_nvml_memory {
	unsigned long long total, free, used;
};

/* nvmlMemory_v2_t; version must be EMU_NVML_MEMORY_V2 (NVML's nvmlMemory_v2) */
struct emu_nvml_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};
#define EMU_NVML_MEMORY_V2 ((unsigned int)(sizeof(struct emu_nvml_memory_v2) | 2u << 24))

_Static_assert(sizeof(struct emu_nvml_pci_info) == 68, "nvmlPciInfo_t");
_Static_assert(offsetof(struct emu_nvml_pci_info, busId) == 36, "nvmlPciInfo_t.busId");
_Static_assert(sizeof(struct emu_nvml_memory) == 24, "nvmlMemory_t");
_Static_assert(sizeof(struct emu_nvml_memory_v2) == 40, "nvmlMemory_v2_t");
_Static_assert(offsetof(struct emu_nvml_memory_v2, total) == 8, "nvmlMemory_v2_t.total");

NVML_API nvmlReturn_t nvmlInit_v2(void);
NVML_API nvmlReturn_t nvmlInit(void);
NVML_API nvmlReturn_t nvmlShutdown(void);
NVML_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
NVML_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
NVML_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
NVML_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, struct emu_nvml_pci_info *pci);
NVML_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
NVML_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
					   unsigned int *pendingMode);
NVML_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, struct emu_nvml_memory *memory);
NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, struct emu_nvml_memory_v2 *memory);
NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
							      nvmlProcessInfo_t *infos);

#endif /* CUDASTORE_EMU_NVML_H */
