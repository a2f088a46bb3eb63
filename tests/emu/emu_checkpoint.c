// SPDX-License-Identifier: MIT
/*
 * emu_checkpoint.c - the caller's side of the checkpoint API (cuCheckpoint*).
 *
 * GetRestoreThreadId reads /proc only, so it answers even while the target is ptrace-stopped.
 * Every other call is a request to the target's driver thread (emu_driver.c); it blocks while
 * that thread is stopped, like the real driver.
 *
 * CustomStorage (13.4): a checkpoint receives the target's memfds and maps them here; a
 * restore maps fresh zeroed memfds here and hands them to the target at Complete. The
 * CUcheckpointCustomStorageInfo is allocated by the emulator ("driver-owned") inside an
 * operation object; the handle is that object. Complete unmaps, destroys the entry streams
 * and frees the object whatever the target answers (ai-dynamo's observation, 1.9).
 *
 * Several threads may drive different targets at once. The operations list is behind
 * ops_lock; a copy through a mapping pins its operation while the bytes move, and Complete
 * unlinks the operation, then waits for its pins before it unmaps.
 *
 * Error choices where the documentation is silent: a process checkpointing/restoring
 * itself to custom storage -> CUDA_ERROR_INVALID_VALUE; a non-NULL customStorageInfo_out on
 * an emulated 13.0 driver -> CUDA_ERROR_INVALID_VALUE (those bytes were reserved there); the
 * target dying during a request -> CUDA_ERROR_UNKNOWN; a pid that does not exist ->
 * CUDA_ERROR_INVALID_VALUE; a pid without a driver thread -> CUDA_ERROR_NOT_INITIALIZED.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda_ops.h"
#include "emu_api.h"

struct cs_op_ent {
	void *addr;
	size_t size;
	int fd; /* restore: the memfd handed to the target at Complete */
	int app_dev;
	CUstream stream;
};

struct cs_op {
	struct cs_op *next;
	unsigned int pins; /* copies in flight through the mappings (ops_lock) */
	int pid;
	bool restore;
	unsigned int n;
	struct cs_op_ent ent[EMU_MAXDEV];
	CUcheckpointCustomStorageInfo info;
	CUcheckpointCustomStoragePerDeviceData pdd[EMU_MAXDEV];
};

static struct cs_op *ops;
static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ops_unpinned = PTHREAD_COND_INITIALIZER;

static bool op_holds(const struct cs_op *op, CUdeviceptr ptr, size_t len)
{
	for (unsigned int i = 0; i < op->n; i++) {
		uintptr_t a = (uintptr_t)op->ent[i].addr;
		size_t size = op->ent[i].size;

		if (ptr >= a && ptr - a <= size && len <= size - (ptr - a)) /* no wrap-around */
			return true;
	}
	return false;
}

/* ops_lock held */
static struct cs_op *op_find(CUdeviceptr ptr, size_t len)
{
	struct cs_op *op;

	for (op = ops; op && !op_holds(op, ptr, len); op = op->next)
		;
	return op;
}

struct cs_op *emu_op_pin(CUdeviceptr ptr, size_t len)
{
	struct cs_op *op;

	pthread_mutex_lock(&ops_lock);
	op = op_find(ptr, len);
	if (op)
		op->pins++;
	pthread_mutex_unlock(&ops_lock);
	return op;
}

void emu_op_unpin(struct cs_op *op)
{
	if (!op)
		return;
	pthread_mutex_lock(&ops_lock);
	if (!--op->pins)
		pthread_cond_broadcast(&ops_unpinned);
	pthread_mutex_unlock(&ops_lock);
}

int emu_op_owner(CUdeviceptr ptr, size_t len)
{
	struct cs_op *op;
	int pid;

	pthread_mutex_lock(&ops_lock);
	op = op_find(ptr, len);
	pid = op ? op->pid : 0;
	pthread_mutex_unlock(&ops_lock);
	return pid;
}

