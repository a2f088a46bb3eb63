// SPDX-License-Identifier: MIT
/*
 * test-engine-threads-block-signals: every thread the engine starts has every signal blocked,
 * even when the caller blocks none, and the caller's own mask is left as it was. The progress
 * callback and the fake driver's copies run on engine threads and record each thread's mask.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "engine-test.h"

static pthread_t caller;
static atomic_ulong calls, unblocked;

static bool all_blocked(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
				    SIGTERM, SIGCHLD, SIGCONT, SIGTSTP, SIGWINCH, 34, 64 }; /* 34, 64: real-time */
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigismember(&cur, sigs[i]))
			return false;
	return true;
}

static void on_progress(void *arg, unsigned region, uint64_t done, uint64_t total)
{
	(void)arg, (void)region, (void)done, (void)total;
	if (pthread_equal(pthread_self(), caller))
		return;
	atomic_fetch_add(&calls, 1);
	if (!all_blocked())
		atomic_fetch_add(&unblocked, 1);
}

int main(void)
{
	const uint64_t size = 8u << 20;
	struct cs_engine_opts o;
	struct cs_engine_region r;
	struct cs_cuda_ops ops;
	struct et_dir d;
	sigset_t none, after;
	CUdeviceptr src;
	char err[512] = "";
	int ret;

	tap_plan(5);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	caller = pthread_self();
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	fake_cuda_init(&ops);
	cs_engine_opts_default(&o);
	o.chunk_size = 1u << 20;
	o.threads = 4;
	o.pinned_max = 8u << 20;
	o.progress = on_progress;
	src = et_dev(fake_ctx(1), size, ET_DENSE, o.chunk_size, 7);
	et_region(&r, src, size, fake_ctx(1), d.fd, "gpu0.ext");
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "dump returns 0 (%d: %s)", ret, err);
	r.ptr = src;
	ret = cs_engine_restore(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "restore returns 0 (%d: %s)", ret, err);
	tap_ok(atomic_load(&calls) > 0, "engine threads reported progress (%lu calls)", atomic_load(&calls));
	tap_ok(atomic_load(&unblocked) == 0, "every engine thread had every signal blocked (%lu did not)",
	       atomic_load(&unblocked));
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	tap_ok(!sigismember(&after, SIGTERM) && !sigismember(&after, SIGALRM),
	       "the caller's mask is unchanged (nothing blocked)");
	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	et_dir_remove(&d);
	return tap_done();
}
