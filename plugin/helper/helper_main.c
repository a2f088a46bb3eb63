// SPDX-License-Identifier: MIT
/*
 * helper_main.c - cudastore-helper: every driver call of the plugin, outside criu's process.
 *
 * Started by the plugin at init (helper_link.c) with its end of a socketpair on fd 3. It loads
 * libcuda and NVML, serves criu's requests one at a time (dump.c, restore.c) and owns the
 * CustomStorage mappings, writing the extents itself through the images-directory fd criu
 * passes along.
 *
 * The guardian: if criu goes away without saying BYE (killed by the OOM killer, a runtime's
 * timeout, an operator), the kernel detaches criu's tracees and they run again. A dump then
 * puts every process it touched back to RUNNING with its GPU memory (unlock, or restore from
 * the extents or the host copy, then unlock), exactly as a failed dump's rollback does; a
 * restore in flight kills its process (restore.c) so it never runs with partial GPU memory.
 * What the guardian does goes to stderr and, for a dump, to cudastore-guardian.log in the
 * images directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "criu_door.h"
#include "criu_link.h"
#include "criu_run.h"
#include "devices.h"
#include "dump.h"
#include "imgdir.h"
#include "dump_chunks.h"
#include "imgset.h"
#include "isolate.h"
#include "log.h"
#include "pool.h"
#include "prefetch.h"
#include "procfs.h"
#include "progress.h"
#include "recover.h"
#include "warmup.h"
#include "test_hooks.h"
#ifdef CS_HELPER_TEST_HOOKS
#include "test_hooks_env.h"
#endif
#include "restore.h"
#include "restore_place.h"
#include "rollback.h"
#include "watch.h"
#include "wire.h"

#define GUARDIAN_LOG "cudastore-guardian.log"

struct helper {
	int sock;
	int dirfd;	     /* the images directory, last passed by criu (the guardian needs it) */
	bool finished;	     /* criu sent FINISH: the dump's own end ran */
	int finish_ret;	     /* and the dump's result then */
	bool watch;	     /* at BYE, watch what criu does to the processes (watch.h) */
	struct cs_ctx *ctx;
};

static atomic_bool in_flight; /* a request is being served: its progress goes to criu */

/* The CPU time in ns of the helper's threads that run now, the calling thread's excluded. */
static uint64_t others_cpu_ns(void)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	DIR *d = opendir("/proc/self/task");
	uint64_t sum = 0, ns;
	struct dirent *e;
	pid_t tid;

	while (d && (e = readdir(d))) {
		tid = (pid_t)atoi(e->d_name);
		if (tid > 0 && tid != self && !cs_procfs_thread_cpu_ns(getpid(), tid, &ns))
			sum += ns;
	}
	if (d)
		closedir(d);
	return sum;
}

/* Every CS_PROGRESS_TICK_MS: tells criu that the request in flight moved (progress.h). */
static void *ticker(void *arg)
{
	struct timespec tick = { 0, CS_PROGRESS_TICK_MS * 1000000L };

	(void)arg;
	for (;;) {
		nanosleep(&tick, NULL);
		if (cs_progress_tick(others_cpu_ns()) && atomic_load(&in_flight))
			cs_criu_link_progress();
	}
	return NULL;
}

static void start_ticker(void)
{
	sigset_t all, old;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, ticker, NULL))
		cs_warn("cudastore-helper: no progress reports (thread not started): criu's op_timeout_s "
			"then bounds each request's whole length");
	else
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static const char *stage_name(int stage)
{
	return stage == CS_STAGE_DUMP ? "dump" : stage == CS_STAGE_RESTORE ? "restore" : "pre-dump";
}

