# end-to-end tests through real CRIU, and tests of the plugin core

# the config file every test reads unless it names its own (AM_TESTS_ENVIRONMENT; e2e tests write
# one per test in lib.sh): a stray /etc/cudastore/cudastore.conf never changes what the suite does
check_DATA = tests/cudastore-test.conf
CLEANFILES += tests/cudastore-test.conf
tests/cudastore-test.conf: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests && echo '# make check: built-in defaults only' >$@ && chmod 0644 $@
check_PROGRAMS += tests/e2e/cpu-tree
tests_e2e_cpu_tree_SOURCES = tests/e2e/cpu-tree.c

dist_check_SCRIPTS += tests/e2e/lib.sh
E2E_TESTS = \
	tests/e2e/test-cpu-tree-survives-dump-restore.sh
TESTS += $(E2E_TESTS)
dist_check_SCRIPTS += $(E2E_TESTS)

check_PROGRAMS += tests/e2e/cs-manifest-tool
tests_e2e_cs_manifest_tool_SOURCES = tests/e2e/cs-manifest-tool.c
nodist_tests_e2e_cs_manifest_tool_SOURCES = proto/cudastore.pb-c.c
tests_e2e_cs_manifest_tool_LDADD = $(PROTOBUF_C_LIBS)

check_PROGRAMS += tests/e2e/criu-rpc
tests_e2e_criu_rpc_SOURCES = tests/e2e/criu-rpc.c

TESTS += tests/test-plugin-exports-one-symbol.sh
dist_check_SCRIPTS += tests/test-plugin-exports-one-symbol.sh
# no module includes a header from a layer above its own (docs/design.md, "Module map")
TESTS += tests/test-layers-include-only-below.sh
dist_check_SCRIPTS += tests/test-layers-include-only-below.sh
# the images and engine layers return errors and never log (docs/design.md, "Module map")
TESTS += tests/test-images-and-engine-never-log.sh
dist_check_SCRIPTS += tests/test-images-and-engine-never-log.sh

E2E_GPU_TESTS = \
	tests/e2e/test-custom-1gpu-1mib.sh \
	tests/e2e/test-custom-1gpu-64mib-zero75.sh \
	tests/e2e/test-custom-1gpu-1gib.sh \
	tests/e2e/test-custom-2gpu-shuffled.sh \
	tests/e2e/test-restore-warmup.sh \
	tests/e2e/test-dump-prepares-before-lock.sh \
	tests/e2e/test-custom-4gpu-shuffled.sh \
	tests/e2e/test-driver-mode-forced.sh \
	tests/e2e/test-auto-on-cuda13.0-picks-driver.sh \
	tests/e2e/test-custom-on-cuda13.0-refused-before-lock.sh \
	tests/e2e/test-leave-running-dump-twice.sh \
	tests/e2e/test-rollback-ignores-images-forged-during-dump.sh \
	tests/e2e/test-tree-two-cuda-one-cpu.sh \
	tests/e2e/test-tree-4-cuda-custom-gpu-phase-at-once.sh \
	tests/e2e/test-tree-4-cuda-driver-gpu-phase-at-once.sh \
	tests/e2e/test-criu-cuda-plugin-standin-on-emulator.sh \
	tests/e2e/test-tree-process-3-checkpoint-fails-all-run-on.sh \
	tests/e2e/test-tree-process-3-driver-checkpoint-fails-all-run-on.sh \
	tests/e2e/test-tree-process-3-copy-fails-all-run-on.sh \
	tests/e2e/test-tree-criu-killed-mid-copy-all-4-resume.sh \
	tests/e2e/test-tree-flipped-byte-in-process-2-nothing-resumes.sh \
	tests/e2e/test-restore-onto-other-gpus.sh \
	tests/e2e/test-flipped-byte-refused-then-intact-restores.sh \
	tests/e2e/test-damaged-images-rejected.sh \
	tests/e2e/test-images-dir-too-small-refused-before-lock.sh \
	tests/e2e/test-space-check-off-dumps-mostly-zero-memory-into-small-dir.sh \
	tests/e2e/test-images-dir-fills-mid-dump.sh \
	tests/e2e/test-lock-timeout-leaves-process-running.sh \
	tests/e2e/test-dump-driver-call-failures.sh \
	tests/e2e/test-restore-driver-call-failures.sh \
	tests/e2e/test-container-pid-namespace.sh \
	tests/e2e/test-custom-image-on-cuda13.0-refused.sh \
	tests/e2e/test-restore-without-plugin-refused.sh \
	tests/e2e/test-criu-stays-single-threaded.sh \
	tests/e2e/test-guardian-dump-after-lock.sh \
	tests/e2e/test-guardian-dump-copy-out.sh \
	tests/e2e/test-guardian-dump-after-complete.sh \
	tests/e2e/test-guardian-dump-exit-hook.sh \
	tests/e2e/test-guardian-restore.sh \
	tests/e2e/test-helper-killed-after-lock-process-runs-on.sh \
	tests/e2e/test-stalled-restore-thread-dump-fails-in-bounded-time.sh \
	tests/e2e/test-cuda-ipc-on-old-driver-refused-before-lock.sh \
	tests/e2e/test-helper-leaves-restored-workloads-memory-cgroup.sh \
	tests/e2e/test-helper-killed-mid-copy-process-ended-not-hung.sh \
	tests/e2e/test-helper-killed-after-complete-restored-from-extents.sh \
	tests/e2e/test-helper-killed-after-driver-checkpoint-process-runs-on.sh \
	tests/e2e/test-sigstop-during-restore.sh \
	tests/e2e/test-signals-during-dump-and-restore.sh \
	tests/e2e/test-seccomp-filter-stays-active.sh \
	tests/e2e/test-rescue-copy-failure-frees-memory.sh \
	tests/e2e/test-bad-option-combination-refused-at-init.sh \
	tests/e2e/test-restore-big-chunks-with-small-pinned-bound.sh \
	tests/e2e/test-missing-manifest-refused.sh \
	tests/e2e/test-reused-images-dir-stale-files.sh \
	tests/e2e/test-stray-etc-config-ignored.sh \
	tests/e2e/test-format-1.0-images-restore.sh \
	tests/e2e/test-leave-running-known-every-way.sh \
	tests/e2e/test-leave-running-observed-without-layout.sh \
	tests/e2e/test-criu43-leave-running-observed.sh \
	tests/e2e/test-freeze-cgroup-kept-without-cuda.sh \
	tests/e2e/test-unsupported-criu-modes-refused.sh \
	tests/e2e/test-runc-checkpoint-restore.sh \
	tests/e2e/test-runc-leave-running.sh \
	tests/e2e/test-runc-restore-helper-killed-fails-in-bounded-time.sh \
	tests/e2e/test-runc-tree-cuda-and-cpu-children.sh \
	tests/e2e/test-podman-checkpoint-export-import.sh \
	tests/e2e/test-crun-checkpoint-restore.sh \
	tests/e2e/test-crun-leave-running.sh \
	tests/e2e/test-striped-tmpfs-prefetch.sh
