// SPDX-License-Identifier: MIT
/* helper_link.c - start cudastore-helper and serve it from inside criu (see helper_link.h) */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "criu_run.h"
#include "helper_link.h"
#include "clock.h"
#include "helper_path.h"
#include "log.h"
#include "wire.h"

#define WATCH_INTERVAL_MS 20	/* restore threads are checked for signal stops this often */
#define STOP_WAIT_MS	  30000 /* after BYE: the helper releases the GPUs and exits */

/* cudastore-helper beside this .so, else the option's or the installed one (helper_path.c) */
static int find_helper(const struct cs_options *o, char *path, size_t len, char *err, size_t errlen)
{
	Dl_info di;
	const char *self = dladdr((void *)find_helper, &di) && di.dli_fname && di.dli_fname[0] == '/'
				   ? di.dli_fname
				   : NULL; /* criu may have changed directory since it loaded us */

	return cs_helper_path(o, self, path, len, err, errlen);
}

/* fd onto want, open across exec (fd is first moved out of the way of every target: >= 10) */
static int place_fd(int fd, int want)
{
	return dup2(fd, want) < 0 ? -1 : fcntl(want, F_SETFD, 0);
}

/* In the helper-to-be, after fork: a clean process for exec (fds, signals, session, environment). */
static void exec_helper(const char *path, char **env, int sock, int errpipe)
{
	int high_sock = fcntl(sock, F_DUPFD, 10), high_err = fcntl(errpipe, F_DUPFD, 10);
	int high_stderr = fcntl(STDERR_FILENO, F_DUPFD, 10);
	sigset_t none;
	int sig, fd;

	setsid(); /* a signal for criu's process group (Ctrl-C, a runtime's kill) is not for us */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	if (high_sock < 0 || place_fd(high_sock, CS_HELPER_FD))
		_exit(126);
	/* criu's stderr waits on CS_HELPER_STDERR_FD; the pipe takes fd 2 until the helper's main */
	if (high_stderr >= 0 && high_err >= 0 && !place_fd(high_stderr, CS_HELPER_STDERR_FD))
		place_fd(high_err, STDERR_FILENO);
	/* criu's fds are not the helper's */
	if (syscall(SYS_close_range, CS_HELPER_STDERR_FD + 1, ~0u, 0))
		for (fd = CS_HELPER_STDERR_FD + 1; fd < 65536; fd++)
			close(fd);
	execve(path, (char *[]){ (char *)path, "--criu-fd", "3", NULL }, env);
	{
		struct cs_wire_msg m;
		int n;

		memset(&m, 0, sizeof(m));
		m.type = CS_W_LOG;
		m.arg = CS_LOG_ERROR;
		n = snprintf(m.data, sizeof(m.data), "Error: cudastore: cannot run %s: %s\n", path,
			     strerror(errno));
		m.len = n > 0 && n < (int)sizeof(m.data) ? (uint32_t)n : 0;
		cs_wire_send(CS_HELPER_FD, &m, -1);
	}
	_exit(127);
}

/*
 * The intermediate child exits at once. Where it cannot be waited for (SIGCHLD ignored, or a
 * handler reaped it first) its status is unknown, and the socket tells: the helper answers INIT
 * or its end is closed.
 */
