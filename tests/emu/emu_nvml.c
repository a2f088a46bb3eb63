// SPDX-License-Identifier: MIT
/*
 * emu_nvml.c - the libnvidia-ml.so.1 subset, consistent with the libcuda emulator.
 *
 * Devices and their facts (UUID, name, compute capability, PCI bus ID, MIG mode, memory) come
 * from the same CUDASTORE_EMU_* variables; like the real NVML, it sees every device of the
 * host whatever CUDA_VISIBLE_DEVICES says. A process "runs on" a device when its
 * /proc/PID/maps holds a mapping of a memfd named "cudastore-emu:<UUID>"; its used memory is
 * the sum of those mappings. That covers both the application (its device memory) and a
 * caller holding a CustomStorage mapping. A device's used memory is what other tenants use
 * (CUDASTORE_EMU_USED_MB) plus every such memfd, each counted once (at the most any one
 * process maps of it), as the caller and the application map the same memfd during a
 * CustomStorage checkpoint.
 *
 * As in NVML, nvmlInit/nvmlShutdown are reference counted (the library shuts down when the
 * count reaches zero), so threads of one process may each init, query and shut down.
 */
#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"
#include "emu_nvml.h"

struct nvmlDevice_st {
	int index;
};

static struct nvmlDevice_st nvml_devs[EMU_MAXDEV] = {
	{ 0 }, { 1 }, { 2 }, { 3 }, { 4 }, { 5 }, { 6 }, { 7 }
};
_Static_assert(EMU_MAXDEV == 8, "one device initialiser per ordinal");
static unsigned int nvml_refs; /* written under nvml_lock, read atomically */
static pthread_mutex_t nvml_lock = PTHREAD_MUTEX_INITIALIZER;

static bool nvml_is_up(void)
{
	return __atomic_load_n(&nvml_refs, __ATOMIC_ACQUIRE) > 0;
}

/* a string answer: INSUFFICIENT_SIZE when it does not fit, as NVML */
static nvmlReturn_t put_text(char *buf, unsigned int len, const char *text)
{
	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(text) >= len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, text, strlen(text) + 1);
	return NVML_SUCCESS;
}

/*
 * CUDASTORE_EMU_DRIVER_STRING, by default the branch that goes with the emulated CUDA version:
 * CustomStorage (13.4) came with R615, CUDA 13.0 with R580.
 */
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int len)
{
	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	return put_text(version, len, emu_config()->driver_string);
}

/* the CUDA version of the driver, as cuDriverGetVersion gives it */
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version)
{
	if (!version)
		return NVML_ERROR_INVALID_ARGUMENT;
	*version = emu_config()->driver_version;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version)
{
	return nvmlSystemGetCudaDriverVersion(version);
}

nvmlReturn_t nvmlInit_v2(void)
{
	emu_config();
	pthread_mutex_lock(&nvml_lock);
	__atomic_store_n(&nvml_refs, nvml_refs + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&nvml_lock);
	emu_trace("nvmlInit_v2", 0);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void)
{
	return nvmlInit_v2();
}

nvmlReturn_t nvmlShutdown(void)
{
	bool was_up;

	pthread_mutex_lock(&nvml_lock);
	was_up = nvml_refs > 0;
	if (was_up)
		__atomic_store_n(&nvml_refs, nvml_refs - 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&nvml_lock);
	if (!was_up)
		return NVML_ERROR_UNINITIALIZED;
	emu_trace("nvmlShutdown", 0);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = (unsigned int)emu_config()->ndev;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev)
{
	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (!dev || index >= (unsigned int)emu_config()->ndev)
		return NVML_ERROR_INVALID_ARGUMENT;
	*dev = &nvml_devs[index];
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *dev)
{
	CUuuid want;

	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (!uuid || !dev || cs_uuid_parse(uuid, &want))
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < emu_config()->ndev; i++)
		if (!memcmp(emu_config()->gpu[i].uuid.bytes, want.bytes, sizeof(want.bytes))) {
			*dev = &nvml_devs[i];
			return NVML_SUCCESS;
		}
	return NVML_ERROR_NOT_FOUND;
}

