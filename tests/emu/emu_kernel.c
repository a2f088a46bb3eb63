// SPDX-License-Identifier: MIT
/*
 * emu_kernel.c - cuModuleLoadData / cuModuleGetFunction / cuLaunchKernel / cuModuleUnload for
 * the one module the engine loads, the GPU hasher's (plugin/engine/gpu_hash.cu). The module is
 * recognised by its kernels' names in the PTX; anything else is CUDA_ERROR_INVALID_PTX, an
 * unknown kernel name CUDA_ERROR_NOT_FOUND. A launch runs the kernel's work on the CPU over the
 * emulated device memory, thread by thread as the kernel's contract (gpu_hash.cu) gives it: the
 * grid's x extent bounds the threads that run, so a launch with too few threads leaves digests
 * unwritten, as on a GPU; memory outside the live allocations is CUDA_ERROR_ILLEGAL_ADDRESS.
 * Leaves are SHA-256 with libcrypto, roots cs_chunk_id_from_leaves (images/chunk_id.c).
 * CUDASTORE_EMU_HASH_WRONG=1 makes a faulty GPU: every root it writes has its first bit flipped.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "chunk_id.h"
#include "emu_api.h"

#define MOD_MAGIC 0x6d6f6475u /* "modu" */
#define LEAF	  4096u

enum kernel { K_LEAVES, K_ROOTS, K_COUNT };
static const char *const kernel_names[K_COUNT] = { "cs_sha256_leaves", "cs_sha256_roots" };

struct CUfunc_st {
	struct CUmod_st *mod;
	enum kernel kind;
};

struct CUmod_st {
	uint32_t magic;
	struct CUfunc_st fn[K_COUNT];
};

/* ".entry NAME(" in the PTX text: the kernel is in the module */
static bool ptx_has_entry(const char *ptx, const char *name)
{
	char want[64];

	snprintf(want, sizeof(want), ".entry %s(", name);
	return strstr(ptx, want) != NULL;
}