static int wait_child(pid_t child)
{
	int status = 0;

	while (waitpid(child, &status, 0) < 0) {
		if (errno == ECHILD)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

static int spawn(const char *path, char **env, int *sock, int *errfd)
{
	pid_t child, grandchild;
	int sv[2], ep[2], ret;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	child = fork();
	if (child < 0) {
		ret = -errno;
		goto err_close;
	}
	if (child == 0) {
		close(sv[0]);
		close(ep[0]);
		grandchild = fork();
		if (grandchild == 0)
			exec_helper(path, env, sv[1], ep[1]);
		_exit(grandchild < 0 ? 1 : 0);
	}
	close(sv[1]);
	close(ep[1]);
	ret = wait_child(child);
	if (ret) {
		close(sv[0]);
		close(ep[0]);
		return ret;
	}
	*sock = sv[0];
	*errfd = ep[0];
	return 0;

err_close:
	close(sv[0]);
	close(sv[1]);
	close(ep[0]);
	close(ep[1]);
	return ret;
}

/* A helper that did not start: what it (or the loader, before its main) wrote to stderr. */
static void log_helper_stderr(int errfd)
{
	char buf[4096], *line, *save;
	struct pollfd pfd = { .fd = errfd, .events = POLLIN };
	ssize_t n = 0, r;

	/* its end is closed once it exited (or reached main, which then said why on the socket) */
	while (n < (ssize_t)sizeof(buf) - 1 && poll(&pfd, 1, 200) > 0) {
		r = read(errfd, buf + n, sizeof(buf) - 1 - (size_t)n);
		if (r <= 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		cs_err("%s said: %s", CS_HELPER_NAME, line);
}

static struct cs_rthread *rt_slot(struct cs_link *l, pid_t tid, bool create)
{
	struct cs_rthread *free_slot = NULL;
	unsigned i;

	for (i = 0; i < CS_LINK_MAX_RT; i++) {
		if (l->rt[i].tid == tid && tid)
			return &l->rt[i];
		if (!l->rt[i].tid && !free_slot)
			free_slot = &l->rt[i];
	}
	return create ? free_slot : NULL;
}

static int serve_rt(struct cs_link *l, const struct cs_wire_msg *m)
{
	struct cs_rthread *rt = rt_slot(l, m->arg, m->type == CS_W_RT_RUN);
	int ret;

	if (m->arg <= 0)
		ret = -EINVAL;
	else if (m->type == CS_W_RT_RUN && !rt)
		ret = -EMFILE;
	else if (m->type == CS_W_RT_RUN && rt->running)
		ret = -EBUSY;
	else if (m->type == CS_W_RT_RUN)
		ret = cs_rthread_run(rt, m->arg);
	else
		ret = rt ? cs_rthread_stop(rt) : 0;
	if (rt && !rt->running)
		memset(rt, 0, sizeof(*rt));
	return cs_wire_send_simple(l->sock, CS_W_RT_DONE, m->pid, m->arg, ret, 0, -1);
}

/*
 * The helper is gone: no restore thread may stay running behind criu's back. What that means
 * for the dump or the restore is said by the caller, which knows (hooks.c).
 */
static void link_lost(struct cs_link *l, const char *during, int err)
{
	unsigned i;

	if (!l->dead)
		cs_warn("%s (pid %d) is gone during %s (%s); see its messages above and the system log "
			"(the OOM killer?)",
			CS_HELPER_NAME, l->helper, during, strerror(-err));
	l->dead = true;
	for (i = 0; i < CS_LINK_MAX_RT; i++) {
		if (l->rt[i].running)
			cs_rthread_stop(&l->rt[i]);
		memset(&l->rt[i], 0, sizeof(l->rt[i]));
	}
}

static void watch_rthreads(struct cs_link *l)
{
	unsigned i;

	for (i = 0; i < CS_LINK_MAX_RT; i++)
		if (l->rt[i].running && cs_rthread_poll(&l->rt[i]) == -ESRCH)
			memset(&l->rt[i], 0, sizeof(l->rt[i]));
}

unsigned cs_link_op_timeout_ms(const struct cs_options *o)
{
	return o->op_timeout_s > UINT32_MAX / 1000 ? UINT32_MAX : o->op_timeout_s * 1000;
}

/* RECOVERED: where the recovery of one process stands (helper_link.h, struct cs_link_fate) */
static void note_fate(struct cs_link *l, const struct cs_wire_msg *m)
{
	unsigned i;

	for (i = 0; i < l->nfate && l->fate[i].pid != m->pid; i++)
		;
	if (i == l->nfate && i < CS_LINK_MAX_RT)
		l->nfate++;
	if (i < l->nfate)
		l->fate[i] = (struct cs_link_fate){ .pid = m->pid, .ret = m->ret };
}

/*
 * Serve the helper until its DONE; returns DONE's result or -errno of the link: -ETIMEDOUT when
 * it reported no progress for b->stall_ms, or did not answer within b->total_ms (0: no bound).
 */
static int serve(struct cs_link *l, struct cs_wire_msg *m, uint32_t *flags, const struct cs_link_bound *b)
{
	struct pollfd pfd = { .fd = l->sock, .events = POLLIN };
	uint64_t now = cs_now_ns(), stall_ns = (uint64_t)b->stall_ms * 1000000ull;
	uint64_t end = b->total_ms ? now + (uint64_t)b->total_ms * 1000000ull : 0;
	uint64_t moved = now; /* the last sign of progress */
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, WATCH_INTERVAL_MS);
		if (ret < 0 && errno != EINTR)
			return -errno;
		now = cs_now_ns();
		if ((end && now > end) || (stall_ns && now - moved > stall_ns))
			return -ETIMEDOUT;
		if (ret <= 0) {
			watch_rthreads(l);
			continue;
		}
		ret = cs_wire_recv(l->sock, m, NULL);
		if (ret)
			return ret;
		switch (m->type) {
		case CS_W_LOG:
			cs_log_line((unsigned)m->arg, "%.*s", (int)m->len, m->data);
			break;
		case CS_W_PROGRESS:
			moved = cs_now_ns();
			break;
		case CS_W_RECOVERED:
			note_fate(l, m);
			moved = cs_now_ns();
			break;
		case CS_W_RT_RUN:
		case CS_W_RT_STOP:
			moved = cs_now_ns();
			ret = serve_rt(l, m);
			if (ret)
				return ret;
			break;
		case CS_W_DONE:
			if (flags)
				*flags = m->flags;
			return m->ret;
		default:
			return -EPROTO;
		}
	}
}

/* The helper did not answer in time: it is stopped, whatever it is doing (recover.h). */
static void stop_stalled(struct cs_link *l, uint32_t type, pid_t pid, const struct cs_link_bound *b)
{
	char what[64];

	if (pid > 0)
		snprintf(what, sizeof(what), "%s of pid %d", cs_wire_type_name(type), pid);
	else
		snprintf(what, sizeof(what), "%s", cs_wire_type_name(type));
	if (b->total_ms)
		cs_err("%s (pid %d) did not answer %s within %u ms; stopping it", CS_HELPER_NAME, l->helper,
		       what, b->total_ms);
	else
		cs_err("%s (pid %d) made no progress on %s for %u s (op_timeout_s): no byte copied, no "
		       "driver call answered, the target's driver thread idle; stopping it. A process "
		       "whose CUDA driver does not answer (its restore thread stalled) or storage that "
		       "stopped taking data does this: see the messages above",
		       CS_HELPER_NAME, l->helper, what, b->stall_ms / 1000);
	l->timed_out = true;
	if (l->helper > 0)
		kill(l->helper, SIGKILL);
}

static int call(struct cs_link *l, uint32_t type, pid_t pid, int32_t arg, int32_t ret, int fd,
		uint32_t *flags, const struct cs_link_bound *b)
{
	struct cs_wire_msg *m;
	int r;

	if (flags)
		*flags = 0;
	if (l->dead || l->sock < 0)
		return -EIO;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	r = cs_wire_send_simple(l->sock, type, pid, arg, ret, 0, fd);
	if (!r) {
		r = serve(l, m, flags, b);
		if (r == 0 || (r != -ETIMEDOUT && m->type == CS_W_DONE)) {
			free(m);
			return r;
		}
	}
	free(m);
	if (r == -ETIMEDOUT)
		stop_stalled(l, type, pid, b);
	link_lost(l, cs_wire_type_name(type), r);
	return -EIO;
}

int cs_link_call(struct cs_link *l, uint32_t type, pid_t pid, int32_t arg, int32_t ret, int fd,
		 uint32_t *flags, unsigned stall_ms)
{
	struct cs_link_bound b = { .stall_ms = stall_ms };

	return call(l, type, pid, arg, ret, fd, flags, &b);
}

int cs_link_call_within(struct cs_link *l, uint32_t type, pid_t pid, int32_t arg, int32_t ret, int fd,
			uint32_t *flags, unsigned total_ms)
{
	struct cs_link_bound b = { .total_ms = total_ms };

	return call(l, type, pid, arg, ret, fd, flags, &b);
}

_Static_assert(sizeof(struct cs_options) + CS_CRIU_RUN_MAX <= CS_WIRE_DATA, "INIT fits one message");

int cs_link_start(struct cs_link *l, int stage, const struct cs_options *o, const char *run, int dirfd,
		  bool *disabled)
{
	char path[PATH_MAX], err[512], **env;
	struct cs_wire_msg *m;
	uint64_t t0 = cs_now_ns();
	uint32_t flags = 0;
	int ret, errfd = -1;

	memset(l, 0, sizeof(*l));
	l->sock = -1;
	ret = find_helper(o, path, sizeof(path), err, sizeof(err));
	if (ret) {
		cs_err("%s", err);
		return ret;
	}
	env = cs_helper_env();
	ret = env ? spawn(path, env, &l->sock, &errfd) : -ENOMEM;
	free(env);
	if (ret) {
		cs_err("cannot start %s: %s", path, strerror(-ret));
		return ret;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		close(errfd);
		return -ENOMEM;
	}
	m->type = CS_W_INIT;
	m->pid = getpid(); /* the helper finds the restored tree among criu's tracees */
	m->arg = stage;
	m->len = sizeof(*o);
	memcpy(m->data, o, sizeof(*o));
	if (run) { /* the CRIU run id follows the options (wire.h) */
		memcpy(m->data + m->len, run, strlen(run));
		m->len += strlen(run);
	}
	ret = cs_wire_send(l->sock, m, dirfd);
	if (!ret) {
		struct cs_link_bound b = { .stall_ms = cs_link_op_timeout_ms(o) };

		ret = serve(l, m, &flags, &b);
	}
	if (!ret && m->type == CS_W_DONE)
		l->helper = m->pid;
	free(m);
	if (ret)
		log_helper_stderr(errfd);
	close(errfd);
	if (ret) {
		cs_err("%s (%s) did not start: %s", CS_HELPER_NAME, path,
		       ret == -EPIPE ? "it exited; see its message above" : strerror(-ret));
		l->dead = true;
		close(l->sock);
		l->sock = -1;
		return ret < 0 ? ret : -EIO;
	}
	*disabled = flags & CS_WF_DISABLED;
	cs_info("%s running as pid %d, ready in %.1f ms", path, l->helper, (cs_now_ns() - t0) / 1e6);
	return 0;
}

void cs_link_stop(struct cs_link *l)
{
	struct pollfd pfd = { .fd = l->sock, .events = POLLIN };
	struct cs_wire_msg *m;

	if (l->sock < 0)
		return;
	if (!l->dead && !cs_wire_send_simple(l->sock, CS_W_BYE, 0, 0, 0, 0, -1)) {
		m = malloc(sizeof(*m));
		/* drain its last log lines until it closes its end */
		while (m && poll(&pfd, 1, STOP_WAIT_MS) > 0 && !cs_wire_recv(l->sock, m, NULL))
			if (m->type == CS_W_LOG)
				cs_log_line((unsigned)m->arg, "%.*s", (int)m->len, m->data);
		free(m);
	}
	close(l->sock);
	l->sock = -1;
}
