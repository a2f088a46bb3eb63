/* SPDX-License-Identifier: MIT */
/*
 * unit.h - helpers shared by the manifest and images-directory unit tests: scratch
 * directories, a valid sample manifest, and an independent re-implementation of the frame
 * (docs/image-format.md) so tests can craft payloads the product encoder would never write.
 */
#ifndef CUDASTORE_TESTS_UNIT_H
#define CUDASTORE_TESTS_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudastore.pb-c.h"
#include "manifest.h"

/* mkdtemp under $TMPDIR (or /tmp); returns an O_DIRECTORY fd, bails out on failure. */
int unit_tmpdir(char *path, size_t pathlen);
/* Remove path and everything under it (no link is followed). */
void unit_rmtree(const char *path);

/* A valid custom-mode manifest with ndev (1..4) devices of varied sizes and zero chunks. */
void unit_sample(struct cs_manifest *m, unsigned ndev);
/* Recompute dev->stored_bytes and the manifest totals from the chunk tables. */
void unit_fix_totals(struct cs_manifest *m);

/* A protobuf message built by the test from a struct cs_manifest (pointing into it), so cases
 * can set any field to any value; nothing in it is owned by protobuf-c. */
struct unit_pb {
	CsManifest pm;
	CsDevice pd[CS_MAX_DEVICES + 1];
	CsDevice *pdp[CS_MAX_DEVICES + 1];
	uint8_t bits[CS_MAX_DEVICES + 1][256];
};
void unit_pb_build(struct unit_pb *p, struct cs_manifest *m);

/* Frame a protobuf message: "CSMF" | le32 length | le64 XXH3-64 | payload. 0 or -errno. */
int unit_frame(const CsManifest *pm, void **buf, size_t *len);
/* Re-hash a framed buffer after its payload was edited in place. */
void unit_rehash(void *buf, size_t len);
/* Unpack the payload of a framed buffer (no checks); free with cs_manifest__free_unpacked. */
CsManifest *unit_unpack(const void *buf, size_t len);

/* Field-by-field comparison; on a difference, names it in why and returns false. */
bool unit_manifest_equal(const struct cs_manifest *a, const struct cs_manifest *b, char *why, size_t n);
/* What every successful decode promises (manifest.h); names the broken one in why. */
bool unit_manifest_invariants(const struct cs_manifest *m, char *why, size_t n);

#endif /* CUDASTORE_TESTS_UNIT_H */
