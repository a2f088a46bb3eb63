// SPDX-License-Identifier: MIT
/*
 * emu_config.c - CUDASTORE_EMU_* parsing, fault injection, delays and the call trace.
 *
 * The variables are read once per process, on the first call that needs them, so the
 * application and the caller each follow their own environment. A malformed value aborts
 * the process with a message: a test that misconfigures the emulator must not pass silently.
 *
 * A caller may drive several targets from several threads at once: the configuration is
 * read-only after its one parse, the fault counters sit behind one mutex, and each trace
 * line is one write() to an O_APPEND file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cuda_ops.h"
#include "emu.h"

static struct emu_config cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

/*
 * One call counter per CUDASTORE_EMU_FAULTS entry. Entries without a pid all see every call
 * of their name, so they count alike, as one counter per name did.
 */
static unsigned long fault_calls[EMU_MAXSPEC];
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;

void emu_cfg_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cudastore-emu[%d]: ", getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

long emu_cfg_number(const char *var, const char *text, char **end, long min, long max)
{
	long v;

	errno = 0;
	v = strtol(text, end, 10);
	if (errno || *end == text || v < min || v > max)
		emu_cfg_die("%s: bad number \"%s\" (expected %ld..%ld)", var, text, min, max);
	return v;
}

/* the name of a fault entry, "name" or "name@PID", up to the first ':' */
static void cfg_fault_name(struct emu_fault *f, const char *spec, const char *colon)
{
	const char *at = memchr(spec, '@', (size_t)(colon - spec)), *stop = at ? at : colon;
	char *end;

	if (stop == spec || (size_t)(stop - spec) >= sizeof(f->name))
		emu_cfg_die("CUDASTORE_EMU_FAULTS: bad entry \"%s\" (want name[@PID]:N[+]:code)", spec);
	memcpy(f->name, spec, (size_t)(stop - spec));
	if (!at)
		return;
	f->pid = (int)emu_cfg_number("CUDASTORE_EMU_FAULTS", at + 1, &end, 1, 0x7fffffff);
	if (end != colon)
		emu_cfg_die("CUDASTORE_EMU_FAULTS: bad pid in \"%s\" (want name@PID:N[+]:code)", spec);
}

/* "name[@PID]:N:code" or "name[@PID]:N+:code" */
static void cfg_fault(char *spec)
{
	struct emu_fault *f;
	char *colon = strchr(spec, ':'), *end;

	if (cfg.nfault >= EMU_MAXSPEC)
		emu_cfg_die("CUDASTORE_EMU_FAULTS: more than %d entries", EMU_MAXSPEC);
	f = &cfg.fault[cfg.nfault];
	if (!colon)
		emu_cfg_die("CUDASTORE_EMU_FAULTS: bad entry \"%s\" (want name[@PID]:N[+]:code)", spec);
	cfg_fault_name(f, spec, colon);
	f->nth = (unsigned int)emu_cfg_number("CUDASTORE_EMU_FAULTS", colon + 1, &end, 1, 1L << 30);
	if (*end == '+') {
		f->and_later = true;
		end++;
	}
	if (*end != ':')
		emu_cfg_die("CUDASTORE_EMU_FAULTS: bad entry \"%s\" (want name[@PID]:N[+]:code)", spec);
	f->code = (CUresult)emu_cfg_number("CUDASTORE_EMU_FAULTS", end + 1, &end, 1, 100000);
	if (*end)
		emu_cfg_die("CUDASTORE_EMU_FAULTS: trailing \"%s\" in \"%s\"", end, spec);
	cfg.nfault++;
}

/* "name:ms" */
static void cfg_delay(char *spec)
{
	struct emu_delay *d;
	char *colon = strchr(spec, ':'), *end;

	if (cfg.ndelay >= EMU_MAXSPEC)
		emu_cfg_die("CUDASTORE_EMU_DELAY: more than %d entries", EMU_MAXSPEC);
	d = &cfg.delay[cfg.ndelay];
	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(d->name))
		emu_cfg_die("CUDASTORE_EMU_DELAY: bad entry \"%s\" (want name:ms)", spec);
	memcpy(d->name, spec, (size_t)(colon - spec));
	d->ms = (unsigned int)emu_cfg_number("CUDASTORE_EMU_DELAY", colon + 1, &end, 0, 3600000);
	if (*end)
		emu_cfg_die("CUDASTORE_EMU_DELAY: trailing \"%s\" in \"%s\"", end, spec);
	cfg.ndelay++;
}

static void cfg_list(const char *text, void (*one)(char *))
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(text) >= sizeof(buf))
		emu_cfg_die("CUDASTORE_EMU_*: list too long: %s", text);
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		one(tok);
}