int emu_op_handle_pid(CUcheckpointOperationHandle handle)
{
	struct cs_op *op;
	int pid;

	pthread_mutex_lock(&ops_lock);
	for (op = ops; op && (CUcheckpointOperationHandle)op != handle; op = op->next)
		;
	pid = op ? op->pid : 0;
	pthread_mutex_unlock(&ops_lock);
	return pid;
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static void req_init(struct emu_req *req, uint32_t op)
{
	memset(req, 0, sizeof(*req));
	req->magic = EMU_MAGIC;
	req->op = op;
	req->caller_pid = getpid();
	req->ncaller = (uint32_t)emu_ndev();
	for (int i = 0; i < emu_ndev(); i++) {
		req->caller_gpu[i] = *emu_dev_gpu(i);
		if (emu_initialized() && emu_ctx_retained(i))
			req->retained |= 1u << i;
	}
}

static void close_fds(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

static CUresult request(int pid, const struct emu_req *req, const int *fds, int nfd, struct emu_rep *rep,
			int *rfds, int *nrfd)
{
	int sk, ret, dummy;

	if (!nrfd)
		nrfd = &dummy;
	*nrfd = 0;
	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return CUDA_ERROR_INVALID_VALUE;
	sk = emu_sock_connect(pid);
	if (sk < 0)
		return sk == -ECONNREFUSED || sk == -ENOENT ? CUDA_ERROR_NOT_INITIALIZED
							    : CUDA_ERROR_OPERATING_SYSTEM;
	ret = emu_msg_send(sk, req, sizeof(*req), fds, nfd);
	if (!ret)
		ret = emu_msg_recv(sk, rep, sizeof(*rep), rfds, nrfd, EMU_MAXDEV);
	close(sk);
	if (ret || rep->magic != EMU_MAGIC) {
		close_fds(rfds, *nrfd);
		*nrfd = 0;
		return CUDA_ERROR_UNKNOWN; /* the target went away mid-request */
	}
	return rep->result;
}

/* ---- GetRestoreThreadId: /proc only ---- */

static bool task_is_driver(int pid, const char *tid)
{
	char path[300], comm[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, EMU_DRIVER_COMM);
}

static CUresult restore_tid(int pid, int *tid)
{
	CUresult res = CUDA_ERROR_NOT_INITIALIZED;
	char path[32];
	struct dirent *de;
	DIR *dir;

	if (pid <= 0 || !tid)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return CUDA_ERROR_INVALID_VALUE;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.' && task_is_driver(pid, de->d_name)) {
			*tid = atoi(de->d_name);
			res = CUDA_SUCCESS;
			break;
		}
	closedir(dir);
	return res;
}

CUresult cuCheckpointProcessGetRestoreThreadId(int pid, int *tid)
{
	EMU_CALL_FOR("cuCheckpointProcessGetRestoreThreadId", 0, pid, restore_tid(pid, tid));
}

/* ---- GetState, Lock, Unlock ---- */

static CUresult get_state(int pid, CUprocessState *state)
{
	struct emu_rep rep;
	struct emu_req req;
	CUresult res;

	if (!state)
		return CUDA_ERROR_INVALID_VALUE;
	req_init(&req, EMU_OP_STATE);
	res = request(pid, &req, NULL, 0, &rep, NULL, NULL);
	if (res == CUDA_SUCCESS)
		*state = (CUprocessState)rep.state;
	return res;
}

CUresult cuCheckpointProcessGetState(int pid, CUprocessState *state)
{
	EMU_CALL_FOR("cuCheckpointProcessGetState", 0, pid, get_state(pid, state));
}

static CUresult lock(int pid, const CUcheckpointLockArgs *args)
{
	struct emu_rep rep;
	struct emu_req req;

	if (args && (args->reserved0 || !all_zero(args->reserved1, sizeof(args->reserved1))))
		return CUDA_ERROR_INVALID_VALUE;
	req_init(&req, EMU_OP_LOCK);
	req.timeout_ms = args ? args->timeoutMs : 0;
	return request(pid, &req, NULL, 0, &rep, NULL, NULL);
}

CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args)
{
	EMU_CALL_FOR("cuCheckpointProcessLock", 0, pid, lock(pid, args));
}

static CUresult unlock(int pid, const CUcheckpointUnlockArgs *args)
{
	struct emu_rep rep;
	struct emu_req req;

	if (args && !all_zero(args, sizeof(*args)))
		return CUDA_ERROR_INVALID_VALUE;
	req_init(&req, EMU_OP_UNLOCK);
	return request(pid, &req, NULL, 0, &rep, NULL, NULL);
}

CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args)
{
	EMU_CALL_FOR("cuCheckpointProcessUnlock", 0, pid, unlock(pid, args));
}

/* ---- CustomStorage operations ---- */

/* what every CustomStorage request needs from the caller (1.4, 1.5, 2.10) */
static CUresult custom_allowed(int pid)
{
	if (emu_config()->driver_version < CUDASTORE_CUDA_13_4)
		return CUDA_ERROR_INVALID_VALUE;
	if (pid == getpid())
		return CUDA_ERROR_INVALID_VALUE;
	if (!emu_initialized())
		return CUDA_ERROR_NOT_INITIALIZED;
	return CUDA_SUCCESS;
}

static int ent_map(struct cs_op_ent *e, bool restore, int fd, const CUuuid *uuid)
{
	char name[64], text[CS_UUID_STRLEN];

	if (restore) {
		cs_uuid_format(uuid, text);
		snprintf(name, sizeof(name), "%s%s", EMU_MEMFD_PREFIX, text);
		fd = memfd_create(name, MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)e->size))
			goto err;
	}
	e->addr = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (e->addr == MAP_FAILED) {
		e->addr = NULL;
		goto err;
	}
	if (restore)
		e->fd = fd;
	else
		close(fd);
	return 0;
err:
	if (fd >= 0)
		close(fd);
	return -1;
}

static void op_free(struct cs_op *op)
{
	for (unsigned int i = 0; i < op->n; i++) {
		if (op->ent[i].addr)
			munmap(op->ent[i].addr, op->ent[i].size);
		if (op->ent[i].fd >= 0)
			close(op->ent[i].fd);
		emu_stream_free(op->ent[i].stream);
	}
	memset(op, 0x5a, sizeof(*op)); /* the info is invalid after Complete (1.9) */
	free(op);
}