static CUresult module_load(CUmodule *module, const void *image)
{
	struct CUmod_st *m;

	if (!module || !image)
		return CUDA_ERROR_INVALID_VALUE;
	if (emu_ctx_current_dev() < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	for (int k = 0; k < K_COUNT; k++)
		if (!ptx_has_entry(image, kernel_names[k]))
			return CUDA_ERROR_INVALID_PTX;
	m = calloc(1, sizeof(*m));
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	m->magic = MOD_MAGIC;
	for (int k = 0; k < K_COUNT; k++)
		m->fn[k] = (struct CUfunc_st){ m, (enum kernel)k };
	*module = m;
	return CUDA_SUCCESS;
}

static CUresult module_unload(CUmodule m)
{
	if (!m || m->magic != MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	m->magic = 0;
	free(m);
	return CUDA_SUCCESS;
}

static CUresult get_function(CUfunction *fn, CUmodule m, const char *name)
{
	if (!fn || !name)
		return CUDA_ERROR_INVALID_VALUE;
	if (!m || m->magic != MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	for (int k = 0; k < K_COUNT; k++)
		if (!strcmp(name, kernel_names[k])) {
			*fn = &m->fn[k];
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

/* both kernels' parameters: (const u8 *in, u64 len, u64 chunk, u8 *out, u64 count) */
struct hash_args {
	CUdeviceptr in, out;
	uint64_t len, chunk, count;
};

static void args_read(void **params, struct hash_args *a)
{
	memcpy(&a->in, params[0], sizeof(a->in));
	memcpy(&a->len, params[1], sizeof(a->len));
	memcpy(&a->chunk, params[2], sizeof(a->chunk));
	memcpy(&a->out, params[3], sizeof(a->out));
	memcpy(&a->count, params[4], sizeof(a->count));
}

/* device memory as the host sees it, or NULL (outside every live allocation); unpin when done */
static void *dev_ptr(CUdeviceptr p, size_t len, struct cs_op **pin)
{
	return emu_mem_resolve(p, len, pin);
}

/* thread t of cs_sha256_leaves */
static CUresult leaf_thread(const struct hash_args *a, uint64_t t)
{
	uint64_t lpc = (a->chunk + LEAF - 1) / LEAF, c = t / lpc, j = t % lpc;
	uint64_t start = c * a->chunk + j * LEAF;
	uint64_t end = c * a->chunk + a->chunk < a->len ? c * a->chunk + a->chunk : a->len;
	size_t n = end - start < LEAF ? end - start : LEAF;
	struct cs_op *pin_in = NULL, *pin_out = NULL;
	CUresult res = CUDA_ERROR_ILLEGAL_ADDRESS;
	const void *in;
	uint8_t *out;

	if (start >= end)
		return CUDA_SUCCESS;
	in = dev_ptr(a->in + start, n, &pin_in);
	out = dev_ptr(a->out + 32 * t, 32, &pin_out);
	if (in && out)
		res = EVP_Digest(in, n, out, NULL, EVP_sha256(), NULL) ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
	emu_op_unpin(pin_in);
	emu_op_unpin(pin_out);
	return res;
}

/* thread c of cs_sha256_roots */
static CUresult root_thread(const struct hash_args *a, uint64_t c)
{
	uint64_t lpc = (a->chunk + LEAF - 1) / LEAF;
	uint64_t clen = a->len - c * a->chunk < a->chunk ? a->len - c * a->chunk : a->chunk;
	uint64_t nl = (clen + LEAF - 1) / LEAF;
	struct cs_op *pin_in = NULL, *pin_out = NULL;
	const uint8_t *leaves = dev_ptr(a->in + 32 * c * lpc, 32 * nl, &pin_in);
	uint8_t *id = dev_ptr(a->out + 32 * c, 32, &pin_out);
	CUresult res = CUDA_ERROR_ILLEGAL_ADDRESS;

	if (leaves && id)
		res = cs_chunk_id_from_leaves(leaves, nl, clen, id) ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
	if (res == CUDA_SUCCESS && getenv("CUDASTORE_EMU_HASH_WRONG"))
		id[0] ^= 1;
	emu_op_unpin(pin_in);
	emu_op_unpin(pin_out);
	return res;
}

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		       unsigned bz, CUstream s, void **params, void **extra)
{
	uint64_t threads = (uint64_t)gx * bx;
	struct hash_args a;
	CUresult res;

	if (!f || !f->mod || f->mod->magic != MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (emu_ctx_current_dev() < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 || !params || extra)
		return CUDA_ERROR_INVALID_VALUE;
	res = emu_stream_check(s);
	if (res != CUDA_SUCCESS)
		return res;
	args_read(params, &a);
	if (!a.chunk)
		return CUDA_ERROR_ILLEGAL_ADDRESS; /* the kernels divide by it */
	for (uint64_t t = 0; t < threads && t < a.count && res == CUDA_SUCCESS; t++)
		res = f->kind == K_LEAVES ? leaf_thread(&a, t) : root_thread(&a, t);
	return res;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	EMU_CALL("cuModuleLoadData", EMU_F_INIT | EMU_F_GATE, module_load(module, image));
}

CUresult cuModuleUnload(CUmodule module)
{
	EMU_CALL("cuModuleUnload", EMU_F_INIT | EMU_F_GATE, module_unload(module));
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name)
{
	EMU_CALL("cuModuleGetFunction", EMU_F_INIT, get_function(fn, module, name));
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			unsigned int by, unsigned int bz, unsigned int shared_bytes, CUstream stream,
			void **params, void **extra)
{
	EMU_CALL("cuLaunchKernel", EMU_F_INIT | EMU_F_GATE,
		 launch(f, gx, gy, gz, bx, by, bz, stream, params, extra));
}
