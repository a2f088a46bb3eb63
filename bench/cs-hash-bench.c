// SPDX-License-Identifier: MIT
/*
 * cs-hash-bench: how fast the engine checks chunks on this CPU. Per thread, hashes a chunk-sized
 * buffer over and over with XXH3-64 as built for baseline x86-64 (SSE2) and for AVX2 (what
 * eng_hash() picks where the CPU has it), and times a plain read of the same buffers (memchr
 * for a byte that is not there) as the limit: a hash cannot beat reading its input.
 *
 *   cs-hash-bench [--threads N] [--chunk SIZE_MIB] [--total GIB_PER_THREAD]
 * Prints one line per method: GB/s over all threads, and the ratio to the read limit.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

enum method { READ, SSE2, AVX2, NMETHODS };
static const char *const names[] = { "read (limit)", "XXH3 SSE2", "XXH3 AVX2 (eng_hash)" };

struct arg {
	enum method m;
	size_t chunk;
	unsigned rounds;
	uint64_t sink;
};

static void *worker(void *p)
{
	struct arg *a = p;
	unsigned char *buf = malloc(a->chunk);

	if (!buf)
		return NULL;
	for (size_t i = 0; i < a->chunk; i++)
		buf[i] = (unsigned char)(i * 131 + 7) | 1; /* never zero: memchr reads it all */
	for (unsigned r = 0; r < a->rounds; r++) {
		if (a->m == READ)
			a->sink += memchr(buf, 0, a->chunk) != NULL;
		else if (a->m == SSE2)
			a->sink += eng_hash_sse2(buf, a->chunk);
#if defined(__x86_64__) && defined(__GNUC__)
		else
			a->sink += eng_hash_avx2(buf, a->chunk);
#endif
	}
	free(buf);
	return NULL;
}

static double run(enum method m, unsigned threads, size_t chunk, unsigned rounds)
{
	struct arg a[64];
	pthread_t t[64];
	double t0 = cs_now();
	unsigned i;

	for (i = 0; i < threads; i++) {
		a[i] = (struct arg){ .m = m, .chunk = chunk, .rounds = rounds };
		pthread_create(&t[i], NULL, worker, &a[i]);
	}
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return (double)chunk * rounds * threads / (cs_now() - t0) / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "threads", 1, 0, 't' }, { "chunk", 1, 0, 'c' }, { "total", 1, 0, 'n' }, { 0, 0, 0, 0 }
	};
	unsigned threads = 1, chunk_mib = 16, total_gib = 4, rounds;
	double gbps[NMETHODS] = { 0 };
	int o;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (o == 't')
			threads = (unsigned)atoi(optarg);
		else if (o == 'c')
			chunk_mib = (unsigned)atoi(optarg);
		else if (o == 'n')
			total_gib = (unsigned)atoi(optarg);
		else
			return 2;
	}
	if (!threads || threads > 64 || !chunk_mib || !total_gib) {
		fprintf(stderr, "usage: cs-hash-bench [--threads 1..64] [--chunk MiB] [--total GiB]\n");
		return 2;
	}
	rounds = (unsigned)(((uint64_t)total_gib << 10) / chunk_mib);
	printf("# cs-hash-bench: %u threads, %u MiB chunk, %u GiB per thread, AVX2 %s\n", threads, chunk_mib,
	       total_gib, __builtin_cpu_supports("avx2") ? "yes" : "no");
	for (int m = 0; m < NMETHODS; m++) {
		if (m == AVX2 && !__builtin_cpu_supports("avx2"))
			continue;
		gbps[m] = run((enum method)m, threads, (size_t)chunk_mib << 20, rounds);
		printf("%-22s %8.2f GB/s  %5.2f of the read limit\n", names[m], gbps[m],
		       gbps[READ] > 0 ? gbps[m] / gbps[READ] : 0);
	}
	return 0;
}
