// SPDX-License-Identifier: MIT
/* gpu_probe.c - this host's GPUs and driver as facts (see gpu_probe.h) */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "gpu_probe.h"

static void nvml_facts(const struct cs_nvml_ops *nv, struct cs_gpu_facts *g)
{
	char uuid[CS_UUID_STRLEN];
	unsigned int cur = 0, pend = 0, minor = 0;
	nvmlDevice_t dev;
	nvmlMemory_t mem;

	g->free_memory = g->total_memory;
	if (!nv || !nv->lib)
		return;
	cs_uuid_format(&g->uuid, uuid);
	if (nv->DeviceGetHandleByUUID(uuid, &dev) != NVML_SUCCESS)
		return;
	if (nv->DeviceGetMemoryInfo && nv->DeviceGetMemoryInfo(dev, &mem) == NVML_SUCCESS)
		g->free_memory = mem.free;
	if (nv->DeviceGetMigMode && nv->DeviceGetMigMode(dev, &cur, &pend) == NVML_SUCCESS)
		g->mig = cur == NVML_DEVICE_MIG_ENABLE;
	if (nv->DeviceGetMinorNumber && nv->DeviceGetMinorNumber(dev, &minor) == NVML_SUCCESS &&
	    minor <= INT32_MAX)
		g->minor = (int32_t)minor;
}

int cs_probe_gpu(const struct cs_cuda_ops *cu, const struct cs_nvml_ops *nv, int ordinal,
		 struct cs_gpu_facts *g)
{
	int major = 0, minor = 0;
	size_t total = 0;
	CUdevice dev;

	memset(g, 0, sizeof(*g));
	g->ordinal = ordinal;
	g->process_ordinal = -1;
	g->minor = -1;
	if (cu->DeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
	    cu->DeviceGetUuid(&g->uuid, dev) != CUDA_SUCCESS ||
	    cu->DeviceGetName(g->name, sizeof(g->name), dev) != CUDA_SUCCESS ||
	    cu->DeviceTotalMem(&total, dev) != CUDA_SUCCESS ||
	    cu->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
		CUDA_SUCCESS ||
	    cu->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
		return -ENODEV;
	g->name[sizeof(g->name) - 1] = '\0';
	g->cc_major = major > 0 ? (unsigned)major : 0;
	g->cc_minor = minor > 0 ? (unsigned)minor : 0;
	g->total_memory = total;
	if (!cu->DeviceGetPCIBusId ||
	    cu->DeviceGetPCIBusId(g->bus_id, sizeof(g->bus_id), dev) != CUDA_SUCCESS)
		g->bus_id[0] = '\0';
	g->bus_id[sizeof(g->bus_id) - 1] = '\0';
	nvml_facts(nv, g);
	return 0;
}

/* "... Kernel Module for x86_64  580.159.04  Release Build ..." -> "580.159.04" */
static void proc_driver_version(char *out, size_t len)
{
	char line[512], *p, *tok, *save;
	FILE *f = fopen("/proc/driver/nvidia/version", "re");

	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
			p = tok;
			if (*p >= '0' && *p <= '9' && strchr(p, '.') && cs_facts_branch(p)) {
				snprintf(out, len, "%s", p);
				break;
			}
		}
	fclose(f);
}

/* the GNU build-id note among the notes of one segment or section at off, size bytes */
static int find_note(int fd, uint64_t off, uint64_t size, char *out, size_t len)
{
	unsigned char buf[4096];
	size_t n, pos = 0;

	if (size > sizeof(buf))
		size = sizeof(buf);
	if (pread(fd, buf, size, (off_t)off) != (ssize_t)size)
		return -EIO;
	n = (size_t)size;
	while (pos + sizeof(Elf64_Nhdr) <= n) {
		Elf64_Nhdr *h = (Elf64_Nhdr *)(buf + pos);
		size_t name = (h->n_namesz + 3) & ~3u, desc = (h->n_descsz + 3) & ~3u;
		const unsigned char *d = buf + pos + sizeof(*h) + name;

		if (pos + sizeof(*h) + name + desc > n)
			break;
		if (h->n_type == NT_GNU_BUILD_ID && h->n_namesz == 4 &&
		    !memcmp(buf + pos + sizeof(*h), "GNU", 4) && h->n_descsz <= 64 &&
		    9 + 2 * h->n_descsz < len) {
			size_t k = (size_t)snprintf(out, len, "build-id:");

			for (unsigned i = 0; i < h->n_descsz; i++)
				k += (size_t)snprintf(out + k, len - k, "%02x", d[i]);
			return 0;
		}
		pos += sizeof(*h) + name + desc;
	}
	return -ENOENT;
}

int cs_probe_build_id(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -ENOENT;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph) || eh.e_phnum > 256) {
		close(fd);
		return -ENOEXEC;
	}
	for (unsigned i = 0; i < eh.e_phnum && ret; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) == sizeof(ph) &&
		    ph.p_type == PT_NOTE)
			ret = find_note(fd, ph.p_offset, ph.p_filesz, out, len);
	close(fd);
	return ret;
}

void cs_probe_host(const struct cs_cuda_ops *cu, const struct cs_nvml_ops *nv, struct cs_host_facts *h)
{
	struct utsname u;
	Dl_info di;

	memset(h, 0, sizeof(*h));
	h->known = true;
	if (nv && nv->lib &&
	    nv->SystemGetDriverVersion(h->driver_version, sizeof(h->driver_version)) != NVML_SUCCESS)
		h->driver_version[0] = '\0';
	if (!h->driver_version[0])
		proc_driver_version(h->driver_version, sizeof(h->driver_version));
	h->driver_version[sizeof(h->driver_version) - 1] = '\0';
	h->branch = cs_facts_branch(h->driver_version);
	/* the file the loader mapped, whatever name it was asked for */
	if (cu && cu->Init && dladdr((void *)cu->Init, &di) && di.dli_fname)
		cs_probe_build_id(di.dli_fname, h->libcuda_id, sizeof(h->libcuda_id));
	if (!uname(&u))
		snprintf(h->arch, sizeof(h->arch), "%.*s", (int)sizeof(h->arch) - 1, u.machine);
}

void cs_probe_restore_host(const struct cs_cuda_ops *cu, const struct cs_nvml_ops *nv,
			   struct cs_restore_host *h)
{
	int n = 0;
	CUresult res;

	memset(h, 0, sizeof(*h));
	cs_probe_host(cu, nv, &h->host);
	res = cu->Init(0);
	if (res == CUDA_SUCCESS)
		res = cu->DeviceGetCount(&n);
	if (res != CUDA_SUCCESS) {
		snprintf(h->driver_error, sizeof(h->driver_error), "cuInit: %s", cs_cuda_errname(cu, res));
		return;
	}
	h->cuda_version = cu->driver_version;
	h->custom_storage = cu->has_custom_storage;
	for (int i = 0; i < n && h->ngpu < CS_MAX_DEVICES; i++)
		if (!cs_probe_gpu(cu, nv, i, &h->gpu[h->ngpu]))
			h->ngpu++;
}