static int dev_index(nvmlDevice_t dev)
{
	for (int i = 0; i < emu_config()->ndev; i++)
		if (dev == &nvml_devs[i])
			return i;
	return -1;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned int len)
{
	int i = dev_index(dev);

	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (i < 0 || !uuid)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (len < CS_UUID_STRLEN)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	cs_uuid_format(&emu_config()->gpu[i].uuid, uuid);
	return NVML_SUCCESS;
}

/* the device's facts, or NULL (NVML not up, or not a device handle) */
static const struct emu_gpu *dev_gpu(nvmlDevice_t dev)
{
	int i = dev_index(dev);

	return nvml_is_up() && i >= 0 ? &emu_config()->gpu[i] : NULL;
}

/* NVML's answer for a call on dev whose output pointers are all given (ok) or not */
static nvmlReturn_t dev_check(nvmlDevice_t dev, bool ok)
{
	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	return dev_gpu(dev) && ok ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned int len)
{
	nvmlReturn_t r = dev_check(dev, name);

	return r == NVML_SUCCESS ? put_text(name, len, dev_gpu(dev)->name) : r;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, struct emu_nvml_pci_info *pci)
{
	nvmlReturn_t r = dev_check(dev, pci);
	const struct emu_gpu *g;

	if (r != NVML_SUCCESS)
		return r;
	g = dev_gpu(dev);
	memset(pci, 0, sizeof(*pci));
	pci->domain = g->pci_domain;
	pci->bus = g->pci_bus;
	pci->device = g->pci_device;
	pci->pciDeviceId = 0x10de; /* NVIDIA's vendor id; no device id is emulated */
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X", g->pci_domain & 0xffff,
		 g->pci_bus, g->pci_device, g->pci_function);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", g->pci_domain, g->pci_bus, g->pci_device,
		 g->pci_function);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t dev, int *major, int *minor)
{
	nvmlReturn_t r = dev_check(dev, major && minor);

	if (r == NVML_SUCCESS) {
		*major = dev_gpu(dev)->cc_major;
		*minor = dev_gpu(dev)->cc_minor;
	}
	return r;
}

/* the N of the device's /dev/nvidiaN (CUDASTORE_EMU_MINORS) */
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t dev, unsigned int *minor)
{
	nvmlReturn_t r = dev_check(dev, minor);

	if (r == NVML_SUCCESS)
		*minor = dev_gpu(dev)->minor;
	return r;
}

/* the mode configured is current, and nothing is pending: pending equals current */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t dev, unsigned int *current, unsigned int *pending)
{
	nvmlReturn_t r = dev_check(dev, current && pending);

	if (r == NVML_SUCCESS)
		*current = *pending = dev_gpu(dev)->mig ? 1 : 0;
	return r;
}

/* one memfd of a device and the bytes mapped of it; memfds beyond MAX_MEMFDS go uncounted */
#define MAX_MEMFDS 256
struct memfd_use {
	unsigned long ino;
	unsigned long long bytes;
};

/* adds bytes to ino's entry in uses (n of them, room for MAX_MEMFDS), keeping the larger or the sum */
static void use_add(struct memfd_use *uses, int *n, unsigned long ino, unsigned long long bytes, bool sum)
{
	int i;

	for (i = 0; i < *n && uses[i].ino != ino; i++)
		;
	if (i == *n) {
		if (*n == MAX_MEMFDS)
			return;
		uses[(*n)++] = (struct memfd_use){ ino, 0 };
	}
	uses[i].bytes = sum ? uses[i].bytes + bytes : (bytes > uses[i].bytes ? bytes : uses[i].bytes);
}

/*
 * Bytes of pid's mappings of the device's memfds ("/memfd:cudastore-emu:GPU-... (deleted)").
 * With uses, each memfd's bytes in pid also raise its entry there to at least that much.
 */