static int load_driver(struct cs_ctx *ctx)
{
	char err[512];
	int ret;

	ret = cs_cuda_load(&ctx->cuda, ctx->opt.libcuda[0] ? ctx->opt.libcuda : NULL, err, sizeof(err));
	if (ret == -EPERM) { /* one root may not load (trust.h): a mistake to fix, not "no driver" */
		cs_err("%s", err);
		return -1;
	}
	if (ret) {
		if (ctx->stage == CS_STAGE_RESTORE) {
			cs_err("the images hold CUDA GPU state but the driver cannot be used: %s. Install the "
			       "NVIDIA driver (or set CUDASTORE_LIBCUDA) and restore again",
			       err);
			return -1;
		}
		cs_info("plugin disabled: %s (no CUDA processes can be checkpointed)", err);
		ctx->disabled = true;
		return 0;
	}
	ctx->cuda_loaded = true;
	if (!ctx->cuda.has_checkpoint) {
		cs_warn("driver CUDA %d (%s) has no checkpoint API (needs R570+ / CUDA 12.8); plugin disabled",
			ctx->cuda.driver_version, ctx->cuda.path);
		ctx->disabled = true;
		return ctx->stage == CS_STAGE_RESTORE ? -1 : 0;
	}
	return 0;
}

/* Dump: the directory is this dump's from now on, before criu freezes anything (imgset.h). */
static int own_imgdir(struct cs_ctx *ctx, int dirfd)
{
	if (ctx->stage != CS_STAGE_DUMP || dirfd < 0)
		return 0;
	return cs_dump_own_imgdir(ctx, dirfd);
}

/*
 * INIT's CRIU run id, after the options (wire.h): a dump's is recorded in its index, a restore's
 * (the run CRIU's inventory names) is what the index must name (imgset.h). None: not known.
 */
static int init_run(struct cs_ctx *ctx, const struct cs_wire_msg *m)
{
	const char *run = m->data + sizeof(struct cs_options);
	size_t n = m->len - sizeof(struct cs_options);
	char *to = ctx->stage == CS_STAGE_RESTORE ? ctx->restore.set.criu_run : ctx->dump.criu_run;

	ctx->restore.set.tie = ctx->stage == CS_STAGE_RESTORE;
	if (!n)
		return 0;
	if (!cs_criu_run_ok(run, n)) {
		cs_err("cudastore-helper: INIT holds %zu bytes of CRIU run id that are not one; install the "
		       "plugin and the helper together",
		       n);
		return -EPROTO;
	}
	memcpy(to, run, n);
	to[n] = '\0';
	cs_debug("%s of CRIU run %s", ctx->stage == CS_STAGE_RESTORE ? "restoring the dump" : "dump", to);
	return 0;
}

