// SPDX-License-Identifier: MIT
/*
 * test-procfs-cuda-driver - cs_procfs_cuda_driver_at tells a CUDA process by what the driver
 * holds in it, on fake /proc/PID directories (a maps file, an fd directory of links): an NVIDIA
 * device file mapped or open, under any root and even deleted, or the driver library mapped,
 * whatever the library that loaded the driver is called; the names of other NVIDIA files and
 * look-alikes are not taken for it; an unreadable maps or fd directory is an error (callers take
 * it for a CUDA process). Then on this process itself: no driver here, nothing found.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"
#include "tap.h"

static char root[64];
static int case_n;

/* a maps line of a file mapping */
#define MAP(path) "7f0000000000-7f0000001000 rw-s 00000000 00:05 1234                       " path "\n"
/* the lines every process has */
#define MAPS_PLAIN                                                                                           \
	"55d000000000-55d000001000 r-xp 00000000 08:01 42                         /usr/bin/python3.11\n"     \
	"55d000200000-55d000400000 rw-p 00000000 00:00 0                          [heap]\n"                  \
	"7f1000000000-7f1000200000 rw-p 00000000 00:00 0 \n"                                                 \
	"7f2000000000-7f2000100000 r-xp 00000000 08:01 77                         "                          \
	"/usr/lib/x86_64-linux-gnu/libc.so.6\n"

/*
 * A fake /proc/PID directory: maps holds maps_text (NULL: no maps file), fd/ holds one link per
 * target of fds (NULL-terminated; fds NULL: no fd directory). Its open fd, or -1.
 */
static int fake_proc(const char *maps_text, const char *const *fds)
{
	char dir[128], path[192];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/%d", root, ++case_n);
	if (mkdir(dir, 0700))
		return -1;
	if (maps_text) {
		snprintf(path, sizeof(path), "%s/maps", dir);
		f = fopen(path, "w");
		if (!f || fputs(maps_text, f) < 0 || fclose(f))
			return -1;
	}
	if (fds) {
		snprintf(path, sizeof(path), "%s/fd", dir);
		if (mkdir(path, 0700))
			return -1;
		for (int i = 0; fds[i]; i++) {
			snprintf(path, sizeof(path), "%s/fd/%d", dir, i + 3);
			if (symlink(fds[i], path))
				return -1;
		}
	}
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* cs_procfs_cuda_driver_at on a fake directory: its result, what into what */
static int found(const char *maps_text, const char *const *fds, char *what, size_t len)
{
	int dfd = fake_proc(maps_text, fds), ret;

	if (dfd < 0) {
		tap_diag("cannot make fake /proc directory %d: %s", case_n, strerror(errno));
		return -1000;
	}
	what[0] = '\0';
	ret = cs_procfs_cuda_driver_at(dfd, what, len);
	close(dfd);
	return ret;
}

static void maps_cases(void)
{
	static const char *const none[] = { "/dev/null", "socket:[1234]", "pipe:[77]", NULL };
	char what[256];
	int ret;

	ret = found(MAPS_PLAIN MAP("/dev/nvidiactl") MAP("/dev/nvidia0"), none, what, sizeof(what));
	tap_ok(ret == 1 && !strcmp(what, "maps /dev/nvidiactl"), "/dev/nvidiactl mapped (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/dev/nvidia3"), none, what, sizeof(what));
	tap_ok(ret == 1 && !strcmp(what, "maps /dev/nvidia3"), "/dev/nvidia3 mapped (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/dev/nvidia-uvm"), none, what, sizeof(what));
	tap_ok(ret == 1, "/dev/nvidia-uvm mapped (%d: %s)", ret, what);
	ret = found(
	    MAPS_PLAIN MAP("/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/rootfs/dev/nvidia1"),
	    none, what, sizeof(what));
	tap_ok(ret == 1, "a GPU node under a container's root seen from outside it (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/dev/nvidia0 (deleted)"), none, what, sizeof(what));
	tap_ok(ret == 1, "a deleted GPU node still mapped (%d: %s)", ret, what);
	ret =
	    found(MAPS_PLAIN MAP("/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06"), none, what, sizeof(what));
	tap_ok(ret == 1 && strstr(what, "libcuda.so.580"),
	       "the driver library mapped, before cuInit (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/opt/app/lib/libdrv-vendored.so") MAP("/dev/nvidia-uvm-tools"), none,
		    what, sizeof(what));
	tap_ok(ret == 1 && !strcmp(what, "maps /dev/nvidia-uvm-tools"),
	       "the driver under another library name, found by its device file (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/tmp/a dir with spaces/dev/nvidia0"), none, what, sizeof(what));
	tap_ok(ret == 1, "a path with spaces is read whole (%d: %s)", ret, what);
}

