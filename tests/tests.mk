# end-to-end tests through real CRIU, and tests of the plugin core
check_PROGRAMS += tests/e2e/cpu-tree
tests_e2e_cpu_tree_SOURCES = tests/e2e/cpu-tree.c

dist_check_SCRIPTS += tests/e2e/lib.sh
E2E_TESTS = \
	tests/e2e/test-cpu-tree-survives-dump-restore.sh
TESTS += $(E2E_TESTS)
dist_check_SCRIPTS += $(E2E_TESTS)
