/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the protocol between the plugin inside criu and cudastore-helper.
 *
 * criu's process never runs driver code (libcuda starts threads, and a threaded criu cannot
 * setns() into a container's mount namespace). The plugin starts cudastore-helper at init and
 * forwards each hook to it over a SOCK_SEQPACKET socketpair: one message per datagram, the
 * images-directory fd attached (SCM_RIGHTS) where the request needs it.
 *
 *   criu -> helper   INIT, PAUSE, CHECKPOINT, PREFETCH, RESTORE, FINISH, RECOVER, BYE
 *   helper -> criu   LOG, PROGRESS (no answer), RT_RUN / RT_STOP (criu answers RT_DONE), DONE
 *
 * A request is answered by exactly one DONE; before it the helper may send any number of LOG
 * lines, PROGRESS reports and RT_RUN/RT_STOP calls, which criu serves while it waits (only criu,
 * the tracer, can let the target's driver thread run). criu's wait for the answer is bounded by
 * the time without progress (op_timeout_s): each PROGRESS, RT_RUN and RT_STOP starts it over, so
 * a slow request that keeps moving is never cut off and a stuck one is (helper_link.h).
 * docs/design.md, "Two processes", has the full table.
 */
#ifndef CUDASTORE_WIRE_H
#define CUDASTORE_WIRE_H

#include <stdint.h>
#include <sys/types.h>

#define CS_WIRE_MAGIC	0x63737733u /* "csw3": bumped whenever the layout or the types change */
#define CS_WIRE_DATA	8192
#define CS_HELPER_FD	3 /* the helper's end of the socketpair, after exec */
/*
 * Until the helper's main() runs, its stderr is a pipe criu reads when the helper does not start
 * (the loader's "cannot open shared object file" goes there); criu's own stderr waits on this fd,
 * which main() puts back on 2 first thing.
 */
#define CS_HELPER_STDERR_FD 4

enum cs_wire_type {
	CS_W_INIT = 1,	 /* criu's pid in pid, stage in arg, struct cs_options in data, then a CRIU run
			  * id of 0 to CS_CRIU_RUN_MAX characters without NUL (criu_run.h; dump: this
			  * criu's, restore: the one its inventory names; none: not known); a dump's
			  * images dir attached */
	CS_W_PAUSE,	 /* pid; ms left by criu's --timeout alarm in arg (0: none); images dir attached */
	CS_W_CHECKPOINT, /* pid; images dir attached; the first one checkpoints every process */
	CS_W_RESTORE,	 /* pid; images dir attached; the first one restores every process */
	CS_W_FINISH,	 /* dump result in ret, leave-running in arg (1 yes, 0 no, CS_FINISH_WATCH);
			  * images dir attached if open */
	CS_W_BYE,	 /* criu is done with the helper: exit without any guardian action */
	CS_W_LOG,	 /* level in arg, text in data */
	CS_W_RT_RUN,	 /* tid in arg */
	CS_W_RT_STOP,	 /* tid in arg */
	CS_W_RT_DONE,	 /* result in ret */
	CS_W_DONE,	 /* result in ret, CS_WF_* in flags */
	CS_W_PREFETCH,	 /* restore, criu's POST_FORKING: start reading the extents; images dir attached;
			  * answered at once (the helper reads in background threads) */
	CS_W_RECOVER,	 /* to a fresh helper after the dump's helper died: pid back to running (pid 0:
			  * the end; CS_RECOVER_* in arg); images dir attached (recover.h) */
	CS_W_PROGRESS,	 /* the request in flight moved since the last report (progress.h): bytes
			  * copied, a driver call answered, the target's driver thread at work */
	CS_W_RECOVERED,	 /* RECOVER pid 0 with CS_RECOVER_GATHER: pid's fate is decided (ret: 0 back
			  * to running, else -errno: ended), before the request's DONE */
};

/* RECOVER's arg */
#define CS_RECOVER_KEEP 1u /* the dump had succeeded (--leave-running): keep its images */
#define CS_RECOVER_GATHER 2u /* pid > 0: noted, answered at once; pid 0: every noted process
			      * recovered at once, then the end as without it (recover.h) */

/*
 * FINISH's arg when criu's options do not tell whether criu leaves the tree running: after a
 * successful dump the helper keeps the processes checkpointed, closes its end at BYE and watches
 * what criu does to them (killed, stopped, or let run: then it resumes their GPU state).
 */
#define CS_FINISH_WATCH 2

/* flags */
#define CS_WF_DISABLED	    (1u << 1) /* DONE(INIT): no usable driver, every hook says "not mine" */
#define CS_WF_INVENTORY	    (1u << 2) /* DONE(PAUSE): record the plugin in CRIU's inventory */

struct cs_wire_msg {
	uint32_t magic;
	uint32_t type;
	int32_t pid;
	int32_t arg;
	int32_t ret;
	uint32_t flags;
	uint32_t len;		     /* bytes used in data, at most CS_WIRE_DATA */
	char data[CS_WIRE_DATA + 1]; /* one more: a received message's data is always terminated */
};

/* Send m (header plus m->len bytes of data) with fd attached when fd >= 0. 0 or -errno. */
int cs_wire_send(int sock, struct cs_wire_msg *m, int fd);
/* One datagram of len bytes as they are, fd attached when fd >= 0: what cs_wire_send sends once
 * it framed m (tests send malformed messages with it). 0 or -errno. */
int cs_wire_send_bytes(int sock, const void *buf, size_t len, int fd);
/* Shorthand for a message without data. */
int cs_wire_send_simple(int sock, uint32_t type, int32_t pid, int32_t arg, int32_t ret, uint32_t flags,
			int fd);
/*
 * Receive one message. *fd gets an attached fd or -1 (fd may be NULL: any attached fd is closed).
 * 0 or -errno; -EPIPE when the peer is gone, -EPROTO for a malformed message. On 0, m->data holds
 * m->len bytes followed by a NUL (text may still hold NULs of its own: print m->len bytes).
 */
int cs_wire_recv(int sock, struct cs_wire_msg *m, int *fd);
const char *cs_wire_type_name(uint32_t type);

#endif /* CUDASTORE_WIRE_H */
