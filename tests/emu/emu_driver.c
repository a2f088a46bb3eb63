// SPDX-License-Identifier: MIT
/*
 * emu_driver.c - the application's driver thread and its checkpoint state machine:
 *
 *   RUNNING -lock-> LOCKED -checkpoint(cs)-> CHECKPOINTING -complete-> CHECKPOINTED
 *   CHECKPOINTED -restore(cs)-> RESTORING -complete-> LOCKED -unlock-> RUNNING
 *   driver-managed: LOCKED -checkpoint-> CHECKPOINTED -restore-> LOCKED
 *
 * The thread is named EMU_DRIVER_COMM so callers find it through /proc without talking to
 * the process (cuCheckpointProcessGetRestoreThreadId). Like the real restore thread it
 * keeps the signal mask of the application thread that started it (cuInit), so a signal the
 * application does not block can be delivered to it. Only this thread changes the state, so
 * a ptrace-stopped driver thread (or one parked in a signal-delivery stop) stalls every
 * request, as the real restore thread does. Device memory changes happen with the process
 * LOCKED.
 *
 * CUDASTORE_EMU_RATE_MBPS models the real driver's own per-process rate: a successful
 * checkpoint or restore request takes at least (the process's device bytes) / rate, the time
 * the driver needs to save or load that memory (driver-managed) or to hand it over or map
 * it fresh (CustomStorage). The thread sleeps until that deadline, burning no CPU, so
 * requests of several processes overlap as they do on the real driver.
 *
 * A process in a container opens only the GPUs whose device node its /dev holds: when the
 * application's /dev holds any GPU node (/dev/nvidia<digits>, char major 195), a restore onto a
 * device whose minor number (CUDASTORE_EMU_MINORS of the caller) none of them has fails with
 * CUDA_ERROR_INVALID_DEVICE, before any memory moves. A /dev without GPU nodes (every test
 * outside a container: the emulator needs no node) opens every device.
 *
 * For tests, every request leaves two probes in the trace (CUDASTORE_EMU_TRACE):
 *   drv:<op>:sigmask  1 if every signal was blocked in this thread while serving it, else 0
 *   drv:<op>:seccomp  the errno of a sched_yield() made while serving it (0: allowed), which a
 *                     workload's seccomp filter (cuda-workload --seccomp-deny-yield) denies
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "emu.h"

static struct {
	int listen_fd;
	CUprocessState state;
	bool custom; /* mode of the checkpoint held now */
	int nplan;   /* CustomStorage restore in flight: target devices in reply order */
	int plan_dev[EMU_MAXDEV];
	struct emu_gpu plan_gpu[EMU_MAXDEV]; /* and the GPUs they go to */
} app = { .listen_fd = -1 };

static bool uuid_eq(const CUuuid *a, const CUuuid *b)
{
	return !memcmp(a->bytes, b->bytes, sizeof(a->bytes));
}

static int caller_index(const struct emu_req *req, const CUuuid *uuid)
{
	for (uint32_t i = 0; i < req->ncaller && i < EMU_MAXDEV; i++)
		if (uuid_eq(&req->caller_gpu[i].uuid, uuid))
			return (int)i;
	return -1;
}

static bool caller_retained(const struct emu_req *req, int idx)
{
	return idx >= 0 && (req->retained & (1u << idx));
}

