# fragment: see Makefile.am
# ===== tests/criu: the plugin's side inside criu (plugin/criu/), without CRIU or a GPU ===========
# criu's options read through a layout (criu_opts.c, libcscriu.a; also under ASan + UBSan)
CRIU_UNIT_TESTS = tests/criu/test-criu-opts tests/criu/test-rthread-errors-return-the-call-errno
check_PROGRAMS += $(CRIU_UNIT_TESTS)
TESTS += $(CRIU_UNIT_TESTS)
tests_criu_test_criu_opts_SOURCES = tests/criu/test-criu-opts.c tests/log-stderr.c
tests_criu_test_criu_opts_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_criu_test_criu_opts_LDADD = $(UNIT_TEST_LIBS)

# the helper's start (helper_link.c's spawn, compiled into the test) when its child is reaped
CRIU_SPAWN_TESTS = tests/criu/test-helper-spawn-when-child-reaped
check_PROGRAMS += $(CRIU_SPAWN_TESTS)
TESTS += $(CRIU_SPAWN_TESTS)
tests_criu_test_helper_spawn_when_child_reaped_SOURCES = tests/criu/test-helper-spawn-when-child-reaped.c tests/log-stderr.c
tests_criu_test_helper_spawn_when_child_reaped_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_criu_test_helper_spawn_when_child_reaped_LDADD = $(UNIT_TEST_LIBS)

# the plugin's hook count follows the criu that loads it (hooks.c): as criu 4.0/4.1 and as 4.2
MAXHOOK_TESTS = tests/criu/test-plugin-max-hooks-41 tests/criu/test-plugin-max-hooks-42
check_PROGRAMS += $(MAXHOOK_TESTS)
TESTS += $(MAXHOOK_TESTS)
tests_criu_test_plugin_max_hooks_41_SOURCES = tests/criu/test-plugin-max-hooks.c tests/tap.h
tests_criu_test_plugin_max_hooks_41_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_criu_test_plugin_max_hooks_41_LDFLAGS = -rdynamic
tests_criu_test_plugin_max_hooks_41_LDADD = -ldl
tests_criu_test_plugin_max_hooks_42_SOURCES = tests/criu/test-plugin-max-hooks.c tests/tap.h
tests_criu_test_plugin_max_hooks_42_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -DCS_AS_CRIU_42
tests_criu_test_plugin_max_hooks_42_LDFLAGS = -rdynamic
tests_criu_test_plugin_max_hooks_42_LDADD = -ldl

# rthread.c's failures answer the failed call's errno, whatever the log did to errno
tests_criu_test_rthread_errors_return_the_call_errno_SOURCES = tests/criu/test-rthread-errors-return-the-call-errno.c \
	plugin/criu/rthread.c
tests_criu_test_rthread_errors_return_the_call_errno_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_criu_test_rthread_errors_return_the_call_errno_LDADD = $(UNIT_TEST_LIBS)
