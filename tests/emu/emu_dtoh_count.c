// SPDX-License-Identifier: MIT
/*
 * emu_dtoh_count.c - the bytes this process copied device-to-host, for tests that bound what
 * crosses "PCIe": with $CUDASTORE_EMU_DTOH_COUNT set, every DtoH copy that succeeds rewrites
 * the file "$CUDASTORE_EMU_DTOH_COUNT.<pid>" with this process's running total (one decimal
 * number and a newline), so the count survives however the process ends.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "emu.h"

static pthread_mutex_t dtoh_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t dtoh_bytes;

void emu_dtoh_count(size_t bytes)
{
	const char *base = getenv("CUDASTORE_EMU_DTOH_COUNT");
	char path[4096], line[32];
	int fd, n;

	if (!base || !*base)
		return;
	snprintf(path, sizeof(path), "%s.%d", base, (int)getpid());
	pthread_mutex_lock(&dtoh_lock);
	dtoh_bytes += bytes;
	n = snprintf(line, sizeof(line), "%020llu\n", (unsigned long long)dtoh_bytes);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (pwrite(fd, line, (size_t)n, 0) != n)
			emu_trace("emu_dtoh_count: short write", CUDA_ERROR_UNKNOWN);
		close(fd);
	}
	pthread_mutex_unlock(&dtoh_lock);
}
