# fragment: see Makefile.am. The tests of no one module: end to end through real CRIU (tests/e2e),
# the documentation against the code (tests/docs), and the tree-wide checks (tests/*.sh). Each
# module's own tests are in the fragment of its folder (tests/MODULE/MODULE-tests.mk).

# what a test program that reaches every layer links
UNIT_TEST_LIBS = $(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) $(LIBCRYPTO_LIBS) -ldl -lpthread

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
	tests/e2e/test-cpu-tree-survives-dump-restore.sh \
	tests/e2e/test-verdict-is-never-one-from-an-earlier-life.sh
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
# each library's own include path lets it compile its layer and those below, nothing else
TESTS += tests/test-layers-compile-probe.sh
dist_check_SCRIPTS += tests/test-layers-compile-probe.sh
# the base, images and engine layers return errors and never log (docs/design.md, "Module map")
TESTS += tests/test-base-images-and-engine-never-log.sh
dist_check_SCRIPTS += tests/test-base-images-and-engine-never-log.sh
# the set-up scripts (scripts/): the demo's set-up installs only what the build needs, no package
# mirror is named in the tree (the machine's own apt sources are read), and two set-ups at once
# take turns on the cache
SETUP_TESTS = tests/test-demo-setup-installs-only-what-the-build-needs.sh \
	tests/test-no-package-mirror-named-in-the-tree.sh tests/test-debian-uri-reads-the-apt-sources.sh \
	tests/test-provide-scripts-take-turns-on-the-cache.sh
TESTS += $(SETUP_TESTS)
dist_check_SCRIPTS += $(SETUP_TESTS)

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
	tests/e2e/test-tree-big-and-small-copies-share-the-engine-by-size.sh \
	tests/e2e/test-tree-restore-shares-the-engine-by-the-bytes-each-reads.sh \
	tests/e2e/test-tree-one-gpu-per-process-custom-at-once.sh \
	tests/e2e/test-tree-one-gpu-per-process-driver-at-once.sh \
	tests/e2e/test-tree-helper-killed-mid-phase-all-4-run-on.sh \
	tests/e2e/test-tree-helper-lost-mid-copy-ends-only-the-copying-process.sh \
	tests/e2e/test-tree-helper-killed-after-complete-all-4-restored-from-extents.sh \
	tests/e2e/test-tree-4-cuda-driver-gpu-phase-at-once.sh \
	tests/e2e/test-criu-cuda-plugin-standin-on-emulator.sh \
	tests/e2e/test-tree-process-3-checkpoint-fails-all-run-on.sh \
	tests/e2e/test-tree-process-3-driver-checkpoint-fails-all-run-on.sh \
	tests/e2e/test-tree-process-3-copy-fails-all-run-on.sh \
	tests/e2e/test-tree-process-3-complete-fails-others-run-on-it-ended.sh \
	tests/e2e/test-tree-checkpoint-then-unlock-fail-process-2-ended-others-run-on.sh \
	tests/e2e/test-tree-criu-killed-mid-copy-all-4-resume.sh \
	tests/e2e/test-tree-flipped-byte-in-process-2-nothing-resumes.sh \
	tests/e2e/test-restore-onto-other-gpus.sh \
	tests/e2e/test-restore-by-ordinal-map.sh \
	tests/e2e/test-tree-of-4-on-8-gpus-placed-every-way-custom.sh \
	tests/e2e/test-tree-of-4-on-8-gpus-placed-every-way-driver.sh \
	tests/e2e/test-check-images-verdict-equals-restore-on-12-hosts.sh \
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
	tests/e2e/test-recovery-helper-killed-twice-process-runs-on.sh \
	tests/e2e/test-helper-killed-after-a-successful-dump-loses-nothing.sh \
	tests/e2e/test-slow-dump-that-progresses-outlives-op-timeout.sh \
	tests/e2e/test-stalled-restore-thread-dump-fails-in-bounded-time.sh \
	tests/e2e/test-stalled-driver-with-defaults-ends-within-a-minute.sh \
	tests/e2e/test-tree-stalled-driver-root-ended-with-its-tree.sh \
	tests/e2e/test-cuda-ipc-on-old-driver-refused-before-lock.sh \
	tests/e2e/test-tree-on-old-driver-refused-before-any-lock.sh \
	tests/e2e/test-leave-running-unresumable-process-ended-not-left-hung.sh \
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
	tests/e2e/test-earlier-image-set-beside-later-criu-dump-refused.sh \
	tests/e2e/test-stray-etc-config-ignored.sh \
	tests/e2e/test-format-1.0-images-restore.sh \
	tests/e2e/test-leave-running-known-every-way.sh \
	tests/e2e/test-leave-running-observed-without-layout.sh \
	tests/e2e/test-criu43-options-read-through-its-layout.sh \
	tests/e2e/test-freeze-cgroup-kept-without-cuda.sh \
	tests/e2e/test-freeze-cgroup-finds-driver-under-another-library-name.sh \
	tests/e2e/test-unsupported-criu-modes-refused.sh \
	tests/e2e/test-runc-checkpoint-restore.sh \
	tests/e2e/test-runc-leave-running.sh \
	tests/e2e/test-runc-restore-helper-killed-fails-in-bounded-time.sh \
	tests/e2e/test-runc-tree-cuda-and-cpu-children.sh \
	tests/e2e/test-runc-restore-into-another-device-set.sh \
	tests/e2e/test-runc-container-untouched-by-mounts-made-beside-the-test.sh \
	tests/e2e/test-podman-checkpoint-export-import.sh \
	tests/e2e/test-podman-export-import-across-emulated-hosts.sh \
	tests/e2e/test-podman-export-of-a-child-dump-restores-on-another-host.sh \
	tests/e2e/test-crun-checkpoint-restore.sh \
	tests/e2e/test-crun-leave-running.sh \
	tests/e2e/test-containerd-ctr-checkpoint-restore.sh \
	tests/e2e/test-striped-tmpfs-prefetch.sh \
	tests/e2e/test-tmpfs-readback-dump-restores-byte-exact.sh \
	$(E2E_CHUNK_TESTS)
