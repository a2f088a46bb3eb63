# fragment: see Makefile.am
# ===== libcsimages.a: manifest, index, images directory (sees images and base) ==================
noinst_LIBRARIES += libcsimages.a
libcsimages_a_CPPFLAGS = $(CS_DEFS) $(CS_IMAGES_INC)
libcsimages_a_SOURCES = plugin/images/manifest.c plugin/images/manifest.h plugin/images/imgframe.c \
	plugin/images/imgframe.h plugin/images/imgdir.c plugin/images/imgdir.h plugin/images/imgindex.c \
	plugin/images/imgindex.h
nodist_libcsimages_a_SOURCES = $(PROTO_SRCS)
# ===== unit tests: manifest + images directory (tests/unit) ===================================
CS_UNIT_TESTS = \
	tests/unit/test-manifest-roundtrip \
	tests/unit/test-manifest-rejects-corrupt \
	tests/unit/test-manifest-fuzz-never-crashes \
	tests/unit/test-manifest-check-extents \
	tests/unit/test-imgdir-confinement \
	tests/unit/test-imgdir-atomic-write \
	tests/unit/test-index-owns-manifests \
	tests/unit/test-wire-full-log-record-terminated \
	tests/unit/test-imgdir-planted-nodes-never-opened
check_PROGRAMS += $(CS_UNIT_TESTS)
TESTS += $(CS_UNIT_TESTS)

CS_UNIT_COMMON = tests/unit/unit.c tests/unit/unit.h tests/tap.h tests/log-stderr.c
CS_UNIT_LDADD = $(CS_ALL_LIBS) $(PROTOBUF_C_LIBS) -ldl -lpthread

tests_unit_test_wire_full_log_record_terminated_SOURCES = tests/unit/test-wire-full-log-record-terminated.c \
	$(CS_UNIT_COMMON)
tests_unit_test_wire_full_log_record_terminated_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_imgdir_planted_nodes_never_opened_SOURCES = tests/unit/test-imgdir-planted-nodes-never-opened.c \
	$(CS_UNIT_COMMON)
tests_unit_test_imgdir_planted_nodes_never_opened_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_manifest_roundtrip_SOURCES = tests/unit/test-manifest-roundtrip.c $(CS_UNIT_COMMON)
tests_unit_test_manifest_roundtrip_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_manifest_rejects_corrupt_SOURCES = tests/unit/test-manifest-rejects-corrupt.c $(CS_UNIT_COMMON)
tests_unit_test_manifest_rejects_corrupt_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_manifest_fuzz_never_crashes_SOURCES = tests/unit/test-manifest-fuzz-never-crashes.c $(CS_UNIT_COMMON)
tests_unit_test_manifest_fuzz_never_crashes_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_manifest_check_extents_SOURCES = tests/unit/test-manifest-check-extents.c $(CS_UNIT_COMMON)
tests_unit_test_manifest_check_extents_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_imgdir_confinement_SOURCES = tests/unit/test-imgdir-confinement.c $(CS_UNIT_COMMON)
tests_unit_test_imgdir_confinement_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_imgdir_atomic_write_SOURCES = tests/unit/test-imgdir-atomic-write.c $(CS_UNIT_COMMON)
tests_unit_test_imgdir_atomic_write_LDADD = $(CS_UNIT_LDADD)
tests_unit_test_index_owns_manifests_SOURCES = tests/unit/test-index-owns-manifests.c $(CS_UNIT_COMMON)
tests_unit_test_index_owns_manifests_LDADD = $(CS_UNIT_LDADD)
