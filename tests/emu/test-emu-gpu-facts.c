// SPDX-License-Identifier: MIT
/*
 * test-emu-gpu-facts: every fact of an emulated GPU (name, compute capability, PCI bus ID, MIG
 * mode, memory with other tenants, driver version) is answered alike by CUDA and NVML: today's
 * defaults when no variable is set, the configured values of a host of mixed GPUs (one of them
 * full), and a restore onto another host's GPU gives the restored device that GPU's facts
 * (a full GPU refused, a larger one usable beyond the old capacity).
 */
#include <dlfcn.h>
#include <string.h>

#include "emu-test.h"
#include "emu_api.h"
#include "emu_nvml.h"

#define MiB (1ULL << 20)

static struct cs_cuda_ops cu;
static struct cs_nvml_ops nv;
static char uuid_text[6][CS_UUID_STRLEN]; /* unique to this run: NVML's memory account is host-wide */

/* what one device should report */
struct want {
	const char *name;
	int cc_major, cc_minor;
	const char *bus_id; /* as cuDeviceGetPCIBusId prints it */
	unsigned int domain, bus, device;
	unsigned int mig;
	unsigned long long total;
};

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p)
		tap_bail("the emulator lacks %s", name);
	return p;
}
#define NV(fn) ((__typeof(fn) *)sym(nv.lib, #fn))

/* through cuGetProcAddress at the driver's version, as cs_cuda_load resolves every entry */
static void *cu_proc(const struct cs_cuda_ops *c, const char *name)
{
	__typeof(cuGetProcAddress_v2) *gpa =
	    (__typeof(cuGetProcAddress_v2) *)sym(c->lib, "cuGetProcAddress_v2");
	CUdriverProcAddressQueryResult st;
	void *fn = NULL;

	if (!CU_OK(gpa(name, &fn, c->driver_version, 0, &st)) || st != CU_GET_PROC_ADDRESS_SUCCESS || !fn)
		tap_bail("cuGetProcAddress does not resolve %s", name);
	return fn;
}

static void load(const char *const *env)
{
	char err[256];

	emu_test_setup(env, &cu);
	if (cs_nvml_load(&nv, NULL, err, sizeof(err)) || nv.Init() != NVML_SUCCESS)
		tap_bail("cannot load the NVML emulator: %s", err);
	if (!CU_OK(cu.Init(0)))
		tap_bail("cuInit failed");
}

static int cu_attr(int attr, int dev)
{
	int v = -1;

	return CU_OK(cu.DeviceGetAttribute(&v, attr, dev)) ? v : -1;
}

