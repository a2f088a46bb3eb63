// SPDX-License-Identifier: MIT
/*
 * test-emu-malformed-facts-abort: a malformed CUDASTORE_EMU_NAMES, _CC, _BUS_IDS, _MIG,
 * _USED_MB or _DRIVER_STRING aborts the process at its first call, in libcuda and in NVML
 * alike, with a message naming the variable and the value; well-formed values of each do not.
 */
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "emu-test.h"

struct bad {
	const char *var, *value, *message;
};

#define LONG_NAME                                                                                            \
	"NVIDIA H200 NVIDIA H200 NVIDIA H200 NVIDIA H200 NVIDIA H200 NVIDIA H200 NVIDIA H200 NVIDIA H200 NV"

static const struct bad cases[] = {
	{ "CUDASTORE_EMU_NAMES", "NVIDIA H200,,NVIDIA A100",
	  "CUDASTORE_EMU_NAMES: empty entry in \"NVIDIA H200,,NVIDIA A100\"" },
	{ "CUDASTORE_EMU_NAMES", LONG_NAME,
	  "CUDASTORE_EMU_NAMES: name \"" LONG_NAME "\" longer than 95 bytes" },
	{ "CUDASTORE_EMU_NAMES", "a,b,c,d,e,f,g,h,i", "CUDASTORE_EMU_NAMES: more than 8 entries" },
	{ "CUDASTORE_EMU_CC", "9",
	  "CUDASTORE_EMU_CC: bad compute capability \"9\" (want MAJOR.MINOR, like 9.0)" },
	{ "CUDASTORE_EMU_CC", "9.0,8.x", "CUDASTORE_EMU_CC: bad compute capability \"8.x\"" },
	{ "CUDASTORE_EMU_CC", "0.0", "CUDASTORE_EMU_CC: bad compute capability \"0.0\"" },
	{ "CUDASTORE_EMU_CC", "9.10", "CUDASTORE_EMU_CC: bad compute capability \"9.10\"" },
	{ "CUDASTORE_EMU_BUS_IDS", "0000:06:00,0000:07:00.0",
	  "CUDASTORE_EMU_BUS_IDS: bad PCI bus ID \"0000:06:00\"" },
	{ "CUDASTORE_EMU_BUS_IDS", "0000:06:20.0,0000:07:00.0",
	  "CUDASTORE_EMU_BUS_IDS: bad PCI bus ID \"0000:06:20.0\"" },
	{ "CUDASTORE_EMU_BUS_IDS", "0000:6g:00.0,0000:07:00.0",
	  "CUDASTORE_EMU_BUS_IDS: bad PCI bus ID \"0000:6g:00.0\"" },
	{ "CUDASTORE_EMU_BUS_IDS", "0000:06:00.0", "CUDASTORE_EMU_BUS_IDS: 1 bus IDs for 2 devices" },
	{ "CUDASTORE_EMU_BUS_IDS", "0000:06:00.0,0000:06:00.0", "\"0000:06:00.0\" names devices 0 and 1" },
	{ "CUDASTORE_EMU_MIG", "yes", "CUDASTORE_EMU_MIG: bad MIG mode \"yes\" (want 0 or 1)" },
	{ "CUDASTORE_EMU_MIG", "0,2", "CUDASTORE_EMU_MIG: bad MIG mode \"2\"" },
	{ "CUDASTORE_EMU_USED_MB", "1k", "CUDASTORE_EMU_USED_MB: bad number \"1k\"" },
	{ "CUDASTORE_EMU_USED_MB", "0,5000",
	  "CUDASTORE_EMU_USED_MB: device 1: 5000 MiB used of its 4096 MiB" },
	{ "CUDASTORE_EMU_MINORS", "3", "CUDASTORE_EMU_MINORS: 1 minor numbers for 2 devices" },
	{ "CUDASTORE_EMU_MINORS", "3,3", "CUDASTORE_EMU_MINORS: minor 3 names devices 0 and 1" },
	{ "CUDASTORE_EMU_MINORS", "3,x", "CUDASTORE_EMU_MINORS: bad number \"x\"" },
	{ "CUDASTORE_EMU_DRIVER_STRING", "580",
	  "CUDASTORE_EMU_DRIVER_STRING=580: want the driver's version" },
	{ "CUDASTORE_EMU_DRIVER_STRING", "r580.65.06", "CUDASTORE_EMU_DRIVER_STRING=r580.65.06: want" },
	{ "CUDASTORE_EMU_DRIVER_STRING", "580.65.06.1", "CUDASTORE_EMU_DRIVER_STRING=580.65.06.1: want" },
};

static const struct bad goods[] = {
	{ "CUDASTORE_EMU_NAMES", "NVIDIA H200,NVIDIA A100-SXM4-80GB", NULL },
	{ "CUDASTORE_EMU_CC", "10.0,8.9", NULL },
	{ "CUDASTORE_EMU_BUS_IDS", "0000:06:00.0,00000001:Ab:1f.7", NULL },
	{ "CUDASTORE_EMU_MIG", "1", NULL },
	{ "CUDASTORE_EMU_USED_MB", "4096,0", NULL },
	{ "CUDASTORE_EMU_DRIVER_STRING", "615.20", NULL },
	{ "CUDASTORE_EMU_MINORS", "7,2", NULL },
};

/* In a child with var=value and 2 devices: load the library and make its first call. */
static void child(const struct bad *b, bool nvml, int err_fd)
{
	struct rlimit no_core = { 0, 0 };
	struct cs_cuda_ops cu;
	struct cs_nvml_ops nv;
	char err[256];

	setrlimit(RLIMIT_CORE, &no_core);
	dup2(err_fd, 2);
	setenv(b->var, b->value, 1);
	setenv("CUDASTORE_EMU_DEVICES", "2", 1);
	if (nvml) {
		emu_test_setup(NULL, NULL);
		if (cs_nvml_load(&nv, NULL, err, sizeof(err)))
			_exit(3);
		_exit(nv.Init() == NVML_SUCCESS ? 0 : 4);
	}
	emu_test_setup(NULL, &cu); /* cs_cuda_load asks cuDriverGetVersion */
	_exit(CU_OK(cu.Init(0)) ? 0 : 4);
}

/* runs child(); its wait status, and what it wrote to stderr in out */
static int run(const struct bad *b, bool nvml, char *out, size_t len)
{
	int fds[2], status = -1;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fds))
		tap_bail("pipe");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(b, nvml, fds[1]);
	}
	close(fds[1]);
	while (n + 1 < len && (r = read(fds[0], out + n, len - n - 1)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int main(void)
{
	char out[1024];

	unsetenv("CUDA_VISIBLE_DEVICES");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int nvml = 0; nvml < 2; nvml++) {
			int status = run(&cases[i], nvml, out, sizeof(out));
			bool said = strstr(out, cases[i].message);

			out[strcspn(out, "\n")] = '\0';
			tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && said,
			       "%s=%s aborts %s: %s", cases[i].var, cases[i].value, nvml ? "NVML" : "libcuda",
			       out);
		}
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		int status = run(&goods[i], false, out, sizeof(out));

		tap_ok(WIFEXITED(status) && !WEXITSTATUS(status), "%s=%s is accepted (%#x%s%s)", goods[i].var,
		       goods[i].value, status, out[0] ? ": " : "", out);
	}
	tap_plan(tap_n);
	return tap_done();
}
