// SPDX-License-Identifier: MIT
/*
 * emu_nvml.c - the libnvidia-ml.so.1 subset, consistent with the libcuda emulator.
 *
 * Devices and UUIDs come from the same CUDASTORE_EMU_* variables. A process "runs on" a
 * device when its /proc/PID/maps holds a mapping of a memfd named "cudastore-emu:<UUID>";
 * its used memory is the sum of those mappings. That covers both the application (its device
 * memory) and a caller holding a CustomStorage mapping.
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

#include "cudastore/cuda_ops.h"
#include "emu.h"

#define NVML_API EMU_API

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

NVML_API nvmlReturn_t nvmlInit_v2(void);
NVML_API nvmlReturn_t nvmlInit(void);
NVML_API nvmlReturn_t nvmlShutdown(void);
NVML_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *dev);
NVML_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned int len);
NVML_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
							      nvmlProcessInfo_t *infos);
NVML_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int len);

/*
 * The driver branch that goes with the emulated CUDA version: CustomStorage (13.4) came with
 * R615, CUDA 13.0 with R580.
 */
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int len)
{
	int n;

	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (!version)
		return NVML_ERROR_INVALID_ARGUMENT;
	n = snprintf(version, len, "%s", emu_config()->driver_version >= 13040 ? "615.00.00" : "580.159.04");
	return n < 0 || (unsigned int)n >= len ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
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
		if (!memcmp(emu_config()->uuid[i].bytes, want.bytes, sizeof(want.bytes))) {
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
	cs_uuid_format(&emu_config()->uuid[i], uuid);
	return NVML_SUCCESS;
}

/* bytes of pid's mappings of the device's memfd ("/memfd:cudastore-emu:GPU-... (deleted)") */
static unsigned long long pid_usage(const char *pid, const char *needle)
{
	unsigned long long sum = 0;
	char path[300], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		const char *hit = strstr(line, needle);

		if (!hit || (hit[strlen(needle)] != ' ' && hit[strlen(needle)] != '\n' && hit[strlen(needle)]))
			continue;
		if (sscanf(line, "%lx-%lx", &start, &end) == 2)
			sum += end - start;
	}
	fclose(f);
	return sum;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
						     nvmlProcessInfo_t *infos)
{
	char needle[80], uuid[CS_UUID_STRLEN];
	unsigned int n = 0;
	struct dirent *de;
	int i = dev_index(dev);
	DIR *proc;

	if (!nvml_is_up())
		return NVML_ERROR_UNINITIALIZED;
	if (i < 0 || !count || (*count && !infos))
		return NVML_ERROR_INVALID_ARGUMENT;
	cs_uuid_format(&emu_config()->uuid[i], uuid);
	snprintf(needle, sizeof(needle), "/memfd:%s%s", EMU_MEMFD_PREFIX, uuid);
	proc = opendir("/proc");
	if (!proc)
		return NVML_ERROR_UNKNOWN;
	while ((de = readdir(proc))) {
		unsigned long long used;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		used = pid_usage(de->d_name, needle);
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