TESTS += $(E2E_GPU_TESTS)
# Both run emulated CUDA processes as pid 1 of a pid namespace, and the emulator names its socket
# by the ns pid in the one network namespace: never run them at the same time (make -j check).
# (through a variable, so automake still generates the test's own rule)
E2E_NS1_AFTER = tests/e2e/test-reused-images-dir-stale-files.sh.log
$(E2E_NS1_AFTER): tests/e2e/test-container-pid-namespace.sh.log
dist_check_SCRIPTS += $(E2E_GPU_TESTS) tests/e2e/roundtrip.sh tests/e2e/tree.sh tests/e2e/helper-killed.sh tests/e2e/guardian.sh \
	tests/e2e/runc-lib.sh tests/e2e/crun-lib.sh \
	tests/e2e/runtime-checkpoint-restore.sh tests/e2e/runtime-leave-running.sh

# GPU-host tools (built by make-gpu-artifacts.sh; not run by make check)
check_PROGRAMS += tests/gpu/cs-driver-timing
tests_gpu_cs_driver_timing_SOURCES = tests/gpu/driver-timing.c
tests_gpu_cs_driver_timing_LDADD = $(CS_ALL_LIBS) -ldl -lpthread
# NVIDIA's cuda-checkpoint command line made of the same driver calls, for CRIU's cuda plugin
# where NVIDIA's binary is absent (run-gpu-suite.sh's tree-4x4g, the e2e test below)
check_PROGRAMS += tests/gpu/cuda-checkpoint-standin
tests_gpu_cuda_checkpoint_standin_SOURCES = tests/gpu/cuda-checkpoint-standin.c
tests_gpu_cuda_checkpoint_standin_LDADD = $(CS_ALL_LIBS) -ldl -lpthread
EXTRA_DIST += tests/gpu/run-gpu-suite.sh tests/gpu/run-runc-gpu.sh

# plugin core unit tests (no CRIU, no GPU)
CORE_TESTS = tests/core/test-options-env-and-file tests/core/test-device-plan-restore \
	tests/core/test-criu-opts tests/core/test-isolate-cgroup-lines
