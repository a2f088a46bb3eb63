/* SPDX-License-Identifier: MIT */
/*
 * criu_run.h - CRIU's run id: the random UUID, in text, that every criu run draws (criu_run_id,
 * criu/util.c) and that a dump records in its inventory.img (dump_criu_run_id, field 13); a
 * restoring criu reads it back into dump_criu_run_id before it initialises its plugins. A dump's
 * cudastore-index.img records the run of its criu (format 1.3), so that a restore and cudastore
 * verify find whether the cudastore images and CRIU's images beside them are of one dump
 * (docs/image-format.md, "Which files belong to a dump").
 *
 * A run id cudastore records, sends or compares is 1 to CS_CRIU_RUN_MAX characters of
 * [0-9A-Za-z-] (CRIU's is a UUID in lower-case hex); anything else counts as no run id.
 */
#ifndef CUDASTORE_CRIU_RUN_H
#define CUDASTORE_CRIU_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "imglimits.h"

/* the len bytes at s are a run id cudastore may record (no NUL among them) */
static inline bool cs_criu_run_ok(const char *s, size_t len)
{
	size_t i;

	if (!s || !len || len > CS_CRIU_RUN_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
			return false;
	}
	return true;
}

#endif /* CUDASTORE_CRIU_RUN_H */