/* this process's /dev has a GPU node of minor (true), or no GPU node at all (true, any false) */
static bool dev_node_open(unsigned int minor)
{
	bool any = false, hit = false;
	char path[300];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir("/dev");

	if (!d)
		return true;
	while ((e = readdir(d)) && !hit) {
		if (strncmp(e->d_name, "nvidia", 6) || !e->d_name[6] ||
		    strspn(e->d_name + 6, "0123456789") != strlen(e->d_name + 6))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		if (stat(path, &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 195 ||
		    minor(st.st_rdev) >= 254)
			continue;
		any = true;
		hit = minor(st.st_rdev) == minor;
	}
	closedir(d);
	return hit || !any;
}

/* Entries are returned rotated by one: deliberately not in device order (4: order unspecified). */
static void rotate_entries(struct emu_rep *rep, int *fds)
{
	struct emu_rep_dev first = rep->dev[0];
	int fd0 = fds ? fds[0] : -1;

	if (rep->ndev < 2)
		return;
	for (uint32_t i = 0; i + 1 < rep->ndev; i++) {
		rep->dev[i] = rep->dev[i + 1];
		if (fds)
			fds[i] = fds[i + 1];
	}
	rep->dev[rep->ndev - 1] = first;
	if (fds)
		fds[rep->ndev - 1] = fd0;
}

static CUresult do_lock(const struct emu_req *req)
{
	CUresult res;

	if (app.state != CU_PROCESS_STATE_RUNNING)
		return CUDA_ERROR_ILLEGAL_STATE;
	res = emu_gate_lock(req->timeout_ms);
	if (res == CUDA_SUCCESS)
		app.state = CU_PROCESS_STATE_LOCKED;
	return res;
}

static CUresult do_unlock(void)
{
	if (app.state != CU_PROCESS_STATE_LOCKED)
		return CUDA_ERROR_ILLEGAL_STATE;
	emu_gate_unlock();
	app.state = CU_PROCESS_STATE_RUNNING;
	return CUDA_SUCCESS;
}

static CUresult checkpoint_custom(const struct emu_req *req, struct emu_rep *rep, int *fds, int *nfd)
{
	int d;

	for (d = 0; d < emu_ndev(); d++) {
		struct emu_rep_dev *e = &rep->dev[rep->ndev];

		if (!emu_mem_used(d))
			continue;
		emu_dev_uuid(d, &e->uuid);
		e->app_dev = d;
		e->caller_dev = caller_index(req, &e->uuid);
		e->size = emu_mem_used(d);
		if (!caller_retained(req, e->caller_dev))
			return CUDA_ERROR_INVALID_CONTEXT;
		rep->ndev++;
	}
	for (d = 0; d < (int)rep->ndev; d++) {
		fds[d] = emu_mem_export_fd(rep->dev[d].app_dev);
		if (fds[d] < 0) {
			while (d--)
				close(fds[d]);
			return CUDA_ERROR_OPERATING_SYSTEM;
		}
	}
	*nfd = (int)rep->ndev;
	rotate_entries(rep, fds);
	app.custom = true;
	app.state = CU_PROCESS_STATE_CHECKPOINTING;
	return CUDA_SUCCESS;
}

static CUresult do_checkpoint(const struct emu_req *req, struct emu_rep *rep, int *fds, int *nfd)
{
	if (app.state != CU_PROCESS_STATE_LOCKED)
		return CUDA_ERROR_ILLEGAL_STATE;
	if (req->custom)
		return checkpoint_custom(req, rep, fds, nfd);
	if (emu_mem_host_save())
		return CUDA_ERROR_OUT_OF_MEMORY;
	app.custom = false;
	app.state = CU_PROCESS_STATE_CHECKPOINTED;
	return CUDA_SUCCESS;
}

/* gpuPairs given: every checkpointed device must be listed once as oldUuid (1.5) */
static CUresult plan_pairs(const struct emu_req *req, int *dest)
{
	for (int d = 0; d < emu_ndev(); d++) {
		int hits = 0, idx = -1;
		CUuuid u;

		if (!emu_mem_saved(d))
			continue;
		emu_dev_uuid(d, &u);
		for (uint32_t p = 0; p < req->npairs; p++)
			if (uuid_eq(&req->pairs[p].oldUuid, &u)) {
				hits++;
				idx = caller_index(req, &req->pairs[p].newUuid);
			}
		if (hits != 1)
			return CUDA_ERROR_INVALID_VALUE;
		dest[d] = idx;
	}
	return CUDA_SUCCESS;
}

/*
 * No gpuPairs: each device goes back to the caller's device with its UUID. A UUID the caller
 * does not have is tolerated only when one device is involved: it lands on the caller's
 * device of the same ordinal (a single GPU moved to another one, 4).
 */
static CUresult plan_same(const struct emu_req *req, int *dest)
{
	int involved = 0, missing = -1;

	for (int d = 0; d < emu_ndev(); d++) {
		CUuuid u;

		if (!emu_mem_saved(d))
			continue;
		involved++;
		emu_dev_uuid(d, &u);
		dest[d] = caller_index(req, &u);
		if (dest[d] < 0)
			missing = d;
	}
	if (missing >= 0) {
		if (involved != 1 || missing >= (int)req->ncaller)
			return CUDA_ERROR_INVALID_DEVICE;
		dest[missing] = missing;
	}
	return CUDA_SUCCESS;
}

static CUresult plan_restore(const struct emu_req *req, int *dest)
{
	CUresult res;
	int d, e;

	for (d = 0; d < EMU_MAXDEV; d++)
		dest[d] = -1;
	if (req->npairs > EMU_MAXPAIRS)
		return CUDA_ERROR_INVALID_VALUE;
	res = req->npairs ? plan_pairs(req, dest) : plan_same(req, dest);
	if (res != CUDA_SUCCESS)
		return res;
	for (d = 0; d < emu_ndev(); d++) {
		if (!emu_mem_saved(d))
			continue;
		if (dest[d] < 0)
			return CUDA_ERROR_INVALID_DEVICE;
		/* what the destination has free of other tenants */
		if (emu_mem_saved(d) > req->caller_gpu[dest[d]].mem - req->caller_gpu[dest[d]].other)
			return CUDA_ERROR_OUT_OF_MEMORY;
		if (!dev_node_open(req->caller_gpu[dest[d]].minor))
			return CUDA_ERROR_INVALID_DEVICE; /* no device node for it in this process's /dev */
		for (e = 0; e < d; e++)
			if (dest[e] == dest[d])
				return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult restore_custom(const struct emu_req *req, struct emu_rep *rep, const int *dest)
{
	for (int d = 0; d < emu_ndev(); d++) {
		struct emu_rep_dev *e = &rep->dev[rep->ndev];

		if (!emu_mem_saved(d))
			continue;
		if (!caller_retained(req, dest[d]))
			return CUDA_ERROR_INVALID_CONTEXT;
		e->app_dev = d;
		e->caller_dev = dest[d];
		e->size = emu_mem_saved(d);
		e->uuid = req->caller_gpu[dest[d]].uuid;
		rep->ndev++;
	}
	rotate_entries(rep, NULL);
	app.nplan = (int)rep->ndev;
	for (uint32_t i = 0; i < rep->ndev; i++) {
		app.plan_dev[i] = rep->dev[i].app_dev;
		app.plan_gpu[i] = req->caller_gpu[rep->dev[i].caller_dev];
	}
	app.state = CU_PROCESS_STATE_RESTORING;
	return CUDA_SUCCESS;
}

/*
 * The device's memory is now on GPU to, as the restoring caller sees it: from here on the device
 * reports to's facts (UUID, name, capacity, ...), and its reserved range grows with a larger
 * capacity. 0 or -errno.
 */
static int dev_move(int dev, const struct emu_gpu *to)
{
	size_t old_cap = emu_dev_capacity(dev);

	emu_dev_move(dev, to);
	return emu_mem_recap(dev, old_cap);
}

static CUresult do_restore(const struct emu_req *req, struct emu_rep *rep)
{
	int dest[EMU_MAXDEV];
	CUresult res;

	if (app.state != CU_PROCESS_STATE_CHECKPOINTED)
		return CUDA_ERROR_ILLEGAL_STATE;
	/* as driver 580 on the H200: a CUDA IPC importer checkpoints, and never restores, not even
	 * in place; it stays CHECKPOINTED */
	if (emu_config()->ipc_importer && emu_config()->driver_version < 13040)
		return CUDA_ERROR_INVALID_VALUE;
	/* emulator choice: the restore must use the mode of the checkpoint */
	if (!req->custom != !app.custom)
		return CUDA_ERROR_ILLEGAL_STATE;
	res = plan_restore(req, dest);
	if (res != CUDA_SUCCESS)
		return res;
	if (req->custom)
		return restore_custom(req, rep, dest);
	for (int d = 0; d < emu_ndev(); d++)
		if (emu_mem_saved(d) && dev_move(d, &req->caller_gpu[dest[d]])) {
			app.state = CU_PROCESS_STATE_FAILED;
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	if (emu_mem_host_load()) {
		app.state = CU_PROCESS_STATE_FAILED;
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	app.state = CU_PROCESS_STATE_LOCKED;
	return CUDA_SUCCESS;
}

static CUresult complete_restore(const struct emu_req *req, const int *fds, int nfd)
{
	if (nfd != app.nplan || req->nfd != (uint32_t)nfd)
		return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < nfd; i++)
		if (req->fd_dev[i] != app.plan_dev[i])
			return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < nfd; i++) {
		if (dev_move(app.plan_dev[i], &app.plan_gpu[i]) || emu_mem_install(app.plan_dev[i], fds[i])) {
			app.state = CU_PROCESS_STATE_FAILED;
			return CUDA_ERROR_OPERATING_SYSTEM;
		}
	}
	app.nplan = 0;
	app.state = CU_PROCESS_STATE_LOCKED;
	return CUDA_SUCCESS;
}

static CUresult do_complete(const struct emu_req *req, const int *fds, int nfd)
{
	if (app.state == CU_PROCESS_STATE_RESTORING)
		return complete_restore(req, fds, nfd);
	if (app.state != CU_PROCESS_STATE_CHECKPOINTING)
		return CUDA_ERROR_ILLEGAL_STATE;
	for (int d = 0; d < emu_ndev(); d++)
		if (emu_mem_release(d)) {
			app.state = CU_PROCESS_STATE_FAILED;
			return CUDA_ERROR_OPERATING_SYSTEM;
		}
	app.state = CU_PROCESS_STATE_CHECKPOINTED;
	return CUDA_SUCCESS;
}

static CUresult dispatch(const struct emu_req *req, const int *in, int nin, struct emu_rep *rep, int *out,
			 int *nout)
{
	switch (req->op) {
	case EMU_OP_STATE:
		return CUDA_SUCCESS;
	case EMU_OP_LOCK:
		return do_lock(req);
	case EMU_OP_CHECKPOINT:
		return do_checkpoint(req, rep, out, nout);
	case EMU_OP_RESTORE:
		return do_restore(req, rep);
	case EMU_OP_COMPLETE:
		return do_complete(req, in, nin);
	case EMU_OP_UNLOCK:
		return do_unlock();
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* CUDASTORE_EMU_ABORT: the application dies in the middle of serving this request */
static void maybe_abort(uint32_t op)
{
	const char *want = emu_config()->abort_op;

	if (want[0] && !strcmp(want, emu_op_name(op))) {
		kill(getpid(), SIGKILL);
		for (;;)
			pause();
	}
}

/* the probes described at the top */
static void probe(uint32_t op)
{
	uint64_t mask = 0, want = ~(1ull << (SIGKILL - 1) | 1ull << (SIGSTOP - 1));
	char name[48];
	long r;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof(mask));
	snprintf(name, sizeof(name), "drv:%s:sigmask", emu_op_name(op));
	emu_trace(name, (CUresult)((mask & want) == want));
	r = syscall(SYS_sched_yield);
	snprintf(name, sizeof(name), "drv:%s:seccomp", emu_op_name(op));
	emu_trace(name, (CUresult)(r ? errno : 0));
}

/* the device bytes a checkpoint or restore request moves: the rate's measure */
static size_t request_bytes(uint32_t op)
{
	size_t sum = 0;

	if (op != EMU_OP_CHECKPOINT && op != EMU_OP_RESTORE)
		return 0;
	for (int d = 0; d < emu_ndev(); d++)
		sum += op == EMU_OP_CHECKPOINT ? emu_mem_used(d) : emu_mem_saved(d);
	return sum;
}

/*
 * CUDASTORE_EMU_RATE_MBPS: the request lasts until begin + bytes / rate (10^6 bytes/s). A real
 * driver copies for all that time on this thread, so the emulated one is seen at work too: it
 * spins PACE_WORK_NS of every PACE_SLICE_NS and sleeps the rest (about 15 % of a CPU).
 */
#define PACE_SLICE_NS 20000000ull
#define PACE_WORK_NS  3000000ull
static void pace(uint64_t begin_ns, size_t bytes)
{
	unsigned int rate = emu_config()->rate_mbps;
	uint64_t end, now, t;
	struct timespec until;

	if (!rate || !bytes)
		return;
	end = begin_ns + (uint64_t)bytes * 1000u / rate;
	while ((now = emu_now_ns()) < end) {
		for (t = now; t < end && t - now < PACE_WORK_NS;)
			t = emu_now_ns();
		t = now + PACE_SLICE_NS < end ? now + PACE_SLICE_NS : end;
		until.tv_sec = (time_t)(t / 1000000000u);
		until.tv_nsec = (long)(t % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
			;
	}
}

void emu_driver_serve(int sk)
{
	struct emu_rep rep = { .magic = EMU_MAGIC };
	int in[EMU_MAXDEV], out[EMU_MAXDEV], nin = 0, nout = 0, i;
	struct emu_req req;
	uint64_t begin;
	char name[32];
	size_t bytes;

	if (emu_msg_recv(sk, &req, sizeof(req), in, &nin, EMU_MAXDEV) || req.magic != EMU_MAGIC)
		goto out;
	begin = emu_now_ns();
	maybe_abort(req.op);
	probe(req.op);
	bytes = request_bytes(req.op);
	rep.result = dispatch(&req, in, nin, &rep, out, &nout);
	if (rep.result != CUDA_SUCCESS)
		rep.ndev = 0;
	else
		pace(begin, bytes);
	rep.state = app.state;
	snprintf(name, sizeof(name), "drv:%s", emu_op_name(req.op));
	emu_trace_span(name, rep.result, begin, emu_now_ns(), req.caller_pid);
	emu_msg_send(sk, &rep, sizeof(rep), out, nout);
	/* the caller has its own references now: nothing of the device stays open here */
	for (i = 0; i < nout; i++)
		close(out[i]);
out:
	for (i = 0; i < nin; i++)
		close(in[i]);
}

static void *driver_main(void *arg)
{
	prctl(PR_SET_NAME, EMU_DRIVER_COMM, 0, 0, 0);
	for (;;) {
		int sk = accept4(app.listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (sk < 0) {
			if (errno != EINTR && errno != ECONNABORTED)
				usleep(10000);
			continue;
		}
		emu_driver_serve(sk);
		close(sk);
	}
	return NULL;
}

int emu_driver_start(void)
{
	pthread_t t;
	int ret;

	app.listen_fd = emu_sock_listen(getpid());
	if (app.listen_fd < 0) {
		fprintf(stderr, "cudastore-emu[%d]: cannot listen on @" EMU_SOCK_PREFIX "%d: %s\n", getpid(),
			getpid(), strerror(-app.listen_fd));
		return app.listen_fd;
	}
	/* the caller's mask, as the real driver's thread has */
	ret = pthread_create(&t, NULL, driver_main, NULL);
	if (ret) {
		close(app.listen_fd);
		app.listen_fd = -1;
		return -ret;
	}
	/* named before cuInit returns: GetRestoreThreadId finds it by name right away (the thread's
	 * own prctl may run later) */
	pthread_setname_np(t, EMU_DRIVER_COMM);
	pthread_detach(t);
	return 0;
}
