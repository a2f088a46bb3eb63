# fragment: see Makefile.am
# ===== tests/helper: cudastore-helper's modules, without CRIU or a GPU (also under ASan + UBSan) ==
# restore device planning (devices.c, also as a table of cases); the image-set rules (imgset.c);
# the helper's memory cgroup read from /proc (isolate.c); work told from a wait in the processes
# it watches (progress.c); what criu did to a dumped process, read from all its threads
# (task_fate.c)
HELPER_UNIT_TESTS = tests/helper/test-device-plan-restore tests/helper/test-device-plan-table \
	tests/helper/test-imgset-rules tests/helper/test-isolate-cgroup-lines \
	tests/helper/test-progress-tells-work-from-a-wait \
	tests/helper/test-task-fate-sees-a-stop-any-thread-took $(HELPER_FAKE_TESTS)
check_PROGRAMS += $(HELPER_UNIT_TESTS)
TESTS += $(HELPER_UNIT_TESTS)

# The helper's library on the fake driver (tests/engine/fake-cuda.h), linked without the
# program's own files (helper_main.c, criu_link.c, test_hooks_env.c): helper-unit.h gives each a
# context, child processes for targets, and a log sink and criu door that record.
HELPER_FAKE_TESTS = tests/helper/test-helper-library-links-without-its-program \
	tests/helper/test-batch-split-by-bytes tests/helper/test-rollback-decisions \
	tests/helper/test-recovery-decisions
HELPER_FAKE_SOURCES = tests/helper/helper-unit.c tests/helper/helper-unit.h tests/tap.h
HELPER_FAKE_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/tests/engine
HELPER_FAKE_LDADD = tests/engine/libenginetest.a $(CS_HELPER_LIBS) $(PROTOBUF_C_LIBS) $(JSON_C_LIBS) $(LIBCRYPTO_LIBS) \
	-lpthread -ldl
tests_helper_test_helper_library_links_without_its_program_SOURCES = \
	tests/helper/test-helper-library-links-without-its-program.c $(HELPER_FAKE_SOURCES)
tests_helper_test_helper_library_links_without_its_program_CPPFLAGS = $(HELPER_FAKE_CPPFLAGS)
tests_helper_test_helper_library_links_without_its_program_LDADD = $(HELPER_FAKE_LDADD)
tests_helper_test_device_plan_restore_SOURCES = tests/helper/test-device-plan-restore.c tests/log-stderr.c
tests_helper_test_device_plan_restore_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_helper_test_device_plan_restore_LDADD = $(UNIT_TEST_LIBS)
tests_helper_test_device_plan_table_SOURCES = tests/helper/test-device-plan-table.c tests/log-stderr.c tests/tap.h
tests_helper_test_device_plan_table_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_helper_test_device_plan_table_LDADD = $(UNIT_TEST_LIBS)
tests_helper_test_imgset_rules_SOURCES = tests/helper/test-imgset-rules.c tests/images/unit.c tests/images/unit.h \
	tests/log-stderr.c tests/tap.h
tests_helper_test_imgset_rules_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/tests/images
tests_helper_test_imgset_rules_LDADD = $(UNIT_TEST_LIBS) $(JSON_C_LIBS)
tests_helper_test_isolate_cgroup_lines_SOURCES = tests/helper/test-isolate-cgroup-lines.c tests/log-stderr.c
tests_helper_test_isolate_cgroup_lines_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_helper_test_isolate_cgroup_lines_LDADD = $(UNIT_TEST_LIBS)
tests_helper_test_progress_tells_work_from_a_wait_SOURCES = tests/helper/test-progress-tells-work-from-a-wait.c \
	tests/log-stderr.c
tests_helper_test_progress_tells_work_from_a_wait_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_helper_test_progress_tells_work_from_a_wait_LDADD = $(UNIT_TEST_LIBS)
tests_helper_test_task_fate_sees_a_stop_any_thread_took_SOURCES = \
	tests/helper/test-task-fate-sees-a-stop-any-thread-took.c tests/log-stderr.c tests/tap.h
tests_helper_test_task_fate_sees_a_stop_any_thread_took_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_helper_test_task_fate_sees_a_stop_any_thread_took_LDADD = $(UNIT_TEST_LIBS)

# the same helper, installing the test hooks of plugin/helper/test_hooks_env.c at start-up, for
# make check only (tests/e2e/lib.sh installs it as cudastore-helper beside the test's plugin);
# never installed
check_PROGRAMS += cudastore-helper-test
cudastore_helper_test_SOURCES = $(HELPER_SOURCES) plugin/helper/test_hooks_env.c plugin/helper/test_hooks_env.h
cudastore_helper_test_CPPFLAGS = $(cudastore_helper_CPPFLAGS) -DCS_HELPER_TEST_HOOKS
cudastore_helper_test_LDADD = $(cudastore_helper_LDADD)
tests_helper_test_batch_split_by_bytes_SOURCES = tests/helper/test-batch-split-by-bytes.c $(HELPER_FAKE_SOURCES)
tests_helper_test_batch_split_by_bytes_CPPFLAGS = $(HELPER_FAKE_CPPFLAGS)
tests_helper_test_batch_split_by_bytes_LDADD = $(HELPER_FAKE_LDADD)
tests_helper_test_rollback_decisions_SOURCES = tests/helper/test-rollback-decisions.c $(HELPER_FAKE_SOURCES)
tests_helper_test_rollback_decisions_CPPFLAGS = $(HELPER_FAKE_CPPFLAGS)
tests_helper_test_rollback_decisions_LDADD = $(HELPER_FAKE_LDADD)
tests_helper_test_recovery_decisions_SOURCES = tests/helper/test-recovery-decisions.c tests/images/unit.c \
	tests/images/unit.h $(HELPER_FAKE_SOURCES)
tests_helper_test_recovery_decisions_CPPFLAGS = $(HELPER_FAKE_CPPFLAGS) -I$(top_srcdir)/tests/images
tests_helper_test_recovery_decisions_LDADD = $(HELPER_FAKE_LDADD)
