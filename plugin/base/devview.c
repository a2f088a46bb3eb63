// SPDX-License-Identifier: MIT
/* devview.c - the GPU device nodes a process can open (see devview.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devview.h"

/* "nvidia" and digits only: nvidiactl, nvidia-uvm, nvidia-modeset are not GPUs */
static bool gpu_node_name(const char *name)
{
	const char *p = name + 6;

	if (strncmp(name, "nvidia", 6) || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static void add_minor(struct cs_device_view *v, uint32_t minor)
{
	unsigned i = v->n;

	if (cs_devview_has(v, minor) || v->n == CS_VIEW_MAX)
		return;
	for (; i > 0 && v->minor[i - 1] > minor; i--)
		v->minor[i] = v->minor[i - 1];
	v->minor[i] = minor;
	v->n++;
}

int cs_devview_read(const char *dir, struct cs_device_view *v)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	memset(v, 0, sizeof(*v));
	snprintf(v->dir, sizeof(v->dir), "%s", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		if (!gpu_node_name(e->d_name) || fstatat(fd, e->d_name, &st, 0))
			continue; /* a dangling link or a node gone meanwhile: not a GPU it can open */
		if (S_ISCHR(st.st_mode) && major(st.st_rdev) == CS_NVIDIA_MAJOR &&
		    minor(st.st_rdev) < CS_NVIDIA_MINOR_CTL)
			add_minor(v, minor(st.st_rdev));
	}
	closedir(d);
	return 0;
}

int cs_devview_of_pid(pid_t pid, struct cs_device_view *v)
{
	char dir[CS_VIEW_DIR_MAX];

	snprintf(dir, sizeof(dir), "/proc/%d/root/dev", (int)pid);
	return cs_devview_read(dir, v);
}

bool cs_devview_has(const struct cs_device_view *v, uint32_t minor)
{
	for (unsigned i = 0; i < v->n; i++)
		if (v->minor[i] == minor)
			return true;
	return false;
}
