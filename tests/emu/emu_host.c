// SPDX-License-Identifier: MIT
/*
 * emu_host.c - the emulated host: the facts of each GPU (CUDASTORE_EMU_UUIDS, _NAMES, _CC,
 * _BUS_IDS, _MIG, _MEM_MB, _USED_MB, _MINORS), the driver's version string (_DRIVER_STRING) and
 * CUDA_VISIBLE_DEVICES, read with the rest of the configuration (emu_config.c). A malformed
 * CUDASTORE_EMU_* value aborts the process with a message; CUDA_VISIBLE_DEVICES never does:
 * as in the driver, its list just stops at an entry that names no device.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cuda_ops.h"
#include "emu.h"

/* the configuration being loaded (emu_host_load runs once, inside emu_config's one parse) */
static struct emu_config *cfg;

static void cfg_default_uuid(int dev, CUuuid *uuid)
{
	unsigned char *b = (unsigned char *)uuid->bytes;

	for (int i = 0; i < 16; i++)
		b[i] = (unsigned char)(0xc5 ^ (i * 0x1d) ^ (dev * 0x35 + 0x40));
	b[15] = (unsigned char)dev;
}

/* The facts of physical device dev when no variable says otherwise. */
static void cfg_default_gpu(int dev, struct emu_gpu *g)
{
	cfg_default_uuid(dev, &g->uuid);
	snprintf(g->name, sizeof(g->name), "NVIDIA Emulated GPU"); /* one product, as on most hosts */
	g->cc_major = 9;
	g->cc_minor = 0;
	g->pci_bus = 0x10 + (unsigned int)dev;
	g->mem = (uint64_t)EMU_DEFAULT_MEM_MB << 20;
	g->minor = (unsigned int)dev;
}

/*
 * Splits a comma list into buf, item[] pointing at each entry; returns the count. An empty
 * entry, or more than EMU_MAXDEV of them, is refused.
 */
