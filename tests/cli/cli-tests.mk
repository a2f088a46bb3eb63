# fragment: see Makefile.am
# ===== tests/cli: the cudastore command (cli/) ==================================================
# usage without root; the rest through real CRIU on the driver emulator
CLI_TESTS = \
	tests/cli/test-cli-usage.sh \
	tests/cli/test-cli-json-errors-and-options-anywhere.sh \
	tests/cli/test-cli-config-file-mistakes.sh \
	tests/cli/test-cli-check-plugin-dir-as-criu-finds-it.sh \
	tests/cli/test-cli-check-keeps-the-end-of-criu-check-output.sh \
	tests/cli/test-cli-unreadable-images-not-judged.sh \
	tests/cli/test-cli-text-keeps-utf8-in-a-utf8-locale.sh \
	tests/cli/test-cli-json-help-typed-values-and-instants.sh \
	tests/cli/test-cli-verify-v-says-what-it-did.sh \
	tests/cli/test-cli-bash-completion.sh \
	tests/cli/test-cli-archives-and-cpu-only-images.sh \
	tests/cli/test-cli-verify-agrees-with-restore.sh \
	tests/cli/test-cli-verify-refuses-what-restore-refuses.sh \
	tests/cli/test-cli-check-on-emulated-13.0-and-13.4.sh \
	tests/cli/test-cli-check-images-text-and-json.sh \
	tests/cli/test-cli-check-images-dev-view.sh \
	tests/cli/test-cli-check-images-bad-input.sh \
	tests/cli/test-cli-verify-memory-bounded.sh
TESTS += $(CLI_TESTS)
dist_check_SCRIPTS += $(CLI_TESTS)
# a tiny images directory that claims much GPU memory (test-cli-verify-memory-bounded.sh)
check_PROGRAMS += tests/cli/cs-sparse-images
tests_cli_cs_sparse_images_SOURCES = tests/cli/cs-sparse-images.c tests/log-stderr.c
tests_cli_cs_sparse_images_LDADD = $(UNIT_TEST_LIBS)
# verify's reader of CRIU's inventory.img (cli/inventory.c), on crafted files
check_PROGRAMS += tests/cli/test-cli-inventory-run
TESTS += tests/cli/test-cli-inventory-run
tests_cli_test_cli_inventory_run_SOURCES = tests/cli/test-cli-inventory-run.c cli/inventory.c tests/tap.h \
	tests/log-stderr.c
tests_cli_test_cli_inventory_run_CPPFLAGS = $(cudastore_CPPFLAGS)
tests_cli_test_cli_inventory_run_LDADD = $(UNIT_TEST_LIBS)
