// SPDX-License-Identifier: MIT
/*
 * bench-hash.c - cs-bench --hash: chunk ids (images/chunk_id.h) computed on the GPU
 * (engine/gpu_hash.h) over SIZE bytes of device memory, beside the two rates they are judged
 * against, both measured in the same run: the GPU's device-to-device copy (the memory bandwidth
 * it has: a copy reads and writes each byte, hashing reads it once) and the CPU's cs_chunk_id of
 * the same bytes (one thread, then every CPU). The ids are checked: every chunk the CPUs hashed,
 * and a sample spread over the rest (the last, short chunk included), each against cs_chunk_id
 * of its bytes copied to the host. A difference fails the run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "chunk_id.h"
#include "gpu_hash.h"

#define HASH_RUNS	3
#define COPY_MAX	(4ull << 30)   /* device copy: halves of at most this */
#define CPU1_BYTES	(512ull << 20) /* one CPU thread hashes this much */
#define SAMPLE_CHUNKS	32
#define CPU_THREADS_MAX 256

static int cuda_ok(const struct bench *b, CUresult res, const char *call)
{
	if (res == CUDA_SUCCESS)
		return 0;
	fprintf(stderr, "cs-bench: %s failed: %s\n", call, cs_cuda_errname(b->ops, res));
	return -1;
}

/* the best of HASH_RUNS device-to-device copies of half of the first 2 * COPY_MAX bytes */
static int device_copy(const struct bench *b, CUdeviceptr dev, uint64_t size, double *rate)
{
	uint64_t half = size / 2 < COPY_MAX ? size / 2 : COPY_MAX;

	*rate = 0;
	for (int r = 0; r < HASH_RUNS && half; r++) {
		double t0 = cs_now();

		if (cuda_ok(b, b->ops->MemcpyDtoD(dev + half, dev, half), "cuMemcpyDtoD") ||
		    cuda_ok(b, b->ops->CtxSynchronize(), "cuCtxSynchronize"))
			return -1;
		if (bench_gbps(half, cs_now() - t0) > *rate)
			*rate = bench_gbps(half, cs_now() - t0);
	}
	return 0;
}

/* the kernels loaded (the PTX JIT-compiled by the driver), timed. 0 or -1. */
static int hasher_open(const struct bench *b, struct eng_gpu_hasher **h)
{
	double t0 = cs_now();
	int ret = eng_gpu_hasher_open(b->ops, h);

	if (ret) {
		fprintf(stderr, "cs-bench: the GPU hasher cannot run here (%s): %s\n", b->ops->path,
			strerror(-ret));
		return -1;
	}
	printf("# gpu hash: kernels loaded (PTX JIT-compiled) in %.3f s\n", cs_now() - t0);
	return 0;
}

/* the best of HASH_RUNS eng_gpu_hash calls over the whole size */
static int gpu_hash(const struct bench *b, struct eng_gpu_hasher *h, CUdeviceptr dev, uint64_t size,
		    uint8_t *ids, double *rate)
{
	double t0;
	int ret = 0;

	*rate = 0;
	for (int r = 0; r < HASH_RUNS; r++) {
		t0 = cs_now();
		ret = eng_gpu_hash(h, dev, size, b->chunk, ids);
		if (ret) {
			fprintf(stderr, "cs-bench: eng_gpu_hash of %llu bytes failed: %s\n",
				(unsigned long long)size, strerror(-ret));
			break;
		}
		printf("# gpu hash run %d: %.3f s, %.1f GB/s\n", r + 1, cs_now() - t0,
		       bench_gbps(size, cs_now() - t0));
		if (bench_gbps(size, cs_now() - t0) > *rate)
			*rate = bench_gbps(size, cs_now() - t0);
	}
	return ret ? -1 : 0;
}

struct cpu_pass {
	const uint8_t *buf;
	uint64_t len, chunk;
	uint8_t *ids;
	atomic_uint_fast64_t next;
	atomic_int failed;
};

static void *cpu_worker(void *arg)
{
	struct cpu_pass *p = arg;
	uint64_t n = (p->len + p->chunk - 1) / p->chunk, c;

	while ((c = atomic_fetch_add(&p->next, 1)) < n) {
		uint64_t off = c * p->chunk, len = p->len - off < p->chunk ? p->len - off : p->chunk;

		if (cs_chunk_id(p->buf + off, len, p->ids + CS_CHUNK_ID_LEN * c))
			atomic_store(&p->failed, 1);
	}
	return NULL;
}

/* cs_chunk_id of every chunk of len bytes at buf with nthreads threads: GB/s, or -1 */
static double cpu_hash(const uint8_t *buf, uint64_t len, uint64_t chunk, unsigned nthreads, uint8_t *ids)
{
	struct cpu_pass p = { .buf = buf, .len = len, .chunk = chunk, .ids = ids };
	pthread_t tids[CPU_THREADS_MAX];
	unsigned started = 0;
	double t0 = cs_now();

	atomic_init(&p.next, 0);
	atomic_init(&p.failed, 0);
	while (started < nthreads && !pthread_create(&tids[started], NULL, cpu_worker, &p))
		started++;
	if (!started)
		cpu_worker(&p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	return atomic_load(&p.failed) ? -1 : bench_gbps(len, cs_now() - t0);
}

static unsigned cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > CPU_THREADS_MAX ? CPU_THREADS_MAX : (unsigned)n;
}

