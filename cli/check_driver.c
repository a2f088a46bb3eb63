// SPDX-License-Identifier: MIT
/*
 * check_driver.c - cudastore check's driver probe: libcuda loaded as the plugin loads it
 * (cuda_ops.c), with its version, checkpoint API and CustomStorage, and its GPUs; then NVML's GPU
 * memory per GPU and per process (the calls the plugin's dump_plan.c makes) and each process's
 * checkpoint state. check runs outside criu, so it may call libcuda itself; it only asks.
 *
 * With --images it probes the host as a restore does instead (cli_check_restore_host): the same
 * libcuda, NVML for free memory and MIG mode, and cs_probe_restore_host, the helper's own probe.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_probe.h"

#define NVML_PROCS 1024 /* the processes asked of NVML per GPU */

/* ---- libcuda, GPUs ---- */

/* what the driver offers for a dump, and the mode auto picks */
static void custom_storage(struct cli_check_report *r, const struct cs_cuda_ops *cuda)
{
	if (!cuda->has_checkpoint)
		r->custom_reason = "the driver has no checkpoint API (cuCheckpointProcess*, CUDA 12.8+)";
	else if (cuda->driver_version < CUDASTORE_CUDA_13_4)
		r->custom_reason = "the driver is older than CUDA 13.4 (R615)";
	else if (!cuda->has_custom_storage)
		r->custom_reason = "the driver reports 13.4 but has no cuCheckpointOperationComplete";
	else
		r->custom_reason = "the driver is CUDA 13.4 or newer with cuCheckpointOperationComplete";
	r->auto_mode = cuda->has_custom_storage ? "custom" : "driver";
	if (!cuda->has_checkpoint)
		cli_check_problem(r,
				  "libcuda %s (CUDA %d) has no checkpoint API: a dump needs a CUDA 12.8+ "
				  "driver; CustomStorage needs 13.4 (R615+)",
				  r->cuda_file, cuda->driver_version);
	else if (r->o.mode == CS_OPT_MODE_CUSTOM && !cuda->has_custom_storage)
		cli_check_problem(r,
				  "mode = custom but %s; set mode = auto or driver, or install a CUDA 13.4 "
				  "driver",
				  r->custom_reason);
}

/* libcuda as the options name it; false (a problem said) when there is none to use */
static bool load_cuda(struct cli_check_report *r, struct cs_cuda_ops *cuda)
{
	Dl_info di;

	if (cs_cuda_load(cuda, r->o.libcuda[0] ? r->o.libcuda : NULL, r->cuda_err, sizeof(r->cuda_err))) {
		cli_check_problem(
		    r,
		    "no usable libcuda: %s. Install the NVIDIA driver, or set libcuda = PATH in "
		    "cudastore.conf",
		    r->cuda_err);
		return false;
	}
	r->cuda_ok = true;
	if (dladdr((void *)cuda->DriverGetVersion, &di) && di.dli_fname)
		snprintf(r->cuda_file, sizeof(r->cuda_file), "%s", di.dli_fname);
	else
		snprintf(r->cuda_file, sizeof(r->cuda_file), "%s", cuda->path);
	r->driver_version = cuda->driver_version;
	r->checkpoint_api = cuda->has_checkpoint;
	r->custom_storage = cuda->has_custom_storage;
	custom_storage(r, cuda);
	return true;
}

