# fragment: see Makefile.am. Continuous checks (docs/testing.md, "Continuous checks"); included
# right after tests.mk, before the emulator and engine tests, so that these long tests start
# early under make -j.
# ----- ASan + UBSan: a second build tree ($(top_builddir)/sanitizers) runs these tests -----
SANITIZER_TESTS = tests/fuzz/fuzz-replay $(CS_UNIT_TESTS) $(CORE_TESTS) $(ENGINE_TESTS) tests/engine/test-bench-fake.sh \
	$(EMU_TESTS) tests/emu/test-emu-criu.sh
TESTS += tests/test-sanitizers.sh
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
# libFuzzer build, made by test-fuzz-manifest.sh: make tests/fuzz/fuzz-manifest-libfuzzer CLANG=clang
CLANG = clang
FUZZ_LIBFUZZER_SRCS = $(FUZZ_MANIFEST_SRCS) tests/log-stderr.c plugin/manifest.c plugin/imgdir.c plugin/cuda_ops.c
tests/fuzz/fuzz-manifest-libfuzzer: $(FUZZ_LIBFUZZER_SRCS) proto/cudastore.pb-c.c
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && $(CLANG) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) \
	-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ \
	$(addprefix $(top_srcdir)/,$(filter %.c,$(FUZZ_LIBFUZZER_SRCS))) proto/cudastore.pb-c.c $(PROTOBUF_C_LIBS) -ldl
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