static void maps_look_alikes(void)
{
	static const char *const none[] = { "/dev/null", NULL };
	char what[256];
	int ret;

	ret = found(MAPS_PLAIN, none, what, sizeof(what));
	tap_ok(ret == 0, "a CPU-only process (%d)", ret);
	ret = found(MAPS_PLAIN MAP("/dev/nvidia-modeset") MAP("/dev/nvidia-caps/nvidia-cap1")
			MAP("/dev/nvidia-nvswitchctl"),
		    none, what, sizeof(what));
	tap_ok(ret == 0, "other NVIDIA device files are not the CUDA driver (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/home/u/dev/nvidia.txt") MAP("/home/u/nvidia0") MAP("/data/nvidiactl.log")
			MAP("/usr/lib/libcudart.so.12") MAP("/usr/lib/libnvidia-ml.so.1"),
		    none, what, sizeof(what));
	tap_ok(ret == 0,
	       "look-alike names: a text file under dev/, nvidia0 outside dev/, the runtime and NVML "
	       "libraries (%d: %s)",
	       ret, what);
}

static void fd_cases(void)
{
	static const char *const ctl[] = { "/dev/null", "socket:[99]", "/dev/nvidiactl", NULL };
	static const char *const uvm[] = { "anon_inode:[eventfd]", "/dev/nvidia-uvm", NULL };
	static const char *const modeset[] = { "/dev/nvidia-modeset", "/dev/dri/card0", NULL };
	char what[256];
	int ret;

	ret = found(MAPS_PLAIN, ctl, what, sizeof(what));
	tap_ok(ret == 1 && !strcmp(what, "has /dev/nvidiactl open (fd 5)"),
	       "/dev/nvidiactl open, not mapped yet (inside cuInit) (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN, uvm, what, sizeof(what));
	tap_ok(ret == 1, "/dev/nvidia-uvm open (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN, modeset, what, sizeof(what));
	tap_ok(ret == 0, "a display server's NVIDIA files are not the CUDA driver (%d: %s)", ret, what);
}

static void unreadable_cases(void)
{
	static const char *const none[] = { "/dev/null", NULL };
	char what[256];
	int ret;

	ret = found(NULL, none, what, sizeof(what));
	tap_ok(ret == -ENOENT && strstr(what, "maps cannot be read"), "no maps: -ENOENT, said (%d: %s)", ret,
	       what);
	ret = found(MAPS_PLAIN, NULL, what, sizeof(what));
	tap_ok(ret == -ENOENT && strstr(what, "fds cannot be read"),
	       "no fd directory: -ENOENT, said (%d: %s)", ret, what);
	ret = found(MAPS_PLAIN MAP("/dev/nvidiactl"), NULL, what, sizeof(what));
	tap_ok(ret == 1, "a mapping found first needs no fd directory (%d: %s)", ret, what);
}

static void this_process(void)
{
	char what[256] = "";
	int ret = cs_procfs_cuda_driver(getpid(), what, sizeof(what));

	tap_ok(ret == 0, "this process uses no CUDA driver (%d: %s)", ret, what);
	ret = cs_procfs_cuda_driver(getpid(), NULL, 0);
	tap_ok(ret == 0, "what may be NULL (%d)", ret);
	ret = cs_procfs_cuda_driver(0x7ffffff0, what, sizeof(what));
	tap_ok(ret == -ENOENT && strstr(what, "cannot be read"), "no such process: -ENOENT, said (%d: %s)",
	       ret, what);
}

int main(void)
{
	char cmd[96];

	tap_plan(20);
	snprintf(root, sizeof(root), "/tmp/cs-procfs-cuda-driver.XXXXXX");
	if (!mkdtemp(root))
		tap_skip_all("cannot make a temporary directory");
	maps_cases();
	maps_look_alikes();
	fd_cases();
	unreadable_cases();
	this_process();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		tap_diag("could not remove %s", root);
	return tap_done();
}