/* CUDA's ordinal dev and NVML's index dev (no CUDA_VISIBLE_DEVICES here) report w */
static void check_device(int dev, const struct want *w)
{
	__typeof(cuDeviceGetPCIBusId) *bus_id =
	    (__typeof(cuDeviceGetPCIBusId) *)cu_proc(&cu, "cuDeviceGetPCIBusId");
	char cname[EMU_NAME_LEN] = "", nname[EMU_NAME_LEN] = "", cbus[32] = "", legacy[32], want_bus[32];
	struct emu_nvml_pci_info pci = { 0 };
	struct emu_nvml_memory mem = { 0 };
	unsigned int cur = 9, pend = 9;
	int nmajor = -1, nminor = -1;
	size_t total = 0;
	nvmlDevice_t h, hu;
	char uuid[96];
	nvmlReturn_t r;
	CUuuid u;

	if (nv.DeviceGetHandleByIndex((unsigned int)dev, &h) || !CU_OK(cu.DeviceGetUuid(&u, dev)))
		tap_bail("no device %d", dev);
	cs_uuid_format(&u, uuid);
	tap_ok(nv.DeviceGetHandleByUUID(uuid, &hu) == NVML_SUCCESS && hu == h,
	       "device %d: CUDA's UUID %s is NVML's device %d", dev, uuid, dev);
	cu.DeviceGetName(cname, sizeof(cname), dev);
	NV(nvmlDeviceGetName)(h, nname, sizeof(nname));
	tap_ok(!strcmp(cname, w->name) && !strcmp(nname, w->name), "device %d name: CUDA \"%s\", NVML \"%s\"",
	       dev, cname, nname);
	NV(nvmlDeviceGetCudaComputeCapability)(h, &nmajor, &nminor);
	tap_ok(cu_attr(EMU_ATTR_CC_MAJOR, dev) == w->cc_major &&
		   cu_attr(EMU_ATTR_CC_MINOR, dev) == w->cc_minor && nmajor == w->cc_major &&
		   nminor == w->cc_minor,
	       "device %d compute capability: CUDA %d.%d, NVML %d.%d", dev, cu_attr(EMU_ATTR_CC_MAJOR, dev),
	       cu_attr(EMU_ATTR_CC_MINOR, dev), nmajor, nminor);
	bus_id(cbus, sizeof(cbus), dev);
	NV(nvmlDeviceGetPciInfo_v3)(h, &pci);
	snprintf(want_bus, sizeof(want_bus), "%08X%s", w->domain, strchr(w->bus_id, ':'));
	snprintf(legacy, sizeof(legacy), "%s", w->bus_id);
	tap_ok(!strcmp(cbus, w->bus_id) && cu_attr(EMU_ATTR_PCI_DOMAIN_ID, dev) == (int)w->domain &&
		   cu_attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) == (int)w->bus &&
		   cu_attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev) == (int)w->device &&
		   pci.domain == w->domain && pci.bus == w->bus && pci.device == w->device &&
		   !strcmp(pci.busId, want_bus) && !strcmp(pci.busIdLegacy, legacy),
	       "device %d PCI: CUDA %s (%x:%x:%x), NVML %s / %s (%x:%x:%x)", dev, cbus,
	       cu_attr(EMU_ATTR_PCI_DOMAIN_ID, dev), cu_attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev),
	       cu_attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev), pci.busId, pci.busIdLegacy, pci.domain,
	       pci.bus, pci.device);
	r = NV(nvmlDeviceGetMigMode)(h, &cur, &pend);
	tap_ok(r == NVML_SUCCESS && cur == w->mig && pend == w->mig,
	       "device %d MIG mode (NVML): current %u, pending %u", dev, cur, pend);
	cu.DeviceTotalMem(&total, dev);
	NV(nvmlDeviceGetMemoryInfo)(h, &mem);
	tap_ok(total == w->total && mem.total == w->total && mem.used + mem.free == mem.total,
	       "device %d memory: CUDA total %zu MiB, NVML total %llu MiB = used %llu + free %llu", dev,
	       total >> 20, mem.total >> 20, mem.used >> 20, mem.free >> 20);
}

static void check_driver(int version, const char *text)
{
	char s[80] = "";
	int v = -1, nvv = -1;

	cu.DriverGetVersion(&v);
	NV(nvmlSystemGetCudaDriverVersion)(&nvv);
	nv.SystemGetDriverVersion(s, sizeof(s));
	tap_ok(
	    v == version && nvv == version && !strcmp(s, text),
	    "driver: cuDriverGetVersion %d, nvmlSystemGetCudaDriverVersion %d, nvmlSystemGetDriverVersion %s",
	    v, nvv, s);
	tap_ok(nv.SystemGetDriverVersion(s, (unsigned int)strlen(text)) == NVML_ERROR_INSUFFICIENT_SIZE,
	       "driver version string into a buffer one byte short: INSUFFICIENT_SIZE");
}

static void defaults(void *arg)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=2", NULL };
	const struct want w[2] = {
		{ "NVIDIA Emulated GPU", 9, 0, "0000:10:00.0", 0, 0x10, 0, 0, 4096 * MiB },
		{ "NVIDIA Emulated GPU", 9, 0, "0000:11:00.0", 0, 0x11, 0, 0, 4096 * MiB },
	};
	size_t free_b = 0, total = 0;
	CUcontext ctx;
	CUresult res;

	(void)arg;
	unsetenv("CUDA_VISIBLE_DEVICES");
	load(env);
	tap_diag("defaults: 2 devices, no other variable");
	check_device(0, &w[0]);
	check_device(1, &w[1]);
	check_driver(13040, "615.00.00");
	cu.DevicePrimaryCtxRetain(&ctx, 1);
	cu.CtxSetCurrent(ctx);
	res = cu.MemGetInfo(&free_b, &total);
	tap_ok(CU_OK(res) && free_b == total && total == 4096 * MiB,
	       "cuMemGetInfo with nothing allocated: free = total = %zu MiB", total >> 20);
}

static void defaults_13_0(void *arg)
{
	const char *env[] = { "CUDASTORE_EMU_DRIVER_VERSION=13000", NULL };

	(void)arg;
	unsetenv("CUDA_VISIBLE_DEVICES");
	load(env);
	check_driver(13000, "580.159.04");
}