static int do_init(struct helper *h, const struct cs_wire_msg *m, int fd)
{
	struct cs_ctx *ctx;

	if (m->len < sizeof(struct cs_options) || m->len > sizeof(struct cs_options) + CS_CRIU_RUN_MAX) {
		cs_err("cudastore-helper: criu's plugin is from another build (INIT of %u bytes, expected "
		       "%zu to %zu); install the plugin and the helper together",
		       m->len, sizeof(struct cs_options), sizeof(struct cs_options) + CS_CRIU_RUN_MAX);
		return -EPROTO;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->stage = (enum cs_stage)m->arg;
	ctx->criu_pid = m->pid;
	ctx->restore.warmup.dirfd = -1;
	pthread_mutex_init(&ctx->mu, NULL);
	cs_dev_setup(&ctx->gpus, &ctx->cuda);
	cs_pool_setup(&ctx->pool);
	memcpy(&ctx->opt, m->data, sizeof(ctx->opt));
	h->ctx = ctx;
	if (init_run(ctx, m))
		return -EPROTO;
	cs_isolate(ctx->criu_pid); /* before any buffer is pinned */
	cs_test_stall("init");
	if (load_driver(ctx))
		return -ENODEV;
	if (ctx->disabled)
		return 0;
	cs_info("%s %s: %s stage; driver CUDA %d from %s, CustomStorage %s; mode %s (%s); helper pid %d",
		PACKAGE_NAME, PACKAGE_VERSION, stage_name(ctx->stage), ctx->cuda.driver_version,
		ctx->cuda.path, ctx->cuda.has_custom_storage ? "available" : "not available",
		cs_opt_mode_name(ctx->opt.mode), ctx->opt.source, (int)getpid());
	return own_imgdir(ctx, fd);
}

static void keep_dirfd(struct helper *h, int fd)
{
	if (fd < 0)
		return;
	if (h->dirfd >= 0)
		close(h->dirfd);
	h->dirfd = fd;
}

static int dispatch(struct helper *h, const struct cs_wire_msg *m, int fd, uint32_t *flags)
{
	struct cs_ctx *ctx = h->ctx;
	bool inventory = false;
	int ret;

	switch (m->type) {
	case CS_W_PAUSE:
		keep_dirfd(h, fd);
		ret = cs_dump_pause(ctx, m->pid, h->dirfd, (unsigned)m->arg, &inventory);
		if (inventory)
			*flags |= CS_WF_INVENTORY;
		return ret;
	case CS_W_CHECKPOINT:
		keep_dirfd(h, fd);
		return cs_dump_checkpoint(ctx, m->pid, h->dirfd);
	case CS_W_PREFETCH:
		if (ctx->stage != CS_STAGE_RESTORE || ctx->disabled) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
		if (fd >= 0) /* read once, before the threads that read it start */
			cs_imgset_load(&ctx->restore.set, fd);
		if (fd >= 0 && ctx->opt.warmup) /* each takes its fd; one that does not start changes nothing */
			cs_warmup_begin(ctx, fcntl(fd, F_DUPFD_CLOEXEC, 0));
		cs_prefetch_begin(&ctx->restore.prefetch, &ctx->opt, &ctx->restore.set, fd);
		return 0;
	case CS_W_RESTORE:
		cs_warmup_wait(&ctx->restore.warmup);
		ret = cs_restore_process(ctx, m->pid, fd);
		cs_pool_after_restore(ctx);
		if (fd >= 0)
			close(fd);
		return ret;
	case CS_W_RECOVER:
		keep_dirfd(h, fd);
		return cs_recover(ctx, m->pid, (unsigned)m->arg, h->dirfd);
	case CS_W_FINISH:
		keep_dirfd(h, fd);
		cs_test_stall("exit-hook");
		cs_dump_finish(ctx, m->ret, m->arg == 1, h->dirfd);
		h->finished = true;
		h->finish_ret = m->ret;
		h->watch = !m->ret && m->arg == CS_FINISH_WATCH;
		return 0;
	default:
		if (fd >= 0)
			close(fd);
		cs_err("cudastore-helper: unexpected request %u", m->type);
		return -EPROTO;
	}
}

static bool touched_any(const struct cs_ctx *ctx)
{
	unsigned i;

	for (i = 0; ctx && i < ctx->nproc; i++)
		if (ctx->proc[i].dump.phase != CS_PHASE_RESUMED && ctx->proc[i].dump.phase != CS_PHASE_FOUND)
			return true;
	return false;
}

/* criu is gone without BYE: bring every process of a dump back (see the file comment). */
static void guardian(struct helper *h)
{
	struct cs_ctx *ctx = h->ctx;
	int log_fd = -1;

	if (!ctx || ctx->disabled || ctx->stage != CS_STAGE_DUMP || !touched_any(ctx)) {
		cs_criu_link_guardian(-1);
		return;
	}
	/* a FIFO or device planted under the log's name is not opened: the guardian must not block */
	if (h->dirfd >= 0)
		log_fd = cs_imgdir_open_append(h->dirfd, GUARDIAN_LOG);
	cs_criu_link_guardian(log_fd >= 0 ? log_fd : -1);
	cs_warn("criu is gone in the middle of the dump; bringing its CUDA processes back to running");
	if (log_fd < 0 && h->dirfd >= 0)
		cs_warn("cannot open %s in the images directory (%s): it must be a regular file or absent; "
			"this log goes to stderr only",
			GUARDIAN_LOG, strerror(-log_fd));
	/*
	 * The dump's own end ran with success and without --leave-running: the images are complete
	 * and criu would have killed the processes. Resume them and keep the images. Otherwise the
	 * dump did not finish: resume them and drop our half of the images.
	 */
	cs_dump_finish(ctx, h->finished ? h->finish_ret : -1, true, h->dirfd);
	cs_info("guardian done");
	if (log_fd >= 0)
		close(log_fd);
}

static void release(struct helper *h)
{
	if (h->ctx) {
		cs_prefetch_end(&h->ctx->restore.prefetch);
		cs_dump_release(h->ctx);
		cs_warmup_wait(&h->ctx->restore.warmup);
		cs_pool_release(h->ctx); /* before the contexts go */
	}
	if (h->ctx && h->ctx->cuda_loaded) {
		cs_dev_release_all(&h->ctx->gpus);
		cs_cuda_unload(&h->ctx->cuda);
	}
	if (h->ctx)
		free(h->ctx->restore.not_ours);
	if (h->ctx)
		cs_place_free(h->ctx);
	free(h->ctx);
	h->ctx = NULL;
	if (h->dirfd >= 0)
		close(h->dirfd);
}

static int serve(struct helper *h)
{
	struct cs_wire_msg *m = malloc(sizeof(*m));
	uint32_t flags;
	int fd, ret;

	if (!m)
		return 1;
	for (;;) {
		ret = cs_wire_recv(h->sock, m, &fd);
		if (ret)
			break;
		if (m->type == CS_W_BYE) {
			free(m);
			if (h->watch)
				cs_watch_leave_running(h->ctx, h->sock, h->dirfd, GUARDIAN_LOG);
			return 0;
		}
		flags = 0;
		atomic_store(&in_flight, true);
		if (m->type == CS_W_INIT) {
			ret = h->ctx ? -EPROTO : do_init(h, m, fd);
			if (!ret && h->ctx->disabled)
				flags |= CS_WF_DISABLED;
			keep_dirfd(h, fd);
		} else if (!h->ctx) {
			ret = -EPROTO;
		} else {
			ret = dispatch(h, m, fd, &flags);
		}
		atomic_store(&in_flight, false);
		if (cs_wire_send_simple(h->sock, CS_W_DONE, (int32_t)getpid(), 0, ret, flags, -1))
			break;
		if (cs_criu_gone())
			break;
	}
	free(m);
	guardian(h);
	return 0;
}

int main(int argc, char **argv)
{
	struct helper h = { .sock = CS_HELPER_FD, .dirfd = -1 };
	int ret;

	/* criu's stderr back on 2: the pipe there served only until now (wire.h) */
	if (fcntl(CS_HELPER_STDERR_FD, F_GETFD) >= 0) {
		dup2(CS_HELPER_STDERR_FD, STDERR_FILENO);
		close(CS_HELPER_STDERR_FD);
	}
	if (argc != 3 || strcmp(argv[1], "--criu-fd") || atoi(argv[2]) != CS_HELPER_FD ||
	    fcntl(CS_HELPER_FD, F_GETFD) < 0) {
		fprintf(stderr, "cudastore-helper is started by the cudastore CRIU plugin (criu --lib DIR); "
				"it is not a command. See cudastore-plugin(8) or docs/usage.md.\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "cudastore-hlp", 0, 0, 0);
	cs_criu_link_init(h.sock);
#ifdef CS_HELPER_TEST_HOOKS /* cudastore-helper-test only (test_hooks.h) */
	cs_test_hooks_install(&cs_test_hooks_env);
#endif
	start_ticker();
	ret = serve(&h);
	release(&h);
	return ret;
}
