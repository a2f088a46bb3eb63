/* SPDX-License-Identifier: MIT */
/*
 * imglimits.h - the limits of the image format, each defined once.
 *
 * A manifest or an index outside them is refused (manifest.h, imgindex.h); the copy engine, the
 * options and the helper's tables are sized by the same constants. A leaf: it includes nothing,
 * so every layer may include it (options.c, below the images, checks options against it).
 */
#ifndef CUDASTORE_IMGLIMITS_H
#define CUDASTORE_IMGLIMITS_H

#define CS_MAX_DEVICES	    64		 /* GPUs of one process */
#define CS_MAX_DEVICE_BYTES (1ull << 42) /* 4 TiB per GPU */
#define CS_MAX_STRIPES	    32		 /* extent files per GPU */
#define CS_CHUNK_MIN	    (64u << 10)	 /* 64 KiB: the smallest chunk (power of two) */
#define CS_CHUNK_MAX	    (1u << 30)	 /* 1 GiB: the largest chunk */
#define CS_MAX_PROCS	    256		 /* GPU processes of one dump: the pids its index lists */
#define CS_CRIU_RUN_MAX	    36		 /* CRIU's run id in the index: RUN_ID_HASH_LENGTH less its NUL */

#endif /* CUDASTORE_IMGLIMITS_H */