static unsigned long long pid_usage(const char *pid, const char *needle, struct memfd_use *uses, int *nuses)
{
	struct memfd_use mine[MAX_MEMFDS];
	unsigned long long sum = 0;
	char path[300], line[512];
	int nmine = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, ino;
		const char *hit = strstr(line, needle);

		if (!hit || (hit[strlen(needle)] != ' ' && hit[strlen(needle)] != '\n' && hit[strlen(needle)]))
			continue;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &start, &end, &ino) != 3)
			continue;
		sum += end - start;
		use_add(mine, &nmine, ino, end - start, true);
	}
	fclose(f);
	for (int i = 0; uses && i < nmine; i++)
		use_add(uses, nuses, mine[i].ino, mine[i].bytes, false);
	return sum;
}

/* the memfd name every mapping of device i's memory carries */
static void dev_needle(int i, char *needle, size_t len)
{
	char uuid[CS_UUID_STRLEN];

	cs_uuid_format(&emu_config()->gpu[i].uuid, uuid);
	snprintf(needle, len, "/memfd:%s%s", EMU_MEMFD_PREFIX, uuid);
}

/* the bytes of device i's memfds that processes map, each memfd once; -1 if /proc is unreadable */
static long long dev_mapped(int i)
{
	struct memfd_use uses[MAX_MEMFDS];
	unsigned long long sum = 0;
	char needle[80];
	struct dirent *de;
	int nuses = 0;
	DIR *proc;

	dev_needle(i, needle, sizeof(needle));
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while ((de = readdir(proc)))
		if (isdigit((unsigned char)de->d_name[0]))
			pid_usage(de->d_name, needle, uses, &nuses);
	closedir(proc);
	for (int u = 0; u < nuses; u++)
		sum += uses[u].bytes;
	return (long long)sum;
}

/* total, and used = other tenants' plus every emulated process's, free = the rest */
static nvmlReturn_t dev_memory(nvmlDevice_t dev, unsigned long long *total, unsigned long long *free_bytes,
			       unsigned long long *used)
{
	const struct emu_gpu *g = dev_gpu(dev);
	long long mapped = dev_mapped(dev_index(dev));

	if (mapped < 0)
		return NVML_ERROR_UNKNOWN;
	*total = g->mem;
	*used = g->other + (unsigned long long)mapped;
	*free_bytes = *used < *total ? *total - *used : 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, struct emu_nvml_memory *memory)
{
	nvmlReturn_t r = dev_check(dev, memory);

	return r == NVML_SUCCESS ? dev_memory(dev, &memory->total, &memory->free, &memory->used) : r;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, struct emu_nvml_memory_v2 *memory)
{
	nvmlReturn_t r = dev_check(dev, memory);

	if (r != NVML_SUCCESS)
		return r;
	if (memory->version != EMU_NVML_MEMORY_V2)
		return EMU_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	memory->reserved = 0;
	return dev_memory(dev, &memory->total, &memory->free, &memory->used);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
						     nvmlProcessInfo_t *infos)
{
	char needle[80];
	unsigned int n = 0;
	struct dirent *de;
	int i = dev_index(dev);
	DIR *proc;

	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (i < 0 || !count || (*count && !infos))
		return NVML_ERROR_INVALID_ARGUMENT;
	dev_needle(i, needle, sizeof(needle));
	proc = opendir("/proc");
	if (!proc)
		return NVML_ERROR_UNKNOWN;
	while ((de = readdir(proc))) {
		unsigned long long used;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		used = pid_usage(de->d_name, needle, NULL, NULL);
		if (!used)
			continue;
		if (n < *count) {
			infos[n].pid = (unsigned int)atoi(de->d_name);
			infos[n].usedGpuMemory = used;
			infos[n].gpuInstanceId = 0xffffffffu;
			infos[n].computeInstanceId = 0xffffffffu;
		}
		n++;
	}
	closedir(proc);
	if (n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_SUCCESS;
}