static int cfg_split(const char *var, const char *text, char *buf, size_t len, char **item)
{
	char *p = buf, *comma;
	int n = 0;

	if (strlen(text) >= len)
		emu_cfg_die("%s: list too long: %s", var, text);
	snprintf(buf, len, "%s", text);
	for (;;) {
		if (n == EMU_MAXDEV)
			emu_cfg_die("%s: more than %d entries in \"%s\"", var, EMU_MAXDEV, text);
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p)
			emu_cfg_die("%s: empty entry in \"%s\"", var, text);
		item[n++] = p;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

/*
 * A per-device list: one(var, item, dev) sets device dev's fact from item. One value, or a
 * list shorter than the devices, repeats its last value over the remaining devices.
 */
static void cfg_per_device(const char *var, const char *text, void (*one)(const char *, const char *, int))
{
	char buf[EMU_MAXDEV * (EMU_NAME_LEN + 1)], *item[EMU_MAXDEV];
	int n = cfg_split(var, text, buf, sizeof(buf), item);

	for (int d = 0; d < EMU_MAXDEV; d++)
		one(var, item[d < n ? d : n - 1], d);
}

static void cfg_uuids(const char *text)
{
	char buf[EMU_MAXDEV * 48], *item[EMU_MAXDEV];
	int n = cfg_split("CUDASTORE_EMU_UUIDS", text, buf, sizeof(buf), item);

	for (int i = 0; i < n; i++)
		if (cs_uuid_parse(item[i], &cfg->gpu[i].uuid))
			emu_cfg_die("CUDASTORE_EMU_UUIDS: bad UUID \"%s\" (want GPU-xxxxxxxx-xxxx-...)",
				    item[i]);
	if (n < cfg->ndev)
		emu_cfg_die("CUDASTORE_EMU_UUIDS: %d UUIDs for %d devices", n, cfg->ndev);
}

static void cfg_mem_one(const char *var, const char *item, int dev)
{
	char *end;
	long mb = emu_cfg_number(var, item, &end, 2, 1L << 20);

	if (*end)
		emu_cfg_die("%s: bad number \"%s\" (want MiB)", var, item);
	cfg->gpu[dev].mem = (uint64_t)mb << 20;
}

static void cfg_used_one(const char *var, const char *item, int dev)
{
	char *end;
	long mb = emu_cfg_number(var, item, &end, 0, 1L << 20);

	if (*end)
		emu_cfg_die("%s: bad number \"%s\" (want MiB)", var, item);
	cfg->gpu[dev].other = (uint64_t)mb << 20;
}

static void cfg_name_one(const char *var, const char *item, int dev)
{
	if (strlen(item) >= sizeof(cfg->gpu[dev].name))
		emu_cfg_die("%s: name \"%s\" longer than %zu bytes", var, item,
			    sizeof(cfg->gpu[dev].name) - 1);
	snprintf(cfg->gpu[dev].name, sizeof(cfg->gpu[dev].name), "%s", item);
}

/* a decimal number of 1 to digits digits at *p; -1 if there is none */
static long cfg_digits(const char **p, int digits)
{
	long v = 0;
	int n = 0;

	for (; n < digits && isdigit((unsigned char)**p); n++, (*p)++)
		v = v * 10 + (**p - '0');
	return n && !isdigit((unsigned char)**p) ? v : -1;
}

/* "MAJOR.MINOR", as 9.0 or 12.1 */
static void cfg_cc_one(const char *var, const char *item, int dev)
{
	const char *p = item;
	long major = cfg_digits(&p, 2), minor = -1;

	if (major > 0 && *p == '.') {
		p++;
		minor = cfg_digits(&p, 1);
	}
	if (major <= 0 || minor < 0 || *p)
		emu_cfg_die("%s: bad compute capability \"%s\" (want MAJOR.MINOR, like 9.0)", var, item);
	cfg->gpu[dev].cc_major = (int)major;
	cfg->gpu[dev].cc_minor = (int)minor;
}

static void cfg_mig_one(const char *var, const char *item, int dev)
{
	if (strcmp(item, "0") && strcmp(item, "1"))
		emu_cfg_die("%s: bad MIG mode \"%s\" (want 0 or 1)", var, item);
	cfg->gpu[dev].mig = item[0] == '1';
}

/* a hexadecimal number of 1 to digits digits at *p; -1 if there is none */
static long cfg_hex(const char **p, int digits)
{
	long v = 0;
	int n = 0;

	for (; n < digits && isxdigit((unsigned char)**p); n++, (*p)++)
		v = v * 16 +
		    (isdigit((unsigned char)**p) ? **p - '0' : tolower((unsigned char)**p) - 'a' + 10);
	return n && !isxdigit((unsigned char)**p) ? v : -1;
}

/* "DOMAIN:BUS:DEVICE.FUNCTION" in hexadecimal, as 0000:06:00.0; 0 or -1 */
static int cfg_bus_id(const char *text, struct emu_gpu *g)
{
	const char *p = text;
	long domain = cfg_hex(&p, 8), bus = -1, device = -1, function = -1;

	if (domain >= 0 && *p++ == ':' && (bus = cfg_hex(&p, 2)) >= 0 && *p++ == ':' &&
	    (device = cfg_hex(&p, 2)) >= 0 && *p++ == '.')
		function = cfg_hex(&p, 1);
	if (function < 0 || function > 7 || device > 0x1f || *p)
		return -1;
	g->pci_domain = (unsigned int)domain;
	g->pci_bus = (unsigned int)bus;
	g->pci_device = (unsigned int)device;
	g->pci_function = (unsigned int)function;
	return 0;
}

static bool same_bus_id(const struct emu_gpu *a, const struct emu_gpu *b)
{
	return a->pci_domain == b->pci_domain && a->pci_bus == b->pci_bus && a->pci_device == b->pci_device &&
	       a->pci_function == b->pci_function;
}

static void cfg_bus_ids(const char *text)
{
	char buf[EMU_MAXDEV * 32], *item[EMU_MAXDEV];
	int n = cfg_split("CUDASTORE_EMU_BUS_IDS", text, buf, sizeof(buf), item);

	for (int i = 0; i < n; i++) {
		if (cfg_bus_id(item[i], &cfg->gpu[i]))
			emu_cfg_die("CUDASTORE_EMU_BUS_IDS: bad PCI bus ID \"%s\" (want "
				    "DOMAIN:BUS:DEVICE.FUNCTION in "
				    "hexadecimal, like 0000:06:00.0)",
				    item[i]);
		for (int j = 0; j < i; j++)
			if (same_bus_id(&cfg->gpu[i], &cfg->gpu[j]))
				emu_cfg_die("CUDASTORE_EMU_BUS_IDS: \"%s\" names devices %d and %d", item[i],
					    j, i);
	}
	if (n < cfg->ndev)
		emu_cfg_die("CUDASTORE_EMU_BUS_IDS: %d bus IDs for %d devices", n, cfg->ndev);
}

/* each device's /dev/nvidiaN number, as NVML's nvmlDeviceGetMinorNumber reports it: distinct */
static void cfg_minors(const char *text)
{
	char buf[EMU_MAXDEV * 8], *item[EMU_MAXDEV], *end;
	int n = cfg_split("CUDASTORE_EMU_MINORS", text, buf, sizeof(buf), item);

	for (int i = 0; i < n; i++) {
		cfg->gpu[i].minor =
		    (unsigned int)emu_cfg_number("CUDASTORE_EMU_MINORS", item[i], &end, 0, 254);
		if (*end)
			emu_cfg_die("CUDASTORE_EMU_MINORS: bad minor number \"%s\" (want 0 to 254)", item[i]);
		for (int j = 0; j < i; j++)
			if (cfg->gpu[j].minor == cfg->gpu[i].minor)
				emu_cfg_die("CUDASTORE_EMU_MINORS: minor %u names devices %d and %d",
					    cfg->gpu[i].minor, j, i);
	}
	if (n < cfg->ndev)
		emu_cfg_die("CUDASTORE_EMU_MINORS: %d minor numbers for %d devices", n, cfg->ndev);
}

/* "BRANCH.MINOR[.PATCH]" in digits, as nvidia-smi prints it */
static void cfg_driver_string(const char *text)
{
	const char *p = text;
	int parts = 0;

	while (cfg_digits(&p, 4) >= 0 && ++parts < 3 && *p == '.')
		p++;
	if (parts < 2 || *p || strlen(text) >= sizeof(cfg->driver_string))
		emu_cfg_die(
		    "CUDASTORE_EMU_DRIVER_STRING=%s: want the driver's version, BRANCH.MINOR[.PATCH] in "
		    "digits, like 580.159.04",
		    text);
	snprintf(cfg->driver_string, sizeof(cfg->driver_string), "%s", text);
}

/* One CUDA_VISIBLE_DEVICES entry: the physical device it names, or -1. */
static int visible_entry(const char *entry)
{
	char text[CS_UUID_STRLEN];
	int hit = -1;

	if (isdigit((unsigned char)entry[0])) {
		const char *p = entry;
		long v = cfg_digits(&p, 3);

		return v >= 0 && !*p && v < cfg->ndev ? (int)v : -1;
	}
	/* a UUID, or enough of its beginning to name one device only */
	if (strncmp(entry, "GPU-", 4) || !entry[4])
		return -1;
	for (int d = 0; d < cfg->ndev; d++) {
		cs_uuid_format(&cfg->gpu[d].uuid, text);
		if (strncasecmp(text, entry, strlen(entry)))
			continue;
		if (hit >= 0)
			return -1;
		hit = d;
	}
	return hit;
}

/*
 * CUDA_VISIBLE_DEVICES, as the driver reads it: unset, every device; otherwise the devices
 * listed, in the list's order, up to the first entry that names none (or one listed already).
 * Set and empty: no device.
 */
static void cfg_visible(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	char buf[1024], *p, *comma;

	if (!v) {
		for (int d = 0; d < cfg->ndev; d++)
			cfg->visible[d] = d;
		cfg->nvisible = cfg->ndev;
		return;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (p = buf; *p && cfg->nvisible < EMU_MAXDEV; p = comma + 1) {
		int dev, i;

		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		dev = visible_entry(p);
		for (i = 0; i < cfg->nvisible && cfg->visible[i] != dev; i++)
			;
		if (dev < 0 || i < cfg->nvisible)
			return;
		cfg->visible[cfg->nvisible++] = dev;
		if (!comma)
			return;
	}
}

void emu_host_load(struct emu_config *c)
{
	static const struct {
		const char *var;
		void (*one)(const char *, const char *, int);
	} per_device[] = {
		{ "CUDASTORE_EMU_NAMES", cfg_name_one },   { "CUDASTORE_EMU_CC", cfg_cc_one },
		{ "CUDASTORE_EMU_MIG", cfg_mig_one },	   { "CUDASTORE_EMU_MEM_MB", cfg_mem_one },
		{ "CUDASTORE_EMU_USED_MB", cfg_used_one },
	};
	const char *v;

	cfg = c;
	for (int i = 0; i < EMU_MAXDEV; i++)
		cfg_default_gpu(i, &cfg->gpu[i]);
	v = getenv("CUDASTORE_EMU_UUIDS");
	if (v && *v)
		cfg_uuids(v);
	v = getenv("CUDASTORE_EMU_BUS_IDS");
	if (v && *v)
		cfg_bus_ids(v);
	v = getenv("CUDASTORE_EMU_MINORS");
	if (v && *v)
		cfg_minors(v);
	for (size_t i = 0; i < sizeof(per_device) / sizeof(per_device[0]); i++) {
		v = getenv(per_device[i].var);
		if (v && *v)
			cfg_per_device(per_device[i].var, v, per_device[i].one);
	}
	for (int i = 0; i < cfg->ndev; i++)
		if (cfg->gpu[i].other > cfg->gpu[i].mem)
			emu_cfg_die("CUDASTORE_EMU_USED_MB: device %d: %llu MiB used of its %llu MiB", i,
				    (unsigned long long)cfg->gpu[i].other >> 20,
				    (unsigned long long)cfg->gpu[i].mem >> 20);
	snprintf(cfg->driver_string, sizeof(cfg->driver_string), "%s",
		 cfg->driver_version >= 13040 ? "615.00.00" : "580.159.04");
	v = getenv("CUDASTORE_EMU_DRIVER_STRING");
	if (v && *v)
		cfg_driver_string(v);
	cfg_visible();
}
