// SPDX-License-Identifier: MIT
/* test-engine-opts: cs_engine_opts_check accepts the defaults and rejects absurd values by name. */
#include <errno.h>
#include <string.h>

#include "engine-test.h"

static void reject(const char *what, struct cs_engine_opts o, const char *needle)
{
	char err[256] = "";
	int ret = cs_engine_opts_check(&o, err, sizeof(err));

	tap_ok(ret == -EINVAL, "%s: rejected with -EINVAL (got %d)", what, ret);
	et_check_msg(err, what, needle, NULL);
}

static void accept(const char *what, struct cs_engine_opts o)
{
	char err[256] = "";
	int ret = cs_engine_opts_check(&o, err, sizeof(err));

	tap_ok(ret == 0, "%s: accepted (%d: %s)", what, ret, err);
}

int main(void)
{
	char below[32];
	struct cs_engine_opts def, o;
	struct cs_engine_region r;
	struct cs_cuda_ops ops;
	char err[256] = "";

	tap_plan(24);
	cs_engine_opts_default(&def);
	tap_ok(def.chunk_size == CS_ENGINE_CHUNK_DEF && def.threads == CS_ENGINE_THREADS_DEF &&
		   def.pinned_max == CS_ENGINE_PINNED_DEF && def.direct_io && def.skip_zero && !def.progress,
	       "defaults are the documented ones");
	accept("defaults", def);

	o = def, o.chunk_size = 3u << 20;
	reject("chunk 3 MiB (not a power of two)", o, "3145728");
	o = def, o.chunk_size = 32u << 10;
	reject("chunk 32 KiB (below 64 KiB)", o, "32768");
	o = def, o.chunk_size = 0;
	reject("chunk 0", o, "chunk size 0");
	o = def, o.chunk_size = 2u << 30, o.pinned_max = 4ull << 30;
	reject("chunk 2 GiB (above 1 GiB)", o, "2147483648");
	o = def, o.chunk_size = CS_CHUNK_MIN, o.pinned_max = CS_CHUNK_MIN;
	accept("chunk 64 KiB, pinned one chunk", o);
	o = def, o.chunk_size = CS_CHUNK_MAX, o.pinned_max = CS_CHUNK_MAX;
	accept("chunk 1 GiB", o);
	o = def, o.threads = 0;
	reject("0 threads", o, "threads per device 0");
	o = def, o.threads = 33;
	reject("33 threads", o, "33");
	o = def, o.threads = 32;
	accept("32 threads", o);
	o = def, o.pinned_max = def.chunk_size - 1;
	snprintf(below, sizeof(below), "%u", def.chunk_size - 1);
	reject("pinned below one chunk", o, below);
	o = def, o.pinned_max = (16ull << 30) + 1;
	reject("pinned above 16 GiB", o, "17179869185");
	o = def, o.pinned_max = 16ull << 30;
	accept("pinned 16 GiB", o);

	/* the operations check too, before touching anything */
	fake_cuda_init(&ops);
	o = def, o.threads = 0;
	et_region(&r, 0, 1, fake_ctx(0), -1, "x");
	tap_ok(cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err)) == -EINVAL, "dump with 0 threads: -EINVAL");
	tap_ok(cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err)) == -EINVAL,
	       "restore with 0 threads: -EINVAL");
	return tap_done();
}