# chunked images and incremental dumps (docs/image-format.md section 10)
E2E_CHUNK_TESTS = \
	tests/e2e/test-incremental-child-dump-restores-without-parent.sh \
	tests/e2e/test-incremental-child-needs-space-only-for-what-changed.sh \
	tests/e2e/test-incremental-restore-from-tmpfs-maps-chunk-files.sh \
	tests/e2e/test-incremental-child-dump-hashes-on-gpu-skips-copy.sh \
	tests/e2e/test-incremental-first-dump-hashes-on-gpu-copies-no-zero-chunk.sh \
	tests/e2e/test-incremental-wrong-gpu-ids-fail-the-dump-process-runs-on.sh \
	tests/e2e/test-incremental-prev-images-dir-names-the-parent.sh \
	tests/e2e/test-incremental-bad-parent-refused-before-lock.sh \
	tests/e2e/test-incremental-child-dump-killed-parent-and-store-intact.sh \
	tests/e2e/test-incremental-10-processes-share-one-store.sh \
	tests/e2e/test-incremental-cli-inspect-verify-gc.sh
TESTS += $(E2E_GPU_TESTS)
# Both run emulated CUDA processes as pid 1 of a pid namespace, and the emulator names its socket
# by the ns pid in the one network namespace: never run them at the same time (make -j check).
# (through a variable, so automake still generates the test's own rule)
E2E_NS1_AFTER = tests/e2e/test-reused-images-dir-stale-files.sh.log
$(E2E_NS1_AFTER): tests/e2e/test-container-pid-namespace.sh.log
dist_check_SCRIPTS += $(E2E_GPU_TESTS) tests/e2e/roundtrip.sh tests/e2e/tree.sh tests/e2e/placement.sh tests/e2e/helper-killed.sh tests/e2e/guardian.sh \
	tests/e2e/runc-lib.sh tests/e2e/crun-lib.sh tests/e2e/containerd-lib.sh tests/e2e/podman-hosts.sh \
	tests/e2e/runtime-checkpoint-restore.sh tests/e2e/runtime-leave-running.sh tests/e2e/chunks-lib.sh tests/e2e/chunk-ids.py

# GPU-host tools (built by make-gpu-artifacts.sh; not run by make check)
check_PROGRAMS += tests/gpu/cs-driver-timing
tests_gpu_cs_driver_timing_SOURCES = tests/gpu/driver-timing.c
tests_gpu_cs_driver_timing_LDADD = $(CS_ALL_LIBS) -ldl -lpthread
# NVIDIA's cuda-checkpoint command line made of the same driver calls, for CRIU's cuda plugin
# where NVIDIA's binary is absent (run-gpu-suite.sh's tree-4x4g, the e2e test below)
check_PROGRAMS += tests/gpu/cuda-checkpoint-standin
tests_gpu_cuda_checkpoint_standin_SOURCES = tests/gpu/cuda-checkpoint-standin.c
tests_gpu_cuda_checkpoint_standin_LDADD = $(CS_ALL_LIBS) -ldl -lpthread
EXTRA_DIST += tests/gpu/run-gpu-suite.sh tests/gpu/run-hash-bench.sh tests/gpu/run-runc-gpu.sh tests/gpu/run-ipc-probe.sh tests/gpu/cuda-ipc-pair.cu

# the documentation against the code: the man pages and the example list exactly the option table,
# every line of the example parses when uncommented, and every repository path that a document
# or a C comment names exists
check_PROGRAMS += tests/docs/cs-option-keys
tests_docs_cs_option_keys_SOURCES = tests/docs/cs-option-keys.c tests/log-stderr.c
tests_docs_cs_option_keys_LDADD = $(UNIT_TEST_LIBS)
DOC_TESTS = tests/docs/test-man-lists-every-option.sh tests/docs/test-every-path-the-docs-name-exists.sh \
	tests/docs/test-example-config-lines-each-parse.sh tests/test-install-under-prefix.sh
TESTS += $(DOC_TESTS)
dist_check_SCRIPTS += $(DOC_TESTS)

# what root runs: the helper's environment, a FIFO as log, untrusted files (tests/base and
# tests/criu hold the unit tests of the same)
E2E_TRUST_TESTS = \
	tests/e2e/test-guardian-fifo-as-log-does-not-block.sh \
	tests/e2e/test-untrusted-helper-or-libcuda-refused.sh \
	tests/e2e/test-helper-gets-a-clean-environment.sh \
	tests/e2e/test-helper-that-cannot-start-says-why.sh \
	tests/test-installed-helper-has-no-test-hooks.sh
TESTS += $(E2E_TRUST_TESTS)
dist_check_SCRIPTS += $(E2E_TRUST_TESTS)
