// SPDX-License-Identifier: MIT
/*
 * bench-gpu.c - the device side of cs-bench: fill and verify the test pattern (chunkwise,
 * several threads, each with its own stream and pinned buffer), raw pinned PCIe bandwidth,
 * and the naive baseline (one pinned buffer, synchronous copy, then write; read, then copy).
 *
 * Pattern: chunk c (of the engine's chunk size) holds xorshift64 words seeded by c, so any
 * chunk can be regenerated on its own for verification. With a pattern seed (b->seed; --procs
 * gives each copy its own) chunk c is seeded by c + (seed << 40): no two copies hold the same
 * bytes, so an extent restored into the wrong copy's buffer fails verification. zero75: chunks
 * with c % 4 != 0 are all zero (3 of every 4 chunk-sized blocks).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define FILL_THREADS_MAX 16
#define PCIE_COPY	 (64ull << 20)
#define PCIE_BYTES_MAX	 (8ull << 30)
#define NAIVE_NAME	 "cs-bench-naive.tmp"

static bool chunk_is_zero(enum bench_kind kind, uint64_t c)
{
	return kind == BENCH_ZERO75 && c % 4 != 0;
}

static void gen(void *dst, size_t len, uint64_t c)
{
	uint64_t x = (c + 1) * 0x9e3779b97f4a7c15ull, *p = dst;
	size_t i, words = len / 8;

	for (i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = x;
	}
	if (len % 8) {
		x ^= x << 13;
		memcpy((char *)dst + words * 8, &x, len % 8);
	}
}

static int cuda_check(const struct bench *b, CUresult res, const char *call)
{
	if (res == CUDA_SUCCESS)
		return 0;
	fprintf(stderr, "cs-bench: %s failed: %s\n", call, cs_cuda_errname(b->ops, res));
	return -1;
}

/* ---- fill / verify: threads over chunks ---- */

struct pass {
	const struct bench *b;
	CUdeviceptr dev;
	uint64_t size;
	enum bench_kind kind;
	bool verify;
	atomic_uint_fast64_t next;
	atomic_int failed;   /* a CUDA/memory error */
	atomic_int mismatch; /* verification found a difference */
};

static int pass_chunk(struct pass *p, CUstream s, void *pinned, void *expect, uint64_t c)
{
	const struct cs_cuda_ops *ops = p->b->ops;
	uint64_t off = c * p->b->chunk;
	size_t len = p->size - off < p->b->chunk ? p->size - off : p->b->chunk;
	bool zero = chunk_is_zero(p->kind, c);

	if (!p->verify) {
		if (zero)
			return cuda_check(p->b, ops->MemsetD8Async(p->dev + off, 0, len, s),
					  "cuMemsetD8Async");
		gen(pinned, len, c + (p->b->seed << 40));
		if (cuda_check(p->b, ops->MemcpyHtoDAsync(p->dev + off, pinned, len, s), "cuMemcpyHtoDAsync"))
			return -1;
		return cuda_check(p->b, ops->StreamSynchronize(s), "cuStreamSynchronize");
	}
	if (cuda_check(p->b, ops->MemcpyDtoHAsync(pinned, p->dev + off, len, s), "cuMemcpyDtoHAsync") ||
	    cuda_check(p->b, ops->StreamSynchronize(s), "cuStreamSynchronize"))
		return -1;
	if (zero)
		memset(expect, 0, len);
	else
		gen(expect, len, c + (p->b->seed << 40));
	if (memcmp(pinned, expect, len)) {
		if (!atomic_exchange(&p->mismatch, 1))
			fprintf(stderr, "cs-bench: verification failed in chunk %llu (offset %llu)\n",
				(unsigned long long)c, (unsigned long long)off);
		return -1;
	}
	return 0;
}

