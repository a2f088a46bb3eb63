# fragment: see Makefile.am. Continuous checks (docs/testing.md, "Continuous checks"); included
# right after tests.mk, before the module and emulator tests, so that these long tests start
# early under make -j.
# ----- ASan + UBSan: a second build tree ($(top_builddir)/sanitizers) runs these tests -----
SANITIZER_TESTS = $(FUZZ_REPLAYS) $(BASE_UNIT_TESTS) $(IMAGES_UNIT_TESTS) $(ENGINE_TESTS) $(HELPER_UNIT_TESTS) \
	$(CRIU_UNIT_TESTS) tests/engine/test-bench-fake.sh \
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

# ----- fuzz targets (tests/fuzz, fuzz.h): replayed in every build, fuzzed when clang is here -----
# manifest: the manifest decoder and extent checks; index: cudastore-index.img's decoder; wire: the
# plugin <-> helper receiver; options: the config file parser; cli: inspect and verify on crafted
# images directories. Each has fuzz-replay[-NAME] (any compiler: its corpus and kept crashes) and
# test-fuzz-NAME.sh (libFuzzer for a bounded time, fuzz-lib.sh).
FUZZ_REPLAYS = tests/fuzz/fuzz-replay tests/fuzz/fuzz-replay-index tests/fuzz/fuzz-replay-wire \
	tests/fuzz/fuzz-replay-options tests/fuzz/fuzz-replay-cli
check_PROGRAMS += $(FUZZ_REPLAYS)
TESTS += $(FUZZ_REPLAYS)
FUZZ_MANIFEST_SRCS = tests/fuzz/fuzz-manifest.c tests/fuzz/fuzz-manifest.h
FUZZ_REPLAY_SRCS = tests/fuzz/fuzz-replay.c tests/fuzz/fuzz.h tests/tap.h
FUZZ_LDADD = $(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) $(LIBCRYPTO_LIBS) -ldl -lpthread
tests_fuzz_fuzz_replay_SOURCES = $(FUZZ_REPLAY_SRCS) $(FUZZ_MANIFEST_SRCS) tests/log-stderr.c
tests_fuzz_fuzz_replay_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_replay_index_SOURCES = $(FUZZ_REPLAY_SRCS) tests/fuzz/fuzz-index.c tests/log-stderr.c
tests_fuzz_fuzz_replay_index_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_replay_wire_SOURCES = $(FUZZ_REPLAY_SRCS) tests/fuzz/fuzz-wire.c tests/log-stderr.c
tests_fuzz_fuzz_replay_wire_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_replay_options_SOURCES = $(FUZZ_REPLAY_SRCS) tests/fuzz/fuzz-options.c tests/log-stderr.c
tests_fuzz_fuzz_replay_options_LDADD = $(FUZZ_LDADD)
FUZZ_CLI_SRCS = $(CLI_SOURCES)
tests_fuzz_fuzz_replay_cli_SOURCES = $(FUZZ_REPLAY_SRCS) tests/fuzz/fuzz-cli.c $(FUZZ_CLI_SRCS)
tests_fuzz_fuzz_replay_cli_CPPFLAGS = $(cudastore_CPPFLAGS)
tests_fuzz_fuzz_replay_cli_LDADD = $(cudastore_LDADD)
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/regressions tests/fuzz/make-corpus.sh tests/fuzz/fuzz-lib.sh
# libFuzzer builds, made by test-fuzz-NAME.sh: make tests/fuzz/fuzz-NAME-libfuzzer CLANG=clang.
# The target's parsers (and the protobuf-c code, wherever it lives) are compiled by clang with
# coverage instrumentation; anything else they call comes uninstrumented from the libraries, as
# in the replay drivers.
CLANG = clang
FUZZ_CLANG_FLAGS = $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) -g -O1 -fno-omit-frame-pointer \
	-fno-sanitize-recover=all -fsanitize=fuzzer,address,undefined
