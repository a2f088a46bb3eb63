# fragment: see Makefile.am
# ===== tests/base: the shared layer (plugin/*.c, include/cudastore/): no CRIU, no GPU ==========
# options from defaults, file and environment; a full LOG record on the wire; log lines through
# the sink registered at run time (also under ASan + UBSan: checks.mk)
BASE_UNIT_TESTS = tests/base/test-options-env-and-file tests/base/test-wire-full-log-record-terminated \
	tests/base/test-log-sink-registered-at-run-time
check_PROGRAMS += $(BASE_UNIT_TESTS)
TESTS += $(BASE_UNIT_TESTS)
tests_base_test_options_env_and_file_SOURCES = tests/base/test-options-env-and-file.c tests/log-stderr.c tests/tap.h
tests_base_test_options_env_and_file_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_options_env_and_file_LDADD = $(UNIT_TEST_LIBS)
tests_base_test_wire_full_log_record_terminated_SOURCES = tests/base/test-wire-full-log-record-terminated.c \
	tests/tap.h tests/log-stderr.c
tests_base_test_wire_full_log_record_terminated_LDADD = $(UNIT_TEST_LIBS)

# log.c's sinks: the test registers its own, so it links no tests/log-stderr.c
tests_base_test_log_sink_registered_at_run_time_SOURCES = tests/base/test-log-sink-registered-at-run-time.c \
	tests/tap.h
tests_base_test_log_sink_registered_at_run_time_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_log_sink_registered_at_run_time_LDADD = libcsbase.a

# the base layer's small shared pieces: the clock, CUDA state names, criu's version
check_PROGRAMS += tests/base/test-base-clock-state-criu-version
TESTS += tests/base/test-base-clock-state-criu-version
tests_base_test_base_clock_state_criu_version_SOURCES = tests/base/test-base-clock-state-criu-version.c \
	tests/log-stderr.c tests/tap.h
tests_base_test_base_clock_state_criu_version_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_base_clock_state_criu_version_LDADD = $(UNIT_TEST_LIBS)

# /proc: a SIGSTOP queued for a process that has not stopped yet (criu's -s seen by the helper)
check_PROGRAMS += tests/base/test-procfs-key-numbers
TESTS += tests/base/test-procfs-key-numbers
tests_base_test_procfs_key_numbers_SOURCES = tests/base/test-procfs-key-numbers.c tests/log-stderr.c tests/tap.h
tests_base_test_procfs_key_numbers_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_procfs_key_numbers_LDADD = $(UNIT_TEST_LIBS)
check_PROGRAMS += tests/base/test-procfs-stop-pending
TESTS += tests/base/test-procfs-stop-pending
tests_base_test_procfs_stop_pending_SOURCES = tests/base/test-procfs-stop-pending.c tests/log-stderr.c tests/tap.h
tests_base_test_procfs_stop_pending_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_procfs_stop_pending_LDADD = $(UNIT_TEST_LIBS)
# /proc: a CUDA process told by the driver's device files it maps or holds open, on fake /proc
# directories (a parser of text from outside: also under ASan + UBSan, checks.mk)
BASE_UNIT_TESTS += tests/base/test-procfs-cuda-driver
tests_base_test_procfs_cuda_driver_SOURCES = tests/base/test-procfs-cuda-driver.c tests/log-stderr.c tests/tap.h
tests_base_test_procfs_cuda_driver_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_procfs_cuda_driver_LDADD = $(UNIT_TEST_LIBS)

# what root runs and opens: the trust walk and the paths options name
BASE_TRUST_TESTS = tests/base/test-trust-path-and-option-paths
check_PROGRAMS += $(BASE_TRUST_TESTS)
TESTS += $(BASE_TRUST_TESTS)
tests_base_test_trust_path_and_option_paths_SOURCES = tests/base/test-trust-path-and-option-paths.c tests/log-stderr.c
tests_base_test_trust_path_and_option_paths_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_trust_path_and_option_paths_LDADD = $(UNIT_TEST_LIBS)

# our CUDA declarations (include/cudastore/cuda_api.h) against NVIDIA's cuda.h, when configure found one
if HAVE_CUDA_H
check_PROGRAMS += tests/base/test-cuda-abi-matches-cuda-h
TESTS += tests/base/test-cuda-abi-matches-cuda-h
tests_base_test_cuda_abi_matches_cuda_h_SOURCES = tests/base/test-cuda-abi-matches-cuda-h.c \
	tests/base/cuda-abi-ours.c tests/base/cuda-abi.h
tests_base_test_cuda_abi_matches_cuda_h_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/tests/base
tests_base_test_cuda_abi_matches_cuda_h_LDADD = tests/base/libcudah.a
check_LIBRARIES += tests/base/libcudah.a
tests_base_libcudah_a_SOURCES = tests/base/cuda-abi-cuda-h.c
tests_base_libcudah_a_CPPFLAGS = $(CUDA_H_CFLAGS) -I$(top_srcdir)/tests/base
endif

# what the cudastore command prints in a UTF-8 locale (strsafe.h): UTF-8 kept, controls escaped
BASE_UNIT_TESTS += tests/base/test-strsafe-utf8-kept-controls-escaped
tests_base_test_strsafe_utf8_kept_controls_escaped_SOURCES = tests/base/test-strsafe-utf8-kept-controls-escaped.c \
	tests/log-stderr.c tests/tap.h
tests_base_test_strsafe_utf8_kept_controls_escaped_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_base_test_strsafe_utf8_kept_controls_escaped_LDADD = $(UNIT_TEST_LIBS)
