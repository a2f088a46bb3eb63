# fragment: see Makefile.am. Continuous checks (docs/testing.md, "Continuous checks"); included
# right after tests.mk, before the emulator and engine tests, so that these long tests start
# early under make -j.
# ----- ASan + UBSan: a second build tree ($(top_builddir)/sanitizers) runs these tests -----
SANITIZER_TESTS = tests/fuzz/fuzz-replay $(CS_UNIT_TESTS) $(CORE_TESTS) $(ENGINE_TESTS) tests/engine/test-bench-fake.sh \
	$(EMU_TESTS) tests/emu/test-emu-criu.sh $(SANITIZER_E2E_TESTS)
# e2e scenarios through real criu with the sanitized cudastore-helper, emulator and workload; criu
# loads the uninstrumented plugin .so of the tree that runs test-sanitizers.sh (CS_TEST_PLUGIN_SO):
# dump and restore on 2 GPUs, leave-running, refusals, driver-call failures, criu killed mid-dump
# and mid-restore (the guardian), striped images with restore prefetch, the restore warm-up's thread
# and the pinned pool
SANITIZER_E2E_TESTS = \
	tests/e2e/test-custom-2gpu-shuffled.sh \
	tests/e2e/test-leave-running-dump-twice.sh \
	tests/e2e/test-flipped-byte-refused-then-intact-restores.sh \
	tests/e2e/test-dump-driver-call-failures.sh \
	tests/e2e/test-restore-driver-call-failures.sh \
	tests/e2e/test-guardian-dump-copy-out.sh \
	tests/e2e/test-guardian-restore.sh \
	tests/e2e/test-striped-tmpfs-prefetch.sh \
	tests/e2e/test-restore-warmup.sh
TESTS += tests/test-sanitizers.sh
print-sanitizer-tests:
	@echo $(SANITIZER_TESTS)
.PHONY: print-sanitizer-tests
dist_check_SCRIPTS += tests/test-sanitizers.sh
clean-local: clean-sanitizers
clean-sanitizers:
	-rm -rf sanitizers
.PHONY: clean-sanitizers

# ----- the manifest fuzz target (tests/fuzz): replayed in every build, fuzzed when clang is here -----
check_PROGRAMS += tests/fuzz/fuzz-replay
TESTS += tests/fuzz/fuzz-replay
FUZZ_MANIFEST_SRCS = tests/fuzz/fuzz-manifest.c tests/fuzz/fuzz-manifest.h
tests_fuzz_fuzz_replay_SOURCES = tests/fuzz/fuzz-replay.c $(FUZZ_MANIFEST_SRCS) tests/log-stderr.c tests/tap.h
tests_fuzz_fuzz_replay_LDADD = libcudastore.a $(PROTOBUF_C_LIBS) -ldl -lpthread
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/regressions tests/fuzz/make-corpus.sh
# libFuzzer build, made by test-fuzz-manifest.sh: make tests/fuzz/fuzz-manifest-libfuzzer CLANG=clang.
# The decoder's sources (manifest.c, imgframe.c, imgdir.c and the protobuf-c code, wherever they
# live) are compiled by clang with coverage instrumentation; anything else they call comes
# uninstrumented from libcudastore.a, as in the replay driver.
CLANG = clang
FUZZ_CLANG_FLAGS = $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) -g -O1 -fno-omit-frame-pointer \
	-fno-sanitize-recover=all -fsanitize=fuzzer,address,undefined
FUZZ_DECODER_SRCS = $(addprefix $(top_srcdir)/,$(filter %/manifest.c %/imgframe.c %/imgdir.c,$(libcudastore_a_SOURCES))) \
	$(filter %.pb-c.c,$(nodist_libcudastore_a_SOURCES))
tests/fuzz/fuzz-manifest-libfuzzer: $(FUZZ_MANIFEST_SRCS) tests/log-stderr.c $(FUZZ_DECODER_SRCS) libcudastore.a
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CLANG_FLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz-manifest.c \
	$(top_srcdir)/tests/log-stderr.c $(FUZZ_DECODER_SRCS) libcudastore.a $(PROTOBUF_C_LIBS) -ldl -lpthread
CLEANFILES += tests/fuzz/fuzz-manifest-libfuzzer
TESTS += tests/fuzz/test-fuzz-manifest.sh
dist_check_SCRIPTS += tests/fuzz/test-fuzz-manifest.sh

# ----- CRIU's zdtm with cudastore loaded (tests/zdtm): a static subset + our GPU scenarios -----
TESTS += tests/zdtm/test-zdtm-with-cudastore.sh
dist_check_SCRIPTS += tests/zdtm/test-zdtm-with-cudastore.sh
EXTRA_DIST += tests/zdtm/reap-orphans.py tests/zdtm/install-zdtm-tests.sh tests/zdtm/cudastore
clean-local: clean-zdtm-logs
clean-zdtm-logs:
	-rm -rf tests/zdtm/logs
.PHONY: clean-zdtm-logs
