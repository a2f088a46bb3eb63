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

#include "context.h"
#include "engine.h"

/*
 * Start over the images in dirfd (taken over: closed when done) whose set is loaded
 * (cs_imgset_load); the thread only reads set, which must outlive cs_prefetch_end(). 0 or -errno
 * (nothing started).
 */
int cs_prefetch_begin(const struct cs_options *opt, const struct cs_imgset *set, int dirfd);
/* The settled prefetch, or NULL when none was started or it found nothing. */
struct cs_prefetch *cs_prefetch_take(void);
/* Free everything (helper exit). */
void cs_prefetch_end(void);

#endif /* CUDASTORE_PREFETCH_H */
