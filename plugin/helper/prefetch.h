/* SPDX-License-Identifier: MIT */
/*
 * prefetch.h - the helper's restore prefetch: read and verify the images' extents while CRIU
 * is still restoring memory and files (criu's POST_FORKING, CRIU >= 4.2; docs/design.md,
 * "Restore that overlaps CRIU").
 *
 * cs_prefetch_begin() returns at once: a background thread finds the manifests of the restore's
 * image set (imgset.h) in the images directory, validates them like a restore does, and starts
 * the engine's prefetch (engine_prefetch.c) over their extents. cs_prefetch_take() (at the
 * first RESTORE) waits for that thread, stops the prefetch and hands it to the engine; nothing
 * it did or failed to do can change what a restore writes to the GPU. One prefetch per helper.
 */
#ifndef CUDASTORE_PREFETCH_H
#define CUDASTORE_PREFETCH_H

#include <pthread.h>
#include <stdbool.h>

#include "engine.h"
#include "options.h"

struct cs_imgset;

/* One helper's prefetch (the restore session holds it; zero: none started). */
struct cs_prefetcher {
	pthread_t tid;
	bool started;
	bool scanning;		     /* tid not joined yet */
	int dirfd;		     /* -1 (or 0 before the first begin): none */
	const struct cs_imgset *set; /* loaded before the scanner starts, only read */
	unsigned threads;
	uint64_t max_bytes;
	struct cs_prefetch *pf;
};

/*
 * Start over the images in dirfd (taken over: closed when done) whose set is loaded
 * (cs_imgset_load); the thread only reads set, which must outlive cs_prefetch_end(). 0 or -errno
 * (nothing started).
 */
int cs_prefetch_begin(struct cs_prefetcher *st, const struct cs_options *opt, const struct cs_imgset *set,
		      int dirfd);
/* The settled prefetch, or NULL when none was started or it found nothing. */
struct cs_prefetch *cs_prefetch_take(struct cs_prefetcher *st);
/* Free everything (helper exit). */
void cs_prefetch_end(struct cs_prefetcher *st);

#endif /* CUDASTORE_PREFETCH_H */