/* NVML's used and free of device dev, in MiB */
static void nvml_mem(int dev, unsigned long long *used, unsigned long long *free_b)
{
	struct emu_nvml_memory m = { 0 };
	nvmlDevice_t h;

	nv.DeviceGetHandleByIndex((unsigned int)dev, &h);
	NV(nvmlDeviceGetMemoryInfo)(h, &m);
	*used = m.used >> 20;
	*free_b = m.free >> 20;
}

static void mixed_memory(void)
{
	struct emu_nvml_memory_v2 v2 = { .version = 1 };
	unsigned long long used, nfree;
	size_t free_b = 0, total = 0;
	CUdeviceptr a, b = 0, c = 0;
	CUcontext ctx;
	nvmlDevice_t h;
	CUresult res;

	cu.DevicePrimaryCtxRetain(&ctx, 1);
	cu.CtxSetCurrent(ctx);
	if (!CU_OK(cu.MemAlloc(&a, 4 * MiB)))
		tap_bail("cuMemAlloc on device 1");
	cu.MemGetInfo(&free_b, &total);
	nvml_mem(1, &used, &nfree);
	tap_ok(
	    total == 64 * MiB && free_b == 44 * MiB && used == 20 && nfree == 44,
	    "device 1, 16 of 64 MiB used by others, 4 MiB by this process: CUDA free %zu MiB, NVML used %llu "
	    "free %llu MiB",
	    free_b >> 20, used, nfree);
	nv.DeviceGetHandleByIndex(1, &h);
	tap_ok(NV(nvmlDeviceGetMemoryInfo_v2)(h, &v2) == EMU_NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
	       "nvmlDeviceGetMemoryInfo_v2 with a wrong version: ARGUMENT_VERSION_MISMATCH");
	v2.version = EMU_NVML_MEMORY_V2;
	tap_ok(NV(nvmlDeviceGetMemoryInfo_v2)(h, &v2) == NVML_SUCCESS && v2.total == 64 * MiB &&
		   v2.reserved == 0 && v2.used == 20 * MiB && v2.free == 44 * MiB,
	       "nvmlDeviceGetMemoryInfo_v2: the same numbers");
	res = cu.MemAlloc(&b, 46 * MiB);
	tap_ok(res == CUDA_ERROR_OUT_OF_MEMORY, "46 MiB more on device 1: OUT_OF_MEMORY (%d)", res);
	tap_ok(CU_OK(cu.MemAlloc(&b, 44 * MiB)) && CU_OK(cu.MemFree(b)),
	       "44 MiB more, what is free: allocated");
	cu.DevicePrimaryCtxRetain(&ctx, 2);
	cu.CtxSetCurrent(ctx);
	cu.MemGetInfo(&free_b, &total);
	nvml_mem(2, &used, &nfree);
	res = cu.MemAlloc(&c, 2 * MiB);
	tap_ok(free_b == 0 && total == 32 * MiB && used == 32 && nfree == 0 &&
		   res == CUDA_ERROR_OUT_OF_MEMORY,
	       "device 2, full (32 of 32 MiB used by others): CUDA free %zu, NVML free %llu, cuMemAlloc %d",
	       free_b, nfree, res);
}

static void mixed_host(void *arg)
{
	char uuids[200], bus[16];
	const char *env[] = { "CUDASTORE_EMU_DEVICES=3",
			      uuids,
			      "CUDASTORE_EMU_NAMES=NVIDIA H200,NVIDIA H200,NVIDIA A100-SXM4-80GB",
			      "CUDASTORE_EMU_CC=9.0,9.0,8.0",
			      "CUDASTORE_EMU_BUS_IDS=0000:06:00.0,0000:4f:00.0,0001:c3:1F.0",
			      "CUDASTORE_EMU_MIG=0,0,1",
			      "CUDASTORE_EMU_MEM_MB=64,64,32",
			      "CUDASTORE_EMU_USED_MB=0,16,32",
			      "CUDASTORE_EMU_DRIVER_VERSION=13000",
			      "CUDASTORE_EMU_DRIVER_STRING=615.20.01",
			      NULL };
	const struct want w[3] = {
		{ "NVIDIA H200", 9, 0, "0000:06:00.0", 0, 0x06, 0, 0, 64 * MiB },
		{ "NVIDIA H200", 9, 0, "0000:4F:00.0", 0, 0x4f, 0, 0, 64 * MiB },
		{ "NVIDIA A100-SXM4-80GB", 8, 0, "0001:C3:1F.0", 1, 0xc3, 0x1f, 1, 32 * MiB },
	};
	__typeof(cuDeviceGetPCIBusId) *bus_id;
	CUresult res;

	(void)arg;
	unsetenv("CUDA_VISIBLE_DEVICES");
	snprintf(uuids, sizeof(uuids), "CUDASTORE_EMU_UUIDS=%s,%s,%s", uuid_text[0], uuid_text[1],
		 uuid_text[2]);
	load(env);
	tap_diag(
	    "a host of mixed GPUs: two H200, one A100 in MIG mode and full; driver 615.20.01 of CUDA 13.0");
	for (int d = 0; d < 3; d++)
		check_device(d, &w[d]);
	check_driver(13000, "615.20.01");
	bus_id = (__typeof(cuDeviceGetPCIBusId) *)cu_proc(&cu, "cuDeviceGetPCIBusId");
	res = bus_id(bus, 12, 0);
	tap_ok(res == CUDA_ERROR_INVALID_VALUE, "cuDeviceGetPCIBusId into 12 bytes: INVALID_VALUE (%d)", res);
	res = bus_id(bus, 13, 3);
	tap_ok(res == CUDA_ERROR_INVALID_DEVICE, "cuDeviceGetPCIBusId of device 3 of 3: INVALID_DEVICE (%d)",
	       res);
	mixed_memory();
}

