// SPDX-License-Identifier: MIT
/*
 * emu_init.c - cuInit, cuDriverGetVersion and the error strings: the calls that work
 * before cuInit (with cuGetProcAddress).
 *
 * cuInit opens the device file when one is configured, reserves each device's virtual
 * address range and starts the driver thread. It is not repeated after a CRIU restore: the
 * restored memory already says "initialized", the device file, the reservations and the
 * listening socket come back with the process, and the driver thread resumes in accept().
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_api.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool init_done;
static int devfile_fd = -1;

/*
 * The driver's device file (CUDASTORE_EMU_DEVICE_FILE): the real driver opens /dev/nvidiactl and
 * /dev/nvidiaN in cuInit, maps them and holds both for the life of the process, so the file is
 * opened and one page of it mapped here, and neither is ever closed. The mapping is private: a
 * shared mapping of a node with /dev/zero's numbers, which the tests create, is shown in
 * /proc/PID/maps as the kernel's "/dev/zero (deleted)" instead of the file's path.
 */
static int devfile_open(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto err;
	}
	if (mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
		ret = -errno;
		close(fd);
		goto err;
	}
	devfile_fd = fd;
	return 0;
err:
	fprintf(stderr, "cudastore-emu[%d]: cannot open and map CUDASTORE_EMU_DEVICE_FILE %s: %s\n", getpid(),
		path, strerror(-ret));
	return ret;
}

bool emu_initialized(void)
{
	return __atomic_load_n(&init_done, __ATOMIC_ACQUIRE);
}

static CUresult init_once(unsigned int flags)
{
	const struct emu_config *c = emu_config();
	CUresult res = CUDA_SUCCESS;

	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&init_lock);
	if (init_done)
		goto out;
	if (!emu_ndev()) { /* none configured, or CUDA_VISIBLE_DEVICES leaves none */
		res = CUDA_ERROR_NO_DEVICE;
		goto out;
	}
	if (c->device_file[0] && devfile_fd < 0 && devfile_open(c->device_file)) {
		res = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	for (int d = 0; d < emu_ndev(); d++)
		if (emu_mem_reserve(d)) {
			res = CUDA_ERROR_OUT_OF_MEMORY;
			goto out;
		}
	if (emu_driver_start()) {
		res = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	__atomic_store_n(&init_done, true, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&init_lock);
	return res;
}

CUresult cuInit(unsigned int flags)
{
	EMU_CALL("cuInit", 0, init_once(flags));
}

static CUresult driver_version(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = emu_config()->driver_version;
	return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *version)
{
	EMU_CALL("cuDriverGetVersion", 0, driver_version(version));
}

static const struct {
	CUresult code;
	const char *name;
	const char *text;
} errors[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down" },
	{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
	{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing" },
	{ CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT", "timeout occurred" },
	{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static CUresult error_text(CUresult err, const char **out, bool name)
{
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == err) {
			*out = name ? errors[i].name : errors[i].text;
			return CUDA_SUCCESS;
		}
	*out = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult err, const char **name)
{
	EMU_CALL("cuGetErrorName", 0, error_text(err, name, true));
}

CUresult cuGetErrorString(CUresult err, const char **str)
{
	EMU_CALL("cuGetErrorString", 0, error_text(err, str, false));
}