/* chunk c's id from its bytes copied to the host, against the GPU's; 1 same, 0 not, -1 error */
static int sample_one(const struct bench *b, CUdeviceptr dev, uint64_t size, uint64_t c, const uint8_t *ids,
		      uint8_t *buf)
{
	uint64_t off = c * b->chunk, len = size - off < b->chunk ? size - off : b->chunk;
	uint8_t id[CS_CHUNK_ID_LEN];
	char hex[2][2 * CS_CHUNK_ID_LEN + 1];

	if (cuda_ok(b, b->ops->MemcpyDtoH(buf, dev + off, len), "cuMemcpyDtoH") || cs_chunk_id(buf, len, id))
		return -1;
	if (!memcmp(id, ids + CS_CHUNK_ID_LEN * c, CS_CHUNK_ID_LEN))
		return 1;
	cs_chunk_id_hex(id, hex[0]);
	cs_chunk_id_hex(ids + CS_CHUNK_ID_LEN * c, hex[1]);
	fprintf(stderr, "cs-bench: chunk %llu (offset %llu): the GPU's id %s, the CPU's %s\n",
		(unsigned long long)c, (unsigned long long)off, hex[1], hex[0]);
	return 0;
}

/* the CPU rates over the first bytes (all their ids checked), then the sample. *same, or -1 */
static int cpu_side(const struct bench *b, CUdeviceptr dev, uint64_t size, uint64_t cpu_bytes,
		    const uint8_t *ids, double *one, double *all, bool *same)
{
	uint64_t nbytes = size < cpu_bytes ? size : cpu_bytes, n = (size + b->chunk - 1) / b->chunk;
	uint64_t ncpu = (nbytes + b->chunk - 1) / b->chunk, checked = 0, last = ncpu - 1;
	uint8_t *buf = malloc(nbytes > b->chunk ? nbytes : b->chunk),
		*cpu_ids = malloc(CS_CHUNK_ID_LEN * ncpu);
	int ret = -1;

	*same = true;
	if (!buf || !cpu_ids) {
		fprintf(stderr, "cs-bench: no host memory for %llu bytes\n", (unsigned long long)nbytes);
		goto out;
	}
	if (cuda_ok(b, b->ops->MemcpyDtoH(buf, dev, nbytes), "cuMemcpyDtoH"))
		goto out;
	*one = cpu_hash(buf, nbytes < CPU1_BYTES ? nbytes : CPU1_BYTES, b->chunk, 1, cpu_ids);
	*all = cpu_hash(buf, nbytes, b->chunk, cpus(), cpu_ids);
	if (*one < 0 || *all < 0)
		goto out;
	for (uint64_t c = 0; c < ncpu; c++, checked++)
		if (memcmp(cpu_ids + CS_CHUNK_ID_LEN * c, ids + CS_CHUNK_ID_LEN * c, CS_CHUNK_ID_LEN)) {
			fprintf(stderr, "cs-bench: chunk %llu: the GPU's id is not the CPU's\n",
				(unsigned long long)c);
			*same = false;
		}
	/* a sample of the chunks after those: spread evenly, the last one included */
	for (uint64_t k = 1; ncpu < n && k <= SAMPLE_CHUNKS; k++) {
		uint64_t c = ncpu + (n - ncpu) * k / SAMPLE_CHUNKS - 1;
		int r;

		if (c == last) /* fewer chunks left than the sample: each once */
			continue;
		r = sample_one(b, dev, size, c, ids, buf);
		if (r < 0)
			goto out;
		*same = *same && r;
		last = c;
		checked++;
	}
	printf("# ids checked against cs_chunk_id on the host: %llu of %llu chunks (the first %llu, and %llu "
	       "spread over the rest)\n",
	       (unsigned long long)checked, (unsigned long long)n, (unsigned long long)ncpu,
	       (unsigned long long)(checked - ncpu));
	ret = 0;
out:
	free(buf);
	free(cpu_ids);
	return ret;
}

int bench_hash(const struct bench *b, uint64_t size, uint64_t cpu_bytes)
{
	uint64_t n = (size + b->chunk - 1) / b->chunk;
	double copy = 0, gpu = 0, one = 0, all = 0;
	uint8_t *ids = malloc(CS_CHUNK_ID_LEN * n);
	struct eng_gpu_hasher *h = NULL;
	CUdeviceptr dev = 0;
	bool same = false;
	int ret = -1;

	if (!ids || hasher_open(b, &h) || cuda_ok(b, b->ops->MemAlloc(&dev, size), "cuMemAlloc"))
		goto out;
	printf("# hash %llu bytes in %u-byte chunks (%llu ids), %u CPUs\n", (unsigned long long)size,
	       b->chunk, (unsigned long long)n, cpus());
	if (device_copy(b, dev, size, &copy) || bench_fill(b, dev, size, BENCH_DENSE) ||
	    gpu_hash(b, h, dev, size, ids, &gpu) || cpu_side(b, dev, size, cpu_bytes, ids, &one, &all, &same))
		goto out;
	printf("# device copy: %.1f GB/s copied (%.1f GB/s of memory traffic); CPU: %.2f GB/s on 1 thread, "
	       "%.2f GB/s on %u\n",
	       copy, 2 * copy, one, all, cpus());
	printf("gpu hash: %.1f GB/s (device copy %.1f GB/s, CPU %.1f GB/s); ids match the CPU's: %s\n", gpu,
	       copy, all, same ? "yes" : "NO");
	ret = same ? 0 : -1;
out:
	if (dev)
		b->ops->MemFree(dev);
	eng_gpu_hasher_close(h);
	free(ids);
	return ret;
}