/* ---- a restore onto another host's GPU ---- */

#define APP_BYTES (4 << 20)

static int write_line(int fd, const char *line)
{
	size_t len = strlen(line);

	return write(fd, line, len) == (ssize_t)len ? 0 : -1;
}

/* one line (up to len - 1 bytes, without its '\n'); -1 at EOF */
static int read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return 0;
}

/*
 * The application: 4 MiB of a pattern on its one device; "ready"; at "go" (after the caller's
 * restore) it answers what its device reports now: UUID|name|cc|bus ID|total MiB|free MiB|
 * data intact|100 MiB allocated.
 */
static void app_run(int in, int out, const char *const *env)
{
	unsigned char *buf = malloc(APP_BYTES), *back = malloc(APP_BYTES);
	char name[EMU_NAME_LEN] = "", bus[32] = "", text[CS_UUID_STRLEN] = "", line[512];
	__typeof(cuDeviceGetPCIBusId) *bus_id;
	size_t total = 0, free_b = 0, mem_total;
	CUdeviceptr p = 0, big = 0;
	int major = -1, minor = -1;
	struct cs_cuda_ops c;
	CUcontext ctx;
	bool data, more;
	CUuuid u;

	emu_test_setup(env, &c);
	for (size_t i = 0; buf && i < APP_BYTES; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	if (!buf || !back || !CU_OK(c.Init(0)) || !CU_OK(c.DevicePrimaryCtxRetain(&ctx, 0)) ||
	    !CU_OK(c.CtxSetCurrent(ctx)) || !CU_OK(c.MemAlloc(&p, APP_BYTES)) ||
	    !CU_OK(c.MemcpyHtoD(p, buf, APP_BYTES)) || write_line(out, "ready\n") ||
	    read_line(in, line, sizeof(line)))
		_exit(2);
	bus_id = (__typeof(cuDeviceGetPCIBusId) *)cu_proc(&c, "cuDeviceGetPCIBusId");
	c.DeviceGetUuid(&u, 0);
	cs_uuid_format(&u, text);
	c.DeviceGetName(name, sizeof(name), 0);
	bus_id(bus, sizeof(bus), 0);
	c.DeviceTotalMem(&total, 0);
	c.MemGetInfo(&free_b, &mem_total);
	data = CU_OK(c.MemcpyDtoH(back, p, APP_BYTES)) && !memcmp(buf, back, APP_BYTES);
	more = CU_OK(c.MemAlloc(&big, 100 << 20));
	c.DeviceGetAttribute(&major, EMU_ATTR_CC_MAJOR, 0);
	c.DeviceGetAttribute(&minor, EMU_ATTR_CC_MINOR, 0);
	snprintf(line, sizeof(line), "%s|%s|%d.%d|%s|%zu|%zu|%d|%d\n", text, name, major, minor, bus,
		 total >> 20, free_b >> 20, data, more);
	_exit(write_line(out, line) ? 3 : 0);
}

static CUcheckpointGpuPair pair(const char *from, const char *to)
{
	CUcheckpointGpuPair p;

	cs_uuid_parse(from, &p.oldUuid);
	cs_uuid_parse(to, &p.newUuid);
	return p;
}

/* the caller's side: lock, checkpoint, restore onto a full GPU (refused), then onto GPU 1 */
static void move_app(pid_t pid)
{
	CUcheckpointGpuPair to_full = pair(uuid_text[3], uuid_text[4]),
			    to_free = pair(uuid_text[3], uuid_text[5]);
	CUcheckpointRestoreArgs ra = { .gpuPairs = &to_full, .gpuPairsCount = 1 };
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	char name[64];
	size_t bytes;
	CUresult res;

	tap_ok(CU_OK(cu.CheckpointProcessLock(pid, NULL)) && CU_OK(cu.CheckpointProcessCheckpoint(pid, NULL)),
	       "the app on an H200 of host A: locked and checkpointed (driver-managed)");
	res = cu.CheckpointProcessRestore(pid, &ra);
	cu.CheckpointProcessGetState(pid, &st);
	tap_ok(res == CUDA_ERROR_OUT_OF_MEMORY && st == CU_PROCESS_STATE_CHECKPOINTED,
	       "restore onto host B's full GPU 0: OUT_OF_MEMORY (%d), still CHECKPOINTED (%d)", res, st);
	ra.gpuPairs = &to_free;
	tap_ok(CU_OK(cu.CheckpointProcessRestore(pid, &ra)) && CU_OK(cu.CheckpointProcessUnlock(pid, NULL)),
	       "restore onto host B's GPU 1 and unlock");
	emu_app_maps(pid, &bytes, EMU_VA_BASE, name, sizeof(name));
	tap_ok(!strcmp(name, uuid_text[5]), "its memory stays at its address, now on GPU 1: %s", name);
}

static void other_host(void *arg)
{
	char app_uuid[80], caller_uuids[200], line[512], want[512];
	const char *app_env[] = { "CUDASTORE_EMU_DEVICES=1",
				  app_uuid,
				  "CUDASTORE_EMU_NAMES=NVIDIA H200",
				  "CUDASTORE_EMU_MEM_MB=64",
				  "CUDASTORE_EMU_BUS_IDS=0000:06:00.0",
				  NULL };
	const char *caller_env[] = { "CUDASTORE_EMU_DEVICES=2",
				     caller_uuids,
				     "CUDASTORE_EMU_NAMES=NVIDIA H100 80GB HBM3,NVIDIA B200",
				     "CUDASTORE_EMU_CC=9.0,10.0",
				     "CUDASTORE_EMU_BUS_IDS=0000:18:00.0,0000:2a:00.0",
				     "CUDASTORE_EMU_MEM_MB=256",
				     "CUDASTORE_EMU_USED_MB=256,0",
				     NULL };
	int to[2], from[2], status = -1;
	pid_t done;
	pid_t pid;

	(void)arg;
	unsetenv("CUDA_VISIBLE_DEVICES");
	snprintf(app_uuid, sizeof(app_uuid), "CUDASTORE_EMU_UUIDS=%s", uuid_text[3]);
	snprintf(caller_uuids, sizeof(caller_uuids), "CUDASTORE_EMU_UUIDS=%s,%s", uuid_text[4], uuid_text[5]);
	if (pipe(to) || pipe(from))
		tap_bail("pipe");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		app_run(to[0], from[1], app_env);
	}
	close(to[0]);
	close(from[1]);
	tap_diag("host A: one H200 of 64 MiB; host B: a full H100 and a B200 of 256 MiB (compute capability "
		 "10.0)");
	if (pid < 0 || read_line(from[0], line, sizeof(line)) || strcmp(line, "ready"))
		tap_bail("the app did not start");
	load(caller_env);
	move_app(pid);
	if (write_line(to[1], "go\n") || read_line(from[0], line, sizeof(line)))
		line[0] = '\0';
	snprintf(want, sizeof(want), "%s|NVIDIA B200|10.0|0000:2A:00.0|256|252|1|1", uuid_text[5]);
	tap_ok(!strcmp(line, want),
	       "the app's device reports host B's GPU 1 (uuid|name|cc|bus|total|free|data|100 MiB "
	       "more): %s",
	       line);
	done = waitpid(pid, &status, 0);
	tap_ok(done == pid && WIFEXITED(status) && !WEXITSTATUS(status), "the app ended well (%#x)", status);
}

int main(void)
{
	for (int i = 0; i < 6; i++)
		snprintf(uuid_text[i], sizeof(uuid_text[i]), "GPU-%08x-0000-4000-8000-%012d",
			 (unsigned int)getpid(), i);
	emu_test_fork(defaults, NULL);
	emu_test_fork(defaults_13_0, NULL);
	emu_test_fork(mixed_host, NULL);
	emu_test_fork(other_host, NULL);
	tap_plan(tap_n);
	return tap_done();
}