/* Builds the caller-side view from the target's answer; consumes fds. */
static CUresult op_create(int pid, bool restore, const struct emu_rep *rep, int *fds, int nfd,
			  CUcheckpointCustomStorageInfo **out)
{
	struct cs_op *op = calloc(1, sizeof(*op));
	unsigned int i;

	if (!op || rep->ndev > EMU_MAXDEV || (!restore && nfd != (int)rep->ndev))
		goto err;
	op->pid = pid;
	op->restore = restore;
	for (i = 0; i < rep->ndev; i++) {
		struct cs_op_ent *e = &op->ent[i];

		op->n = i + 1;
		e->fd = -1;
		e->size = rep->dev[i].size;
		e->app_dev = rep->dev[i].app_dev;
		if (ent_map(e, restore, restore ? -1 : fds[i], &rep->dev[i].uuid))
			goto err;
		if (!restore)
			fds[i] = -1;
		if (emu_stream_new(&e->stream, rep->dev[i].caller_dev) != CUDA_SUCCESS)
			goto err;
		op->pdd[i].devPtr = (CUdeviceptr)(uintptr_t)e->addr;
		op->pdd[i].size = e->size;
		op->pdd[i].stream = e->stream;
	}
	op->info.handle = (CUcheckpointOperationHandle)op;
	op->info.perDeviceData = op->pdd;
	op->info.deviceCount = op->n;
	pthread_mutex_lock(&ops_lock);
	op->next = ops;
	ops = op;
	pthread_mutex_unlock(&ops_lock);
	*out = &op->info;
	return CUDA_SUCCESS;
err:
	for (i = 0; i < (unsigned int)nfd; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (op)
		op_free(op);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult checkpoint(int pid, const CUcheckpointCheckpointArgs *args)
{
	CUcheckpointCustomStorageInfo **out = args ? args->customStorageInfo_out : NULL;
	int fds[EMU_MAXDEV], nfd = 0;
	struct emu_rep rep;
	struct emu_req req;
	CUresult res;

	if (args && !all_zero(args->reserved, sizeof(args->reserved)))
		return CUDA_ERROR_INVALID_VALUE;
	req_init(&req, EMU_OP_CHECKPOINT);
	if (out) {
		res = custom_allowed(pid);
		if (res != CUDA_SUCCESS)
			return res;
		req.custom = 1;
	}
	res = request(pid, &req, NULL, 0, &rep, fds, &nfd);
	if (res != CUDA_SUCCESS || !out) {
		close_fds(fds, nfd);
		return res;
	}
	return op_create(pid, false, &rep, fds, nfd, out);
}

CUresult cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args)
{
	EMU_CALL_FOR("cuCheckpointProcessCheckpoint", 0, pid, checkpoint(pid, args));
}

static CUresult restore_args(const CUcheckpointRestoreArgs *args)
{
	if (!args)
		return CUDA_SUCCESS;
	if (args->padding0 || !all_zero(args->reserved, sizeof(args->reserved)))
		return CUDA_ERROR_INVALID_VALUE;
	if ((args->gpuPairsCount && !args->gpuPairs) || args->gpuPairsCount > EMU_MAXPAIRS)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult restore(int pid, const CUcheckpointRestoreArgs *args)
{
	CUcheckpointCustomStorageInfo **out = args ? args->customStorageInfo_out : NULL;
	struct emu_rep rep;
	struct emu_req req;
	CUresult res;

	res = restore_args(args);
	if (res != CUDA_SUCCESS)
		return res;
	req_init(&req, EMU_OP_RESTORE);
	if (out) {
		res = custom_allowed(pid);
		if (res != CUDA_SUCCESS)
			return res;
		req.custom = 1;
	}
	if (args && args->gpuPairsCount) {
		req.npairs = args->gpuPairsCount;
		memcpy(req.pairs, args->gpuPairs, sizeof(req.pairs[0]) * args->gpuPairsCount);
	}
	res = request(pid, &req, NULL, 0, &rep, NULL, NULL);
	if (res != CUDA_SUCCESS || !out)
		return res;
	return op_create(pid, true, &rep, NULL, 0, out);
}

CUresult cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args)
{
	EMU_CALL_FOR("cuCheckpointProcessRestore", 0, pid, restore(pid, args));
}

/* Unlinks the operation, then waits until no copy uses its mappings any more. */
static struct cs_op *op_take(CUcheckpointOperationHandle handle)
{
	struct cs_op **pp, *op = NULL;

	pthread_mutex_lock(&ops_lock);
	for (pp = &ops; *pp; pp = &(*pp)->next)
		if ((CUcheckpointOperationHandle)*pp == handle) {
			op = *pp;
			*pp = op->next;
			break;
		}
	while (op && op->pins)
		pthread_cond_wait(&ops_unpinned, &ops_lock);
	pthread_mutex_unlock(&ops_lock);
	return op;
}

static CUresult complete(CUcheckpointOperationHandle handle)
{
	int fds[EMU_MAXDEV], nfd = 0;
	struct emu_rep rep;
	struct emu_req req;
	struct cs_op *op;
	CUresult res;

	if (emu_config()->driver_version < CUDASTORE_CUDA_13_4)
		return CUDA_ERROR_NOT_SUPPORTED; /* only reachable through a plain dlsym */
	op = op_take(handle);
	if (!op)
		return CUDA_ERROR_INVALID_VALUE;
	req_init(&req, EMU_OP_COMPLETE);
	for (unsigned int i = 0; i < op->n; i++) {
		struct cs_op_ent *e = &op->ent[i];

		/* 1. synchronize the entry streams (copies are synchronous here), 2. unmap */
		munmap(e->addr, e->size);
		e->addr = NULL;
		if (op->restore) {
			fds[nfd] = e->fd;
			req.fd_dev[nfd++] = e->app_dev;
		}
	}
	req.nfd = (uint32_t)nfd;
	res = request(op->pid, &req, fds, nfd, &rep, NULL, NULL);
	op_free(op);
	return res;
}

/*
 * An injected failure still destroys the operation on the caller's side (mappings gone, handle
 * unknown from then on: 1.9) while the target stays CHECKPOINTING or RESTORING.
 */
CUresult cuCheckpointOperationComplete(CUcheckpointOperationHandle handle)
{
	struct emu_call c;
	CUresult res = emu_call_begin(&c, "cuCheckpointOperationComplete", 0, emu_op_handle_pid(handle));
	struct cs_op *op;

	if (res == CUDA_SUCCESS)
		res = complete(handle);
	else if ((op = op_take(handle)))
		op_free(op);
	return emu_call_end(&c, res);
}
