/* SPDX-License-Identifier: MIT */
/*
 * context.h - the plugin context: what every stage shares (options, driver tables, devices, the
 * pool, the processes we track), and the session of the stage the helper serves: a dump's
 * (struct cs_dump_session) or a restore's (struct cs_restore_session). A request's own
 * arguments and results (a PAUSE's alarm, whether criu must record us) are passed to and
 * returned by the function that serves it, never kept here.
 *
 * Lives in cudastore-helper, from criu's INIT to its BYE (or to the guardian's end). Requests
 * come one at a time on the main thread. While a batch runs (batch.h) its worker threads each
 * own one struct cs_proc and share the rest: what they change is guarded where it is owned (the
 * GPUs by devices.c, the pool by pool.c) or, the dump's index, by mu. On restore, POST_FORKING starts two
 * threads that run until the first RESTORE, which joins both before it uses the context: the warm-up thread
 * (warmup.h) calls cuInit, retains contexts and makes the pool while the main thread serves no
 * request that touches them; the prefetch scanner (prefetch.h) touches only its own state.
 * Both read the restore's image set, loaded before they start and not changed after (imgset.h).
 * The copy engine's threads never touch the context.
 */
#ifndef CUDASTORE_CONTEXT_H
#define CUDASTORE_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cuda_ops.h"
#include "devices.h"
#include "chunk_parent.h"
#include "chunkstore.h"
#include "imgindex.h"
#include "manifest.h"
#include "options.h"
#include "phase_timer.h"
#include "pool.h"
#include "prefetch.h"

struct cs_placement;

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

/* One GPU's copy by the engine (cs_engine_region's out fields), for the summary */
struct cs_copy_account {
	double seconds;			/* the copy's wall time */
	unsigned threads;		/* 0: no copy of this GPU by the engine */
	double io_seconds, gpu_wait_seconds; /* its threads' time, summed: files and checks; GPU waits */
};

#define CS_COPY_UNKNOWN UINT64_MAX

/* A process in the batch that runs its GPU phase (batch.h): set by the batch and its caller. */
struct cs_proc_batch {
	/* before: the bytes its copy by the engine will move (0: none; CS_COPY_UNKNOWN: a copy of
	 * unknown size): a dump's GPU memory, a restore's stored bytes plus its all-zero ones at
	 * 1/32 (restore.c); the batch then sets its part of the shared budget (engine opts.part)
	 * and how many copies share it (engine opts.sharers; 0 outside a batch) */
	uint64_t copy_bytes;
	unsigned copy_part;
	unsigned sharers;
	/* after */
	bool done;	       /* the batch ran it: result is its hook's answer */
	int result;	       /* 0 or -errno */
	double t_begin, t_end; /* cs_now() */
	uint64_t bytes;	       /* GPU memory it moved */
};

/* What a dump (and a recovery after its helper died) knows of a process; a restore none of it. */
struct cs_proc_dump {
	CUprocessState initial_state; /* as found in PAUSE */
	enum cs_proc_phase phase;
	bool checkpoint_called; /* the driver checkpoint call was made */
	bool extents_complete;	/* manifest + extents written and synced */
	bool left;		/* criu killed or stopped it after the dump: nothing to resume (watch.h) */
	bool watched;		/* resumed because criu was seen letting it run (watch.h) */
	const char *why;	/* the rollback failed: what was lost (a static string) */
	struct cs_rescue *rescue;
	unsigned ndev_plan; /* GPUs the process uses, from NVML (0: unknown) */
	CUuuid dev_plan[CS_MAX_DEVICES];
	uint64_t used_plan[CS_MAX_DEVICES];	     /* ... on each of dev_plan[] */
	uint64_t bytes_plan;			     /* GPU memory the process uses, from NVML */
	bool has_visible;			     /* it was started with CUDA_VISIBLE_DEVICES */
	char visible[CS_FACT_VISIBLE_MAX];	     /* ... set to this */
	bool pci_order;				     /* ... and CUDA_DEVICE_ORDER=PCI_BUS_ID */
	struct cs_copy_account copy[CS_MAX_DEVICES]; /* each GPU's copy (CustomStorage) */
};

/* One CUDA process the helper works on: what every stage knows, and each part's own. */
struct cs_proc {
	pid_t pid;
	pid_t ns_pid;
	pid_t restore_tid;
	enum cs_mode mode;	    /* how it was (or is being) checkpointed */
	struct cs_manifest *m;	    /* the dump's (kept for its rollback), or the restore's validated one */
	struct cs_phase_timer st;   /* its phases (dump: for the summary written after the batch) */
	struct cs_proc_dump dump;   /* a dump's */
	struct cs_proc_batch batch; /* its GPU phase in the batch that runs it */
};

