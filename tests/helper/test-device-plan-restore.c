// SPDX-License-Identifier: MIT
/* Restore device planning: same GPUs map to themselves, a device map must cover every
 * checkpointed GPU and point at visible ones, a single GPU may move without a map, several
 * missing GPUs without a map are refused with a message that says what to set. */
#include <errno.h>
#include <string.h>

#include "devices.h"
#include "tap.h"

static CUuuid U(unsigned char tag)
{
	CUuuid u;

	memset(&u, 0, sizeof(u));
	u.bytes[0] = (char)tag;
	return u;
}

static int same(CUuuid a, CUuuid b)
{
	return !memcmp(&a, &b, sizeof(a));
}

int main(void)
{
	struct cs_manifest m;
	struct cs_options o;
	CUuuid dest[CS_MAX_DEVICES], vis[4];
	char err[512];

	tap_plan(11);
	memset(&m, 0, sizeof(m));
	memset(&o, 0, sizeof(o));
	m.ndev = 2;
	m.dev[0].uuid = U(0xa0);
	m.dev[0].ordinal = 0;
	m.dev[1].uuid = U(0xa1);
	m.dev[1].ordinal = 1;

	vis[0] = U(0xa1);
	vis[1] = U(0xa0);
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == 0 && same(dest[0], U(0xa0)) &&
		       same(dest[1], U(0xa1)), "present GPUs map to themselves, whatever their order");

	vis[0] = U(0xb0);
	vis[1] = U(0xb1);
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == -ENODEV &&
		       strstr(err, "CUDASTORE_DEVICE_MAP"), "two missing GPUs without a map refused: %s", err);

	o.ndevice_map = 2;
	o.device_map[0] = (struct cs_device_pair){ .from = U(0xa0), .to = U(0xb1) };
	o.device_map[1] = (struct cs_device_pair){ .from = U(0xa1), .to = U(0xb0) };
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == 0 && same(dest[0], U(0xb1)) &&
		       same(dest[1], U(0xb0)), "device map followed");

	o.ndevice_map = 1;
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == -ENODEV &&
		       strstr(err, "does not list"), "map missing a checkpointed GPU refused: %s", err);

	o.ndevice_map = 2;
	o.device_map[1] = (struct cs_device_pair){ .from = U(0xa1), .to = U(0xb1) };
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == -ENODEV &&
		       strstr(err, "two checkpointed GPUs"), "two GPUs onto one refused: %s", err);

	o.device_map[1] = (struct cs_device_pair){ .from = U(0xa1), .to = U(0xcc) };
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == -ENODEV &&
		       strstr(err, "not visible"), "map onto an invisible GPU refused: %s", err);

	/* ordinal pairs: the dumping host's ordinal -> this host's ordinal */
	o.ndevice_map = 2;
	o.device_map[0] = (struct cs_device_pair){ .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 1 };
	o.device_map[1] = (struct cs_device_pair){ .by_ordinal = true, .from_ordinal = 1, .to_ordinal = 0 };
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == 0 &&
		   same(dest[0], U(0xb1)) && same(dest[1], U(0xb0)),
	       "ordinal map 0=1,1=0 followed: %s", err);
	o.device_map[1].to_ordinal = 2;
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) ==
		       -ENODEV &&
		   strstr(err, "only 2 GPUs are visible"),
	       "ordinal map onto a GPU beyond the visible ones refused: %s", err);

	o.ndevice_map = 0;
	m.ndev = 1;
	m.dev[0].ordinal = 1;
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == 0 && same(dest[0], U(0xb1)),
	       "single GPU moves without a map, to the same ordinal");
	m.dev[0].ordinal = 5;
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 2, dest, err, sizeof(err)) == 0 && same(dest[0], U(0xb0)),
	       "single GPU with an ordinal beyond the visible ones moves to GPU 0");
	tap_ok(cs_dev_plan_restore(&m, o.device_map, o.ndevice_map, vis, 0, dest, err, sizeof(err)) == -ENODEV,
	       "no visible GPU at all refused: %s", err);
	return tap_done();
}
