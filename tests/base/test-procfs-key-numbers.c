// SPDX-License-Identifier: MIT
/*
 * test-procfs-key-numbers - the /proc readers that take the number after a key: a status field
 * (PPid, TracerPid), MemAvailable, a /proc/vmstat counter; an unknown key or process gives the
 * documented "unknown" value, and a key that only begins another key's name is not taken for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "tap.h"

/* the same number read here with sscanf, for comparison */
static unsigned long long vmstat_here(const char *key)
{
	unsigned long long v = 0, x;
	char name[64];
	FILE *f = fopen("/proc/vmstat", "re");

	while (f && fscanf(f, "%63s %llu", name, &x) == 2)
		if (!strcmp(name, key)) {
			v = x;
			break;
		}
	if (f)
		fclose(f);
	return v;
}

int main(void)
{
	unsigned long long here = vmstat_here("nr_free_pages"), got = cs_procfs_vmstat("nr_free_pages");

	tap_plan(7);
	tap_ok(cs_procfs_status_pid(getpid(), "PPid") == getppid(),
	       "PPid of this process is its parent's pid");
	tap_ok(cs_procfs_status_pid(getpid(), "TracerPid") >= 0, "TracerPid is read (%d)",
	       (int)cs_procfs_status_pid(getpid(), "TracerPid"));
	tap_ok(cs_procfs_status_pid(getpid(), "NoSuchField") == -1 &&
		   cs_procfs_status_pid(99999999, "PPid") == -1,
	       "an unknown field or process: -1");
	tap_ok(cs_procfs_mem_available() > 0 && cs_procfs_mem_available() % 1024 == 0,
	       "MemAvailable is read in bytes (%llu)", (unsigned long long)cs_procfs_mem_available());
	/* the free page count moves all the time: the same order of magnitude is the same field */
	tap_ok(here > 0 && got > here / 2 && got < here * 2,
	       "nr_free_pages from /proc/vmstat: %llu (here %llu)", got, here);
	tap_ok(cs_procfs_vmstat("no_such_counter") == 0, "an unknown counter: 0");
	tap_ok(cs_procfs_vmstat("nr_free") == 0,
	       "a key that only begins a counter's name is not that counter");
	return tap_done();
}
