/* SPDX-License-Identifier: MIT */
/* summary.h - machine-readable JSON summary of one process's dump, next to its manifest */
#ifndef CUDASTORE_SUMMARY_H
#define CUDASTORE_SUMMARY_H

#include "context.h"
#include "stats.h"

/* Writes cudastore-<nspid>.json (0600, atomically). Failure is logged, never fatal. */
void cs_summary_write(int dirfd, const struct cs_proc *p, const struct cs_manifest *m,
		      const struct cs_stats *st);

#endif /* CUDASTORE_SUMMARY_H */
