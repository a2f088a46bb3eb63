/* SPDX-License-Identifier: MIT */
/*
 * restore.h - put a process's GPU memory back (RESUME_DEVICES_LATE, and dump rollback).
 *
 * The manifest and every extent are read and validated before the driver is asked to do
 * anything; then the driver maps fresh GPU memory, the engine copies the extents in while
 * verifying every chunk's checksum, and only if everything matched is the operation
 * completed. CRIU ignores this hook's errors and would resume the process with wrong GPU
 * memory, so on any failure (invalid images included: CRIU would resume a process whose GPU
 * memory was never restored) cs_restore_process() kills it and says why. The images are never modified, so a
 * retry with good images works.
 */
#ifndef CUDASTORE_RESTORE_H
#define CUDASTORE_RESTORE_H

#include "context.h"
#include "phase_timer.h"

/* Host copy of a process's GPU memory, kept when writing the extents failed during dump. */
struct cs_rescue {
	unsigned n;
	struct {
		CUuuid uuid;
		void *mem;
		uint64_t size;
	} r[CS_MAX_DEVICES];
};
void cs_rescue_free(struct cs_rescue *rs);

/*
 * CustomStorage restore of pid, whose restore thread must be running: from the extents
 * named in m, or from rs when rs is not NULL, onto the GPUs the restore's placement names
 * (use_map; restore_place.h) or the GPUs it came from. Leaves the process LOCKED on success.
 * On failure after the driver mapped memory, *pending holds the operation: the caller must
 * make sure the target never runs (kill it) before completing it.
 */
int cs_restore_custom(struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m, int dirfd,
		      const struct cs_rescue *rs, bool use_map, struct cs_phase_timer *st,
		      CUcheckpointOperationHandle *pending);
/* Driver-managed restore (restore thread running); leaves the process LOCKED. m: its manifest,
 * to place its GPUs (restore_place.h), or NULL: onto the GPUs it came from (a dump's rollback). */
int cs_restore_driver(struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m);

/* Unlock pid (its restore thread running) and check it is RUNNING; 0 or -EPROTO (logged). */
int cs_restore_unlock(struct cs_ctx *ctx, pid_t pid);

/* RESUME_DEVICES_LATE for pid: -ENOTSUP if the pid has no cudastore images. */
int cs_restore_process(struct cs_ctx *ctx, pid_t pid, int dirfd);

#endif /* CUDASTORE_RESTORE_H */