static void *pass_worker(void *arg)
{
	struct pass *p = arg;
	const struct cs_cuda_ops *ops = p->b->ops;
	uint64_t c, n = (p->size + p->b->chunk - 1) / p->b->chunk;
	void *pinned = NULL, *expect = NULL;
	CUstream s = NULL;

	if (cuda_check(p->b, ops->CtxSetCurrent(p->b->ctx), "cuCtxSetCurrent") ||
	    cuda_check(p->b, ops->StreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
	    cuda_check(p->b, ops->MemHostAlloc(&pinned, p->b->chunk + 8, CU_MEMHOSTALLOC_PORTABLE),
		       "cuMemHostAlloc") ||
	    !(expect = malloc(p->b->chunk + 8))) {
		atomic_store(&p->failed, 1);
		goto out;
	}
	while (!atomic_load(&p->failed) && (c = atomic_fetch_add(&p->next, 1)) < n)
		if (pass_chunk(p, s, pinned, expect, c) && !atomic_load(&p->mismatch))
			atomic_store(&p->failed, 1);
	/* the fill's memsets are queued: done before the pass returns, not whenever the driver
	 * gets to them */
	if (cuda_check(p->b, ops->StreamSynchronize(s), "cuStreamSynchronize"))
		atomic_store(&p->failed, 1);
out:
	free(expect);
	if (pinned)
		ops->MemFreeHost(pinned);
	if (s)
		ops->StreamDestroy(s);
	return NULL;
}

static int run_pass(struct pass *p)
{
	pthread_t tids[FILL_THREADS_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned i, n = cpus > 0 && cpus < FILL_THREADS_MAX ? (unsigned)cpus : FILL_THREADS_MAX;

	for (i = 0; i < n; i++)
		if (pthread_create(&tids[i], NULL, pass_worker, p))
			break;
	if (!i)
		return -1;
	n = i;
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	return atomic_load(&p->failed) ? -1 : 0;
}

int bench_fill(const struct bench *b, CUdeviceptr dev, uint64_t size, enum bench_kind kind)
{
	struct pass p = { .b = b, .dev = dev, .size = size, .kind = kind };

	return run_pass(&p);
}

int bench_verify(const struct bench *b, CUdeviceptr dev, uint64_t size, enum bench_kind kind, bool *same)
{
	struct pass p = { .b = b, .dev = dev, .size = size, .kind = kind, .verify = true };
	int ret = run_pass(&p);

	*same = !ret && !atomic_load(&p.mismatch);
	return atomic_load(&p.mismatch) ? 0 : ret;
}

/*
 * cuMemsetD8 of device memory returns before the memset is done, queued on the legacy stream,
 * which the engine's non-blocking streams do not wait for: without the context synchronised
 * here, the memset could land after the restore's first copies and fail the verification (a
 * --procs row whose restore begins at once; docs/results/performance-log.md, "Small copies end
 * together").
 */
int bench_scramble(const struct bench *b, CUdeviceptr dev, uint64_t size)
{
	if (cuda_check(b, b->ops->MemsetD8(dev, 0x5a, size), "cuMemsetD8"))
		return -1;
	return cuda_check(b, b->ops->CtxSynchronize(), "cuCtxSynchronize");
}

/* ---- raw pinned PCIe ---- */

int bench_pcie(const struct bench *b, CUdeviceptr dev, uint64_t size, bool d2h, double *gbps)
{
	const struct cs_cuda_ops *ops = b->ops;
	unsigned i, n = b->threads < 2 ? 2 : b->threads;
	uint64_t off, len, total = size < PCIE_BYTES_MAX ? size : PCIE_BYTES_MAX;
	CUstream s[32] = { 0 };
	void *buf[32] = { 0 };
	double t0;
	int ret = -1;

	if (n > 32)
		n = 32;
	for (i = 0; i < n; i++)
		if (cuda_check(b, ops->StreamCreate(&s[i], CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
		    cuda_check(b, ops->MemHostAlloc(&buf[i], PCIE_COPY, CU_MEMHOSTALLOC_PORTABLE),
			       "cuMemHostAlloc"))
			goto out;
	for (int round = 0; round < 2; round++) { /* round 0 warms up */
		uint64_t bytes = round ? total : (total < n * PCIE_COPY ? total : n * PCIE_COPY);

		t0 = cs_now();
		for (off = 0, i = 0; off < bytes; off += len, i = (i + 1) % n) {
			len = bytes - off < PCIE_COPY ? bytes - off : PCIE_COPY;
			if (cuda_check(b,
				       d2h ? ops->MemcpyDtoHAsync(buf[i], dev + off, len, s[i])
					   : ops->MemcpyHtoDAsync(dev + off, buf[i], len, s[i]),
				       d2h ? "cuMemcpyDtoHAsync" : "cuMemcpyHtoDAsync"))
				goto out;
		}
		for (i = 0; i < n; i++)
			if (cuda_check(b, ops->StreamSynchronize(s[i]), "cuStreamSynchronize"))
				goto out;
		*gbps = (double)bytes / (cs_now() - t0) / 1e9;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		if (buf[i])
			ops->MemFreeHost(buf[i]);
		if (s[i])
			ops->StreamDestroy(s[i]);
	}
	return ret;
}

/* ---- naive baseline ---- */

static int naive_dump(const struct bench *b, CUdeviceptr dev, uint64_t size, void *buf, double *gbps)
{
	uint64_t off, len;
	double t0 = cs_now();
	bool direct;
	int fd = bench_open(b, NAIVE_NAME, true, &direct);

	if (fd < 0)
		return -1;
	for (off = 0; off < size; off += len) {
		len = size - off < b->chunk ? size - off : b->chunk;
		if (cuda_check(b, b->ops->MemcpyDtoH(buf, dev + off, len), "cuMemcpyDtoH"))
			goto err;
		if (pwrite(fd, buf, direct ? (len + 4095) & ~4095ull : len, (off_t)off) < 0) {
			fprintf(stderr, "cs-bench: naive write: %s\n", strerror(errno));
			goto err;
		}
	}
	if (fdatasync(fd))
		goto err;
	*gbps = (double)size / (cs_now() - t0) / 1e9;
	close(fd);
	return 0;
err:
	close(fd);
	return -1;
}

static int naive_restore(const struct bench *b, CUdeviceptr dev, uint64_t size, void *buf, double *gbps)
{
	uint64_t off, len;
	double t0 = cs_now();
	bool direct;
	int fd = bench_open(b, NAIVE_NAME, false, &direct);

	if (fd < 0)
		return -1;
	for (off = 0; off < size; off += len) {
		len = size - off < b->chunk ? size - off : b->chunk;
		if (pread(fd, buf, direct ? (len + 4095) & ~4095ull : len, (off_t)off) < (ssize_t)len) {
			fprintf(stderr, "cs-bench: naive read: %s\n", strerror(errno));
			goto err;
		}
		if (cuda_check(b, b->ops->MemcpyHtoD(dev + off, buf, len), "cuMemcpyHtoD"))
			goto err;
	}
	*gbps = (double)size / (cs_now() - t0) / 1e9;
	close(fd);
	return 0;
err:
	close(fd);
	return -1;
}

int bench_naive(const struct bench *b, CUdeviceptr dev, uint64_t size, bool drop, double *dump_gbps,
		double *restore_gbps)
{
	void *buf = NULL;
	int ret;

	if (cuda_check(b, b->ops->MemHostAlloc(&buf, b->chunk, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc"))
		return -1;
	ret = naive_dump(b, dev, size, buf, dump_gbps);
	if (!ret && drop)
		bench_drop_caches();
	if (!ret)
		ret = naive_restore(b, dev, size, buf, restore_gbps);
	unlinkat(b->dirfd, NAIVE_NAME, 0);
	b->ops->MemFreeHost(buf);
	return ret;
}