FUZZ_LIB_SRCS = $(libcsbase_a_SOURCES) $(libcsimages_a_SOURCES) $(libcsengine_a_SOURCES)
fuzz_srcs = $(addprefix $(top_srcdir)/,$(filter $(addprefix %/,$(1)),$(FUZZ_LIB_SRCS)))
FUZZ_PB_SRCS = $(filter %.pb-c.c,$(nodist_libcsimages_a_SOURCES))
FUZZ_DECODER_SRCS = $(call fuzz_srcs,manifest.c imgframe.c imgdir.c) $(FUZZ_PB_SRCS)
FUZZ_INDEX_SRCS = $(call fuzz_srcs,imgindex.c imgframe.c imgdir.c) $(FUZZ_PB_SRCS)
FUZZ_WIRE_SRCS = $(call fuzz_srcs,wire.c)
FUZZ_OPTIONS_SRCS = $(call fuzz_srcs,options.c strsafe.c)
FUZZ_CLI_LIBFUZZER_SRCS = $(addprefix $(top_srcdir)/,$(filter %.c,$(FUZZ_CLI_SRCS))) \
	$(call fuzz_srcs,manifest.c imgframe.c imgdir.c imgindex.c strsafe.c) $(FUZZ_PB_SRCS)
FUZZ_LINK = $(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) $(LIBCRYPTO_LIBS) -ldl -lpthread
tests/fuzz/fuzz-manifest-libfuzzer: $(FUZZ_MANIFEST_SRCS) tests/log-stderr.c $(FUZZ_DECODER_SRCS) $(CS_ALL_LIBS)
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CLANG_FLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz-manifest.c \
	$(top_srcdir)/tests/log-stderr.c $(FUZZ_DECODER_SRCS) $(FUZZ_LINK)
tests/fuzz/fuzz-index-libfuzzer: tests/fuzz/fuzz-index.c tests/log-stderr.c $(FUZZ_INDEX_SRCS) $(CS_ALL_LIBS)
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CLANG_FLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz-index.c \
	$(top_srcdir)/tests/log-stderr.c $(FUZZ_INDEX_SRCS) $(FUZZ_LINK)
tests/fuzz/fuzz-wire-libfuzzer: tests/fuzz/fuzz-wire.c tests/log-stderr.c $(FUZZ_WIRE_SRCS) $(CS_ALL_LIBS)
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CLANG_FLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz-wire.c \
	$(top_srcdir)/tests/log-stderr.c $(FUZZ_WIRE_SRCS) $(FUZZ_LINK)
tests/fuzz/fuzz-options-libfuzzer: tests/fuzz/fuzz-options.c tests/log-stderr.c $(FUZZ_OPTIONS_SRCS) $(CS_ALL_LIBS)
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CLANG_FLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz-options.c \
	$(top_srcdir)/tests/log-stderr.c $(FUZZ_OPTIONS_SRCS) $(FUZZ_LINK)
tests/fuzz/fuzz-cli-libfuzzer: tests/fuzz/fuzz-cli.c $(FUZZ_CLI_LIBFUZZER_SRCS) $(CS_ALL_LIBS)
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CLANG_FLAGS) $(LIBARCHIVE_CFLAGS) -DCS_CRIU_PLUGINDIR='"$(criuplugindir)"' \
	-o $@ $(top_srcdir)/tests/fuzz/fuzz-cli.c $(FUZZ_CLI_LIBFUZZER_SRCS) \
	$(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) $(JSON_C_LIBS) $(LIBARCHIVE_LIBS) $(LIBCRYPTO_LIBS) -ldl -lpthread
CLEANFILES += tests/fuzz/fuzz-manifest-libfuzzer tests/fuzz/fuzz-index-libfuzzer tests/fuzz/fuzz-wire-libfuzzer \
	tests/fuzz/fuzz-options-libfuzzer tests/fuzz/fuzz-cli-libfuzzer
FUZZ_TESTS = tests/fuzz/test-fuzz-manifest.sh tests/fuzz/test-fuzz-index.sh tests/fuzz/test-fuzz-wire.sh \
	tests/fuzz/test-fuzz-options.sh tests/fuzz/test-fuzz-cli.sh
TESTS += $(FUZZ_TESTS)
dist_check_SCRIPTS += $(FUZZ_TESTS)

# ----- CRIU's zdtm with cudastore loaded (tests/zdtm): a static subset + our GPU scenarios -----
TESTS += tests/zdtm/test-zdtm-with-cudastore.sh
dist_check_SCRIPTS += tests/zdtm/test-zdtm-with-cudastore.sh
EXTRA_DIST += tests/zdtm/reap-orphans.py tests/zdtm/install-zdtm-tests.sh tests/zdtm/cudastore
clean-local: clean-zdtm-logs
clean-zdtm-logs:
	-rm -rf tests/zdtm/logs
.PHONY: clean-zdtm-logs
