// SPDX-License-Identifier: MIT
/*
 * test-emu-gpu-hash-equals-cpu-ids: the GPU hasher (engine/gpu_hash.h) through the driver
 * emulator, which runs the kernels of gpu_hash.cu on the CPU as their contract gives them: the
 * ids equal cs_chunk_id() of each chunk's bytes, the roots hashed on the GPU or (chunks over
 * 64 MiB) on the host, for lengths that are not multiples of the leaf or of the chunk, for a
 * chunk that is not a multiple of the leaf and for an unaligned start;
 * the grid bounds the threads that run; a driver without the kernel entry points or refusing
 * the module gives -ENOTSUP (the caller hashes on the CPU), a failed launch -EIO, memory outside
 * the allocations -EIO; unknown modules and kernels are refused by the emulator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_id.h"
#include "emu-test.h"
#include "gpu_hash.h"

#define MiB (1ul << 20)
#define BUF (72 * MiB + 12345)

extern const char cs_gpu_hash_ptx[];

static struct cs_cuda_ops cu;
static uint8_t *host;
static CUdeviceptr dev;

static void fill(uint8_t *p, size_t len)
{
	uint64_t x = 0x2545f4914f6cdd1dull;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static void start(const char *const *env)
{
	CUcontext ctx;

	emu_test_setup(env, &cu);
	if (!CU_OK(cu.Init(0)) || !CU_OK(cu.DevicePrimaryCtxRetain(&ctx, 0)) || !CU_OK(cu.CtxSetCurrent(ctx)))
		tap_bail("no emulated context");
	host = malloc(BUF);
	if (!host || !CU_OK(cu.MemAlloc(&dev, BUF)))
		tap_bail("no memory");
	fill(host, BUF);
	if (!CU_OK(cu.MemcpyHtoD(dev, host, BUF)))
		tap_bail("cuMemcpyHtoD failed");
}

/* eng_gpu_hash over [off, off + len) in chunks of chunk: ret, and whether every id is the CPU's */
static int gpu_vs_cpu(struct eng_gpu_hasher *h, size_t off, uint64_t len, uint64_t chunk, bool *same)
{
	uint64_t n = (len + chunk - 1) / chunk;
	uint8_t *ids = malloc(CS_CHUNK_ID_LEN * n + 1), want[CS_CHUNK_ID_LEN];
	int ret;

	if (!ids)
		tap_bail("out of memory");
	*same = true;
	ret = eng_gpu_hash(h, dev + off, len, chunk, ids);
	for (uint64_t c = 0; !ret && c < n; c++) {
		uint64_t clen = len - c * chunk < chunk ? len - c * chunk : chunk;

		cs_chunk_id(host + off + c * chunk, clen, want);
		if (memcmp(want, ids + CS_CHUNK_ID_LEN * c, CS_CHUNK_ID_LEN)) {
			tap_diag("chunk %llu of %llu differs", (unsigned long long)c, (unsigned long long)n);
			*same = false;
		}
	}
	free(ids);
	return ret;
}

static void ids_equal_cpu(struct eng_gpu_hasher *h)
{
	static const struct {
		size_t off;
		uint64_t len, chunk;
		const char *what;
	} cases[] = {
		{ 0, BUF, MiB, "72 MiB + 12345 in 1 MiB chunks (the last 12345 bytes)" },
		{ 0, BUF, 64 << 10, "72 MiB + 12345 in 64 KiB chunks" },
		{ 0, 1, 64 << 10, "1 byte" },
		{ 0, 4095, 4096, "4095 bytes, 4 KiB chunk" },
		{ 0, 4097, 4096, "4097 bytes, 4 KiB chunks (the last 1 byte)" },
		{ 0, 3 * MiB + 1, 10000, "3 MiB + 1 in 10000-byte chunks (not a multiple of the leaf)" },
		{ 1, MiB + 7, MiB, "1 MiB + 7 from an odd address" },
		{ 4, 200003, 65536, "200003 bytes from a 4-byte-aligned address" },
		{ 0, BUF, 32 * MiB, "72 MiB + 12345 in 32 MiB chunks (roots on the GPU)" },
		{ 0, BUF, 64 * MiB + 4096, "72 MiB + 12345 in 64 MiB + 4 KiB chunks (roots on the host)" },
		{ 3, 70 * MiB + 1, 68 * MiB,
		  "70 MiB + 1 from an odd address in 68 MiB chunks (roots on the host)" },
		{ 0, 65 * MiB, 64 * MiB, "65 MiB in 64 MiB chunks (the largest with roots on the GPU)" },
	};
	bool same;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(gpu_vs_cpu(h, cases[i].off, cases[i].len, cases[i].chunk, &same) == 0 && same,
		       "%s: GPU ids = cs_chunk_id", cases[i].what);
}

