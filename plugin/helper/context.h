/* SPDX-License-Identifier: MIT */
/*
 * context.h - the one plugin context: options, driver tables, and the processes we track.
 *
 * Lives in cudastore-helper, from criu's INIT to its BYE (or to the guardian's end). Requests
 * come one at a time on the main thread. While a batch runs (batch.h) its worker threads each
 * own one struct cs_proc and share the rest: what they change (devices.c's contexts, the pool,
 * the dump's index) is guarded by mu. The warm-up thread (warmup.h) runs only between
 * POST_FORKING and the first RESTORE, which joins it; the copy engine's threads never touch
 * the context.
 */
#ifndef CUDASTORE_CONTEXT_H
#define CUDASTORE_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cudastore/cuda_ops.h"
#include "imgindex.h"
#include "manifest.h"
#include "options.h"
#include "stats.h"

struct cs_pinned_pool;

enum cs_stage { CS_STAGE_DUMP = 0, CS_STAGE_PRE_DUMP = 1, CS_STAGE_RESTORE = 2 };

/* Per-process progress through a dump (docs/design.md, "State machine"). */
enum cs_proc_phase {
	CS_PHASE_FOUND,	       /* CUDA process seen in PAUSE, not locked by us */
	CS_PHASE_LOCKED,       /* we locked it */
	CS_PHASE_CHECKPOINTED, /* its GPU memory is in our extents or the driver's host copy */
	CS_PHASE_FAILED,       /* something went wrong; rollback decides what can be saved */
	CS_PHASE_RESUMED,      /* rolled back: running again with its GPU memory */
};

struct cs_rescue; /* host copy of GPU memory kept when writing extents failed (dump.c) */

struct cs_proc {
	pid_t pid;
	pid_t ns_pid;
	pid_t restore_tid;
	CUprocessState initial_state; /* as found in PAUSE */
	enum cs_proc_phase phase;
	enum cs_mode mode;	/* how it was (or is being) checkpointed */
	bool checkpoint_called; /* the driver checkpoint call was made */
	bool extents_complete;	/* manifest + extents written and synced */
	bool left;		/* criu killed or stopped it after the dump: nothing to resume (watch.h) */
	bool watched;		/* resumed because criu was seen letting it run (watch.h) */
	struct cs_rescue *rescue;
	unsigned ndev_plan;		     /* GPUs the process uses, from NVML (0: unknown) */
	CUuuid dev_plan[CS_MAX_DEVICES];
	uint64_t bytes_plan; /* GPU memory the process uses, from NVML */
	/* its GPU phase in the batch that ran it (batch.h) */
	bool done;	       /* the batch ran it: result is its hook's answer */
	int result;	       /* 0 or -errno */
	double t_begin, t_end; /* cs_now() */
	uint64_t bytes;	       /* GPU memory it moved */
	struct cs_stats st;    /* its phases (dump: for the summary written after the batch) */
	struct cs_manifest *m; /* restore: its validated manifest while the batch runs */
};

struct cs_ctx {
	enum cs_stage stage;
	pid_t criu_pid;	    /* the criu process this helper serves (its tracees are the tree) */
	pthread_mutex_t mu; /* a batch's workers: retained contexts, the pool, the index */
	bool batch_ran;	    /* the first CHECKPOINT / RESTORE ran the whole tree's (batch.h) */
	unsigned sharers;   /* copies running at once in the current batch (engine opts.sharers) */
	bool disabled; /* no libcuda, or nothing for us to do: every hook says -ENOTSUP */
	struct cs_options opt;
	struct cs_cuda_ops cuda;
	bool cuda_loaded;
	bool cuda_inited;		    /* cuInit called in this (helper) process */
	int ndev;			    /* devices visible to us */
	CUcontext retained[CS_MAX_DEVICES]; /* primary contexts we hold, by ordinal */
	bool inventory_added;	/* criu was asked to record us in its inventory */
	bool inventory_pending; /* ask criu to (answer to the current PAUSE) */
	unsigned alarm_cap_ms; /* current PAUSE: ms criu's --timeout alarm leaves the lock (0: none) */
	bool imgdir_owned; /* dump: stale cudastore files of an earlier dump removed (imgset.h) */
	/* dump: this dump's id and the manifests written so far */
	struct cs_index index;
	bool index_loaded;	     /* restore: rindex read (or found absent) */
	struct cs_index_file rindex; /* restore: the images' index */
	uint64_t planned_bytes; /* GPU memory of the processes already admitted to this dump */
	struct cs_pinned_pool *pool; /* pinned buffers lent to every copy (warmup.h), or NULL */
	bool pool_failed;	     /* pinning the pool failed once: do not try again */
	unsigned restored;	     /* restore: RESTOREs of processes these images hold */
	bool warming;		     /* restore: the warm-up thread runs (warmup.h) */
	pthread_t warmup;
	int warmup_dirfd;
	double warmup_done; /* cs_now() when the warm-up thread ended */
	pid_t *not_ours;    /* restore: processes without GPU state of ours (CPU-only ones) */
	unsigned nnot_ours;
	unsigned nproc;
	struct cs_proc proc[CS_MAX_PROCS];
};

struct cs_proc *cs_ctx_find(struct cs_ctx *ctx, pid_t pid);
struct cs_proc *cs_ctx_add(struct cs_ctx *ctx, pid_t pid);

#endif /* CUDASTORE_CONTEXT_H */