static void list_gpus(struct cli_check_report *r, const struct cs_cuda_ops *cuda)
{
	int i, n = 0;

	if (cuda->Init(0) != CUDA_SUCCESS || cuda->DeviceGetCount(&n) != CUDA_SUCCESS) {
		snprintf(r->gpu_err, sizeof(r->gpu_err),
			 "cuInit/cuDeviceGetCount failed: no GPU usable here");
		return;
	}
	for (i = 0; i < n && i < CS_MAX_DEVICES; i++) {
		struct cli_check_gpu *g = &r->gpu[r->ngpu];
		CUdevice dev;
		CUuuid u;
		size_t total = 0;

		if (cuda->DeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		if (cuda->DeviceGetUuid(&u, dev) == CUDA_SUCCESS)
			cs_uuid_format(&u, g->uuid);
		if (cuda->DeviceGetName(g->name, sizeof(g->name), dev) != CUDA_SUCCESS)
			snprintf(g->name, sizeof(g->name), "?");
		if (cuda->DeviceTotalMem(&total, dev) == CUDA_SUCCESS)
			g->total = total;
		r->ngpu++;
	}
}

/* ---- NVML, processes ---- */

static struct cli_check_proc *proc_of(struct cli_check_report *r, int pid)
{
	unsigned i;

	for (i = 0; i < r->nproc; i++)
		if (r->proc[i].pid == pid)
			return &r->proc[i];
	if (r->nproc == CLI_CHECK_MAX_PROCS)
		return NULL;
	r->proc[r->nproc].pid = pid;
	return &r->proc[r->nproc++];
}

/* the GPU libcuda listed with this UUID (the last one, should two have it), or NULL */
static struct cli_check_gpu *gpu_of(struct cli_check_report *r, const char *uuid)
{
	struct cli_check_gpu *g = NULL;
	int j;

	for (j = 0; j < r->ngpu; j++)
		if (!strcmp(r->gpu[j].uuid, uuid))
			g = &r->gpu[j];
	return g;
}

/* the n processes NVML lists on the GPU uuid (g: libcuda's, or NULL), counted in */
static void count_procs(struct cli_check_report *r, struct cli_check_gpu *g, const char *uuid,
			const nvmlProcessInfo_t *buf, unsigned int n)
{
	unsigned int k;

	if (g)
		g->used_known = true;
	for (k = 0; k < n && k < NVML_PROCS; k++) {
		struct cli_check_proc *p = proc_of(r, (int)buf[k].pid);
		uint64_t b = buf[k].usedGpuMemory == ~0ull ? 0 : buf[k].usedGpuMemory;

		if (!p)
			continue;
		p->bytes += b;
		r->gpu_bytes += b;
		if (g)
			g->used += b;
		if (p->ngpu < CLI_CHECK_MAX_GPUS)
			snprintf(p->gpus[p->ngpu++], CS_UUID_STRLEN, "%.40s", uuid);
	}
}

/* NVML's GPU i: its processes, when NVML names the GPU and lists them */
static void nvml_gpu(struct cli_check_report *r, const struct cs_nvml_ops *nv, unsigned int i,
		     nvmlProcessInfo_t *buf)
{
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	unsigned int n = NVML_PROCS;
	nvmlDevice_t dev;
	struct cli_check_gpu *g;

	if (nv->DeviceGetHandleByIndex(i, &dev) != NVML_SUCCESS ||
	    nv->DeviceGetUUID(dev, uuid, sizeof(uuid)) != NVML_SUCCESS)
		return;
	g = gpu_of(r, uuid);
	if (nv->DeviceGetComputeRunningProcesses(dev, &n, buf) != NVML_SUCCESS)
		return;
	count_procs(r, g, uuid, buf, n);
}

/* GPU memory per GPU and per process, from NVML (the plugin's dump_plan.c uses the same calls) */
static void check_nvml(struct cli_check_report *r)
{
	nvmlProcessInfo_t *buf = calloc(NVML_PROCS, sizeof(*buf));
	struct cs_nvml_ops nv;
	unsigned int n = 0, i;

	if (!buf)
		return;
	if (cs_nvml_load(&nv, r->o.libnvml[0] ? r->o.libnvml : NULL, r->nvml_err, sizeof(r->nvml_err))) {
		free(buf);
		return;
	}
	if (nv.Init() != NVML_SUCCESS) {
		snprintf(r->nvml_err, sizeof(r->nvml_err), "nvmlInit failed");
		goto out;
	}
	r->nvml_ok = true;
	if (nv.DeviceGetCount(&n) != NVML_SUCCESS)
		n = 0;
	for (i = 0; i < n; i++)
		nvml_gpu(r, &nv, i, buf);
	nv.Shutdown();
out:
	cs_nvml_unload(&nv);
	free(buf);
}

/* each process's checkpoint state, as the driver reports it ("?" when it cannot) */
static void proc_states(struct cli_check_report *r, const struct cs_cuda_ops *cuda)
{
	CUprocessState st;
	unsigned i;

	for (i = 0; i < r->nproc; i++) {
		r->proc[i].state = "?";
		if (r->cuda_ok && cuda->has_checkpoint &&
		    cuda->CheckpointProcessGetState(r->proc[i].pid, &st) == CUDA_SUCCESS)
			r->proc[i].state = cs_cuda_state_name(st);
	}
}

void cli_check_driver(struct cli_check_report *r)
{
	struct cs_cuda_ops cuda;

	memset(&cuda, 0, sizeof(cuda));
	if (load_cuda(r, &cuda))
		list_gpus(r, &cuda);
	check_nvml(r);
	proc_states(r, &cuda);
}

/* ---- this host as a restore sees it (--images) ---- */

/* NVML loaded and started as the restore's helper starts it (restore_place.c), else NULL */
static struct cs_nvml_ops *restore_nvml(struct cli_check_report *r, struct cs_nvml_ops *nv)
{
	if (cs_nvml_load(nv, r->o.libnvml[0] ? r->o.libnvml : NULL, r->nvml_err, sizeof(r->nvml_err)))
		return NULL;
	if (nv->Init() != NVML_SUCCESS) {
		snprintf(r->nvml_err, sizeof(r->nvml_err), "nvmlInit failed");
		cs_nvml_unload(nv);
		return NULL;
	}
	r->nvml_ok = true;
	return nv;
}

void cli_check_restore_host(struct cli_check_report *r, struct cs_restore_host *h)
{
	struct cs_nvml_ops nv, *nvp;
	struct cs_cuda_ops cuda;

	memset(&cuda, 0, sizeof(cuda));
	nvp = restore_nvml(r, &nv);
	if (load_cuda(r, &cuda)) {
		cs_probe_restore_host(&cuda, nvp, h);
	} else { /* the plan says there is no usable driver, with libcuda's error */
		memset(h, 0, sizeof(*h));
		cs_probe_host(NULL, nvp, &h->host);
		snprintf(h->driver_error, sizeof(h->driver_error), "%.*s", (int)sizeof(h->driver_error) - 1,
			 r->cuda_err);
	}
	if (nvp) {
		nvp->Shutdown();
		cs_nvml_unload(nvp);
	}
}