static void refusals(struct eng_gpu_hasher *h)
{
	uint8_t ids[CS_CHUNK_ID_LEN] = { 0x5a };
	struct cs_cuda_ops no_launch = cu;
	struct eng_gpu_hasher *none = (struct eng_gpu_hasher *)1;
	bool same;

	no_launch.LaunchKernel = NULL;
	tap_ok(eng_gpu_hasher_open(&no_launch, &none) == -ENOTSUP && !none,
	       "a driver without cuLaunchKernel: -ENOTSUP (the caller hashes on the CPU)");
	tap_ok(eng_gpu_hash(h, dev, MiB, 0, ids) == -EINVAL, "chunk 0: -EINVAL");
	tap_ok(eng_gpu_hash(h, dev, 0, MiB, ids) == 0 && ids[0] == 0x5a, "length 0: no id, nothing written");
	tap_ok(gpu_vs_cpu(h, 0, BUF + 4096, MiB, &same) == -EIO, "bytes past the allocation: -EIO");
}

/* the kernels straight through the driver: the grid bounds the threads; foreign modules refused */
static void grid_and_modules(void)
{
	CUmodule mod = NULL;
	CUfunction leaves, fn;
	CUdeviceptr out;
	uint64_t len = 8 * 4096, chunk = 1 << 20, n = 8;
	void *args[] = { &dev, &len, &chunk, &out, &n };
	uint8_t digests[8 * 32], want[32];
	bool first4 = true, rest_untouched = true;

	if (!CU_OK(cu.ModuleLoadData(&mod, cs_gpu_hash_ptx)) ||
	    !CU_OK(cu.ModuleGetFunction(&leaves, mod, "cs_sha256_leaves")) ||
	    !CU_OK(cu.MemAlloc(&out, sizeof(digests))))
		tap_bail("cannot load the hasher's module");
	cu.MemsetD8(out, 0xee, sizeof(digests));
	tap_ok(CU_OK(cu.LaunchKernel(leaves, 2, 1, 1, 2, 1, 1, 0, NULL, args, NULL)) &&
		   CU_OK(cu.MemcpyDtoH(digests, out, sizeof(digests))),
	       "leaf kernel launched with 2 x 2 threads for 8 leaves");
	for (int i = 0; i < 4; i++) {
		uint8_t one[32];

		/* a leaf's digest is the SHA-256 of its bytes: the id of a 1-leaf chunk is built on it */
		cs_chunk_id_from_leaves(digests + 32 * i, 1, 4096, one);
		cs_chunk_id(host + 4096 * i, 4096, want);
		first4 = first4 && !memcmp(one, want, 32);
	}
	for (int i = 4 * 32; i < 8 * 32; i++)
		rest_untouched = rest_untouched && digests[i] == 0xee;
	tap_ok(first4 && rest_untouched, "the 4 threads hashed leaves 0-3; leaves 4-7 untouched");
	tap_ok(cu.ModuleGetFunction(&fn, mod, "cs_sha256_nothing") == CUDA_ERROR_NOT_FOUND,
	       "unknown kernel: NOT_FOUND");
	tap_ok(CU_OK(cu.ModuleUnload(mod)), "module unloaded");
	mod = NULL;
	tap_ok(cu.ModuleLoadData(&mod, "// another module\n.visible .entry other(\n") ==
		   CUDA_ERROR_INVALID_PTX,
	       "a module without the hasher's kernels: INVALID_PTX");
	cu.MemFree(out);
}

/* own process: the emulator reads its faults once, before the first call */
static void faults(void *arg)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=1", "CUDASTORE_EMU_MEM_MB=256",
			      "CUDASTORE_EMU_FAULTS=cuModuleLoadData:1:218,cuLaunchKernel:2:719", NULL };
	struct eng_gpu_hasher *h = NULL;
	bool same;

	start(env);
	tap_ok(eng_gpu_hasher_open(&cu, &h) == -ENOTSUP && !h, "the driver refuses the PTX: -ENOTSUP");
	tap_ok(eng_gpu_hasher_open(&cu, &h) == 0 && h, "opened when the driver takes it");
	tap_ok(gpu_vs_cpu(h, 0, MiB, 64 << 10, &same) == -EIO, "the root kernel's launch fails: -EIO");
	tap_ok(gpu_vs_cpu(h, 0, MiB, 64 << 10, &same) == 0 && same, "the next call hashes right");
	eng_gpu_hasher_close(h);
}

int main(void)
{
	const char *env[] = { "CUDASTORE_EMU_DEVICES=1", "CUDASTORE_EMU_MEM_MB=256", NULL };
	struct eng_gpu_hasher *h = NULL;

	emu_test_fork(faults, NULL);
	start(env);
	tap_ok(eng_gpu_hasher_open(&cu, &h) == 0 && h, "hasher opened on the emulated driver");
	if (!h)
		tap_bail("no hasher");
	ids_equal_cpu(h);
	refusals(h);
	grid_and_modules();
	eng_gpu_hasher_close(h);
	tap_plan(tap_n);
	return tap_done();
}
