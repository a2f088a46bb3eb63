# fragment: see Makefile.am
# ===== the cudastore command (cli/cli.h): check, inspect, verify ================================
# Built on the engine, images and base libraries (manifest, imgdir, engine, options); sees cli and those.
bin_PROGRAMS += cudastore
cudastore_SOURCES = \
	cli/cli.h \
	cli/main.c \
	cli/args.c \
	cli/out.c \
	cli/json.c \
	cli/archive.c \
	cli/sumread.c \
	cli/images.c \
	cli/hostops.c \
	cli/check.c \
	cli/inspect.c \
	cli/verify.c
cudastore_CPPFLAGS = $(CS_DEFS) $(CS_CLI_INC) $(LIBARCHIVE_CFLAGS) -DCS_CRIU_PLUGINDIR='"$(criuplugindir)"'
cudastore_LDADD = libcsengine.a libcsimages.a libcsbase.a $(PROTOBUF_C_LIBS) $(JSON_C_LIBS) $(LIBARCHIVE_LIBS) -lpthread -ldl

# its tests: usage without root; the rest through real CRIU on the driver emulator
CLI_TESTS = \
	tests/cli/test-cli-usage.sh \
	tests/cli/test-cli-json-errors-and-options-anywhere.sh \
	tests/cli/test-cli-config-file-mistakes.sh \
	tests/cli/test-cli-archives-and-cpu-only-images.sh \
	tests/e2e/test-cli-verify-agrees-with-restore.sh \
	tests/e2e/test-cli-verify-refuses-what-restore-refuses.sh \
	tests/e2e/test-cli-check-on-emulated-13.0-and-13.4.sh \
	tests/cli/test-cli-verify-memory-bounded.sh
TESTS += $(CLI_TESTS)
dist_check_SCRIPTS += $(CLI_TESTS)
# a tiny images directory that claims much GPU memory (test-cli-verify-memory-bounded.sh)
check_PROGRAMS += tests/cli/cs-sparse-images
tests_cli_cs_sparse_images_SOURCES = tests/cli/cs-sparse-images.c tests/log-stderr.c
tests_cli_cs_sparse_images_LDADD = $(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) -ldl -lpthread