check_PROGRAMS += $(CORE_TESTS)
TESTS += $(CORE_TESTS)
CORE_TEST_LIBS = $(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) -ldl -lpthread
tests_core_test_options_env_and_file_SOURCES = tests/core/test-options-env-and-file.c tests/log-stderr.c tests/tap.h
tests_core_test_options_env_and_file_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_options_env_and_file_LDADD = $(CORE_TEST_LIBS)
tests_core_test_device_plan_restore_SOURCES = tests/core/test-device-plan-restore.c tests/log-stderr.c
tests_core_test_device_plan_restore_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_device_plan_restore_LDADD = $(CORE_TEST_LIBS)
tests_core_test_criu_opts_SOURCES = tests/core/test-criu-opts.c tests/log-stderr.c
tests_core_test_criu_opts_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_criu_opts_LDADD = $(CORE_TEST_LIBS)
tests_core_test_isolate_cgroup_lines_SOURCES = tests/core/test-isolate-cgroup-lines.c tests/log-stderr.c
tests_core_test_isolate_cgroup_lines_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_isolate_cgroup_lines_LDADD = $(CORE_TEST_LIBS)

# the plugin's hook count follows the criu that loads it (hooks.c): as criu 4.0/4.1 and as 4.2
MAXHOOK_TESTS = tests/core/test-plugin-max-hooks-41 tests/core/test-plugin-max-hooks-42
check_PROGRAMS += $(MAXHOOK_TESTS)
TESTS += $(MAXHOOK_TESTS)
tests_core_test_plugin_max_hooks_41_SOURCES = tests/core/test-plugin-max-hooks.c tests/tap.h
tests_core_test_plugin_max_hooks_41_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_plugin_max_hooks_41_LDFLAGS = -rdynamic
tests_core_test_plugin_max_hooks_41_LDADD = -ldl
tests_core_test_plugin_max_hooks_42_SOURCES = tests/core/test-plugin-max-hooks.c tests/tap.h
tests_core_test_plugin_max_hooks_42_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -DCS_AS_CRIU_42
tests_core_test_plugin_max_hooks_42_LDFLAGS = -rdynamic
tests_core_test_plugin_max_hooks_42_LDADD = -ldl

# our CUDA declarations against NVIDIA's cuda.h, when configure found one
if HAVE_CUDA_H
check_PROGRAMS += tests/core/test-cuda-abi-matches-cuda-h
TESTS += tests/core/test-cuda-abi-matches-cuda-h
tests_core_test_cuda_abi_matches_cuda_h_SOURCES = tests/core/test-cuda-abi-matches-cuda-h.c \
	tests/core/cuda-abi-ours.c tests/core/cuda-abi.h
tests_core_test_cuda_abi_matches_cuda_h_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/tests/core
tests_core_test_cuda_abi_matches_cuda_h_LDADD = tests/core/libcudah.a
check_LIBRARIES += tests/core/libcudah.a
tests_core_libcudah_a_SOURCES = tests/core/cuda-abi-cuda-h.c
tests_core_libcudah_a_CPPFLAGS = $(CUDA_H_CFLAGS) -I$(top_srcdir)/tests/core
endif

# the documentation against the code: the man pages and the example list exactly the option table
check_PROGRAMS += tests/docs/cs-option-keys
tests_docs_cs_option_keys_SOURCES = tests/docs/cs-option-keys.c tests/log-stderr.c
tests_docs_cs_option_keys_LDADD = $(CORE_TEST_LIBS)
DOC_TESTS = tests/docs/test-man-lists-every-option.sh tests/test-install-under-prefix.sh
TESTS += $(DOC_TESTS)
dist_check_SCRIPTS += $(DOC_TESTS)

# what root runs and opens: the helper's start, its environment, files planted in the images dir
TRUST_CORE_TESTS = tests/core/test-helper-spawn-when-child-reaped tests/core/test-trust-path-and-option-paths
check_PROGRAMS += $(TRUST_CORE_TESTS)
TESTS += $(TRUST_CORE_TESTS)
tests_core_test_helper_spawn_when_child_reaped_SOURCES = tests/core/test-helper-spawn-when-child-reaped.c tests/log-stderr.c
tests_core_test_helper_spawn_when_child_reaped_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_helper_spawn_when_child_reaped_LDADD = $(CORE_TEST_LIBS)
tests_core_test_trust_path_and_option_paths_SOURCES = tests/core/test-trust-path-and-option-paths.c tests/log-stderr.c
tests_core_test_trust_path_and_option_paths_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_core_test_trust_path_and_option_paths_LDADD = $(CORE_TEST_LIBS)
E2E_TRUST_TESTS = \
	tests/e2e/test-guardian-fifo-as-log-does-not-block.sh \
	tests/e2e/test-untrusted-helper-or-libcuda-refused.sh \
	tests/e2e/test-helper-gets-a-clean-environment.sh \
	tests/test-installed-helper-has-no-test-hooks.sh
TESTS += $(E2E_TRUST_TESTS)
dist_check_SCRIPTS += $(E2E_TRUST_TESTS)