/*
 * An image set (imgset.h): the images' index, read once on the main thread (a restore's at
 * POST_FORKING before the warm-up and prefetch threads start, or at the first RESTORE), then
 * only read by every thread.
 */
struct cs_imgset {
	bool loaded;   /* ix read (or found absent) */
	bool reported; /* an absent or unusable index said once (main thread) */
	bool tie;      /* a restore's: ix is bound to criu_run once read (cs_index_file_bind) */
	char criu_run[CS_CRIU_RUN_MAX + 1]; /* the run CRIU's inventory names (INIT); "" not known */
	struct cs_index_file ix;
};

/* NVML for one dump (dump_plan.c): loaded at the first PAUSE that needs it, released at its end. */
struct cs_dump_nvml {
	bool tried, up;
	struct cs_nvml_ops nv;
};

/* This host as a dump records it (dump_facts.h): probed once, at the first CUDA process's PAUSE. */
struct cs_dump_facts {
	bool probed;
	unsigned ngpu; /* GPUs visible to the helper (every GPU: its environment is clean) */
	struct cs_host_facts host;
	struct cs_gpu_facts gpu[CS_MAX_DEVICES]; /* by ordinal */
};

/* The dump's own state: its image set as it is written (imgset.h) and its admission plan. */
struct cs_dump_session {
	bool batch_ran;		  /* the first CHECKPOINT ran the whole tree's (batch.h) */
	bool imgdir_owned;	  /* stale cudastore files of an earlier dump removed (imgset.h) */
	bool inventory_added;	  /* criu was asked to record us in its inventory */
	bool tree_checked;	  /* the tree's CUDA processes counted (cs_dump_plan_check_tree) */
	struct cs_index index;	  /* this dump's id and the manifests written so far (mu) */
	char criu_run[CS_CRIU_RUN_MAX + 1]; /* this dump's criu run (INIT), for the index; "" none */
	uint64_t planned_bytes;	  /* GPU memory of the processes already admitted to this dump */
	uint64_t claimed_new;	  /* a child's new bytes of the processes checked so far (mu) */
	struct cs_imgset written; /* RECOVER: what the dump whose helper died wrote, read once */
	struct cs_dump_nvml nvml; /* the admission plan's NVML (dump_plan.c) */
	struct cs_dump_facts facts; /* what the manifests record of this host (dump_facts.c) */
	/* a chunked dump (dump_chunks.h): where chunks go, the parent, the store's shared lock */
	bool chunked;
	struct cs_chunk_sink sink;
	struct cs_chunk_parent parent;
	int store_lock;
};

/* The warm-up thread (warmup.h): started at POST_FORKING, joined by the first RESTORE. */
struct cs_warmup {
	bool running; /* started and not joined yet */
	pthread_t tid;
	int dirfd;   /* the images directory, closed by the thread */
	double done; /* cs_now() when the thread ended */
};

/* The restore's own state. */
struct cs_restore_session {
	bool batch_ran;	      /* the first RESTORE ran the whole tree's (batch.h) */
	struct cs_imgset set; /* the manifests these images hold */
	unsigned restored;    /* RESTOREs of processes these images hold (cs_pool_after_restore) */
	struct cs_warmup warmup;
	struct cs_prefetcher prefetch; /* started at POST_FORKING, taken by the first RESTORE */
	pid_t *not_ours; /* processes without GPU state of ours (CPU-only ones) */
	struct cs_placement *place; /* where each checkpointed GPU goes, once decided (restore_place.h) */
	unsigned nnot_ours;
};

struct cs_ctx {
	enum cs_stage stage;
	pid_t criu_pid;	    /* the criu process this helper serves (its tracees are the tree) */
	pthread_mutex_t mu; /* a batch's workers: the dump's index */
	bool disabled;	    /* no libcuda, or nothing for us to do: every hook says -ENOTSUP */
	struct cs_options opt;
	struct cs_cuda_ops cuda;
	bool cuda_loaded;
	struct cs_gpus gpus;		    /* cuInit, the GPUs visible, their retained contexts */
	struct cs_pool pool;		    /* pinned buffers lent to every copy (pool.h) */
	struct cs_dump_session dump;	    /* stage DUMP / PRE_DUMP (and a RECOVER's helper) */
	struct cs_restore_session restore;  /* stage RESTORE */
	unsigned nproc;
	struct cs_proc proc[CS_MAX_PROCS];
};

struct cs_proc *cs_ctx_find(struct cs_ctx *ctx, pid_t pid);
struct cs_proc *cs_ctx_add(struct cs_ctx *ctx, pid_t pid);

#endif /* CUDASTORE_CONTEXT_H */
