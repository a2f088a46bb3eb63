// SPDX-License-Identifier: MIT
/*
 * test-emu-procaddress: driver version detection as a 13.0 and a 13.4 driver (cuGetProcAddress
 * rules), every cuda_ops.c entry point resolving with its ABI, calls allowed before cuInit,
 * and error names for every code.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "emu-test.h"

typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static void check_version(void *arg)
{
	int version = *(int *)arg, count = -1, v = 0;
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
	struct cs_cuda_ops cu;
	char env[64], err[256];
	void *fn = (void *)1, *v1 = NULL, *v2 = NULL;
	const char *name = NULL;
	bool all = true;
	gpa_fn gpa;
	CUresult res;

	snprintf(env, sizeof(env), "CUDASTORE_EMU_DRIVER_VERSION=%d", version);
	putenv(env);
	emu_test_setup(NULL, NULL);
	if (cs_cuda_load(&cu, NULL, err, sizeof(err))) {
		tap_ok(0, "%d: load: %s", version, err);
		return;
	}
	gpa = (gpa_fn)dlsym(cu.lib, "cuGetProcAddress_v2");
	tap_ok(cu.driver_version == version && cu.has_checkpoint, "%d: cuDriverGetVersion before cuInit", version);
	tap_ok(cu.has_custom_storage == (version >= 13040) && !cu.CheckpointOperationComplete == (version < 13040),
	       "%d: CustomStorage %s", version, version >= 13040 ? "detected" : "absent");
	for (void **p = (void **)&cu.Init; p <= (void **)&cu.CheckpointProcessUnlock; p++)
		all &= *p != NULL;
	tap_ok(all, "%d: every entry of cuda_ops.c's table resolved", version);
	res = gpa("cuCheckpointOperationComplete", &fn, 13040, 0, &st);
	if (version >= 13040)
		tap_ok(CU_OK(res) && fn && st == CU_GET_PROC_ADDRESS_SUCCESS, "13040: Complete resolves at 13040");
	else
		tap_ok(res == CUDA_ERROR_INVALID_VALUE, "13000: asking for 13040 gives INVALID_VALUE (%d)", res);
	fn = (void *)1;
	res = gpa("cuCheckpointOperationComplete", &fn, 13000, 0, &st);
	if (version >= 13040)
		tap_ok(CU_OK(res) && !fn && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
		       "13040: Complete asked for at 13000: VERSION_NOT_SUFFICIENT");
	else
		tap_ok(CU_OK(res) && !fn && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
		       "13000: Complete is unknown: SYMBOL_NOT_FOUND");
	fn = (void *)1;
	res = gpa("cuNoSuchFunction", &fn, 12000, 0, &st);
	tap_ok(CU_OK(res) && !fn && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, "%d: unknown symbol: SUCCESS, NULL, "
	       "SYMBOL_NOT_FOUND", version);
	res = gpa("cuStreamGetDevice", &fn, 12000, 0, &st);
	tap_ok(CU_OK(res) && !fn && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
	       "%d: cuStreamGetDevice at 12000: VERSION_NOT_SUFFICIENT", version);
	gpa("cuStreamGetCtx", &v1, 9020, 0, &st);
	gpa("cuStreamGetCtx", &v2, 12050, 0, &st);
	tap_ok(v1 == dlsym(cu.lib, "cuStreamGetCtx") && v2 == dlsym(cu.lib, "cuStreamGetCtx_v2") && v1 != v2,
	       "%d: cuStreamGetCtx is the 2-argument form at 9020, _v2 at 12050", version);
	tap_ok(cu.DeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED, "%d: cuDeviceGetCount before cuInit", version);
	tap_ok(CU_OK(cu.GetErrorName(CUDA_ERROR_ILLEGAL_STATE, &name)) && !strcmp(name, "CUDA_ERROR_ILLEGAL_STATE"),
	       "%d: cuGetErrorName before cuInit", version);
	tap_ok(CU_OK(cu.Init(0)) && CU_OK(cu.DeviceGetCount(&count)) && count == 1 && CU_OK(cu.DriverGetVersion(&v)) &&
		       v == version, "%d: after cuInit: 1 device", version);
}

int main(void)
{
	static const CUresult codes[] = { 0, 1, 2, 3, 4, 100, 101, 201, 304, 400, 401, 500, 600, 700, 801, 900, 909, 999 };
	int v13000 = 13000, v13040 = 13040;
	struct cs_cuda_ops cu;
	bool names = true;
	const char *s;

	emu_test_fork(check_version, &v13040);
	emu_test_fork(check_version, &v13000);
	emu_test_setup(NULL, &cu);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		s = NULL;
		names &= CU_OK(cu.GetErrorName(codes[i], &s)) && s && !strncmp(s, "CUDA_", 5);
		s = NULL;
		names &= CU_OK(cu.GetErrorString(codes[i], &s)) && s && *s;
	}
	tap_ok(names, "cuGetErrorName/String know every code of cuda_api.h");
	tap_ok(cu.GetErrorName(12345, &s) == CUDA_ERROR_INVALID_VALUE, "unknown code: INVALID_VALUE");
	tap_plan(tap_n);
	return tap_done();
}