static void cfg_rate(const char *text)
{
	char *end;

	cfg.rate_mbps = (unsigned int)emu_cfg_number("CUDASTORE_EMU_RATE_MBPS", text, &end, 0, 1000000);
	if (*end)
		emu_cfg_die("CUDASTORE_EMU_RATE_MBPS=%s: not a number", text);
}

static void cfg_device_file(const char *text)
{
	if (text[0] != '/' || strlen(text) >= sizeof(cfg.device_file))
		emu_cfg_die("CUDASTORE_EMU_DEVICE_FILE=%s: want an absolute path of at most %zu bytes", text,
			    sizeof(cfg.device_file) - 1);
	snprintf(cfg.device_file, sizeof(cfg.device_file), "%s", text);
}

static void cfg_load(void)
{
	const char *v;
	char *end;

	cfg.driver_version = EMU_DEFAULT_VERSION;
	v = getenv("CUDASTORE_EMU_DRIVER_VERSION");
	if (v && *v) {
		cfg.driver_version = (int)emu_cfg_number("CUDASTORE_EMU_DRIVER_VERSION", v, &end, 0, 99999);
		if (*end || (cfg.driver_version != 13000 && cfg.driver_version != 13040))
			emu_cfg_die("CUDASTORE_EMU_DRIVER_VERSION=%s: only 13000 and 13040 are emulated", v);
	}
	cfg.ndev = 1;
	v = getenv("CUDASTORE_EMU_DEVICES");
	if (v && *v) {
		cfg.ndev = (int)emu_cfg_number("CUDASTORE_EMU_DEVICES", v, &end, 0, EMU_MAXDEV);
		if (*end)
			emu_cfg_die("CUDASTORE_EMU_DEVICES=%s: not a number", v);
	}
	emu_host_load(&cfg);
	v = getenv("CUDASTORE_EMU_FAULTS");
	if (v && *v)
		cfg_list(v, cfg_fault);
	v = getenv("CUDASTORE_EMU_DELAY");
	if (v && *v)
		cfg_list(v, cfg_delay);
	v = getenv("CUDASTORE_EMU_ABORT");
	if (v && *v)
		snprintf(cfg.abort_op, sizeof(cfg.abort_op), "%s", v);
	v = getenv("CUDASTORE_EMU_TRACE");
	if (v && *v)
		snprintf(cfg.trace, sizeof(cfg.trace), "%s", v);
	v = getenv("CUDASTORE_EMU_RATE_MBPS");
	if (v && *v)
		cfg_rate(v);
	v = getenv("CUDASTORE_EMU_DEVICE_FILE");
	if (v && *v)
		cfg_device_file(v);
	v = getenv("CUDASTORE_EMU_IPC_IMPORTER");
	cfg.ipc_importer = v && !strcmp(v, "1");
}

const struct emu_config *emu_config(void)
{
	pthread_once(&cfg_once, cfg_load);
	return &cfg;
}

static bool fault_applies(const struct emu_fault *f, const char *name, int pid)
{
	return !strcmp(f->name, name) && (!f->pid || f->pid == pid);
}

CUresult emu_fault_hit(const char *name, int pid)
{
	CUresult res = CUDA_SUCCESS;

	if (!emu_config()->nfault)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&fault_lock);
	for (int i = 0; i < cfg.nfault; i++) {
		const struct emu_fault *f = &cfg.fault[i];
		unsigned long n;

		if (!fault_applies(f, name, pid))
			continue;
		n = ++fault_calls[i];
		if (n == f->nth || (f->and_later && n > f->nth))
			res = f->code;
	}
	pthread_mutex_unlock(&fault_lock);
	return res;
}

unsigned int emu_delay_ms(const char *name)
{
	const struct emu_config *c = emu_config();

	for (int i = 0; i < c->ndelay; i++)
		if (!strcmp(c->delay[i].name, name))
			return c->delay[i].ms;
	return 0;
}

uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void emu_trace_span(const char *name, CUresult res, uint64_t begin_ns, uint64_t end_ns, int target)
{
	const struct emu_config *c = emu_config();
	int saved = errno, fd, len;
	char line[256];

	if (!c->trace[0])
		return;
	len = snprintf(line, sizeof(line), "%d %ld %s %d %llu %llu %d\n", getpid(), (long)syscall(SYS_gettid),
		       name, res, (unsigned long long)begin_ns, (unsigned long long)end_ns, target);
	if (len < 0 || len >= (int)sizeof(line))
		emu_cfg_die("CUDASTORE_EMU_TRACE: line for %s too long", name);
	fd = open(c->trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t n = write(fd, line, (size_t)len); /* a trace is best effort, as before */

		(void)n;
		close(fd);
	}
	errno = saved;
}

void emu_trace(const char *name, CUresult res)
{
	uint64_t now = emu_now_ns();

	emu_trace_span(name, res, now, now, 0);
}
