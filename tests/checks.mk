# fragment: see Makefile.am. Continuous checks (docs/testing.md, "Continuous checks"); included
# before the other test fragments so that these long tests start first under make -j.
# ----- ASan + UBSan: a second build tree ($(top_builddir)/sanitizers) runs these tests -----
SANITIZER_TESTS = $(CS_UNIT_TESTS) $(CORE_TESTS) $(ENGINE_TESTS) tests/engine/test-bench-fake.sh \
	$(EMU_TESTS) tests/emu/test-emu-criu.sh
TESTS += tests/test-sanitizers.sh
dist_check_SCRIPTS += tests/test-sanitizers.sh
clean-local: clean-sanitizers
clean-sanitizers:
	-rm -rf sanitizers
.PHONY: clean-sanitizers
