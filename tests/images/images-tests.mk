# fragment: see Makefile.am
# ===== tests/images: manifest, index and images directory (unit.h; also under ASan + UBSan) =====
IMAGES_UNIT_TESTS = \
	tests/images/test-manifest-roundtrip \
	tests/images/test-manifest-host-facts \
	tests/images/test-placement-table \
	tests/images/test-device-view-restrict \
	tests/images/test-restore-plan-host-rules \
	tests/images/test-manifest-rejects-corrupt \
	tests/images/test-manifest-fuzz-never-crashes \
	tests/images/test-manifest-check-extents \
	tests/images/test-imgdir-confinement \
	tests/images/test-imgdir-atomic-write \
	tests/images/test-index-owns-manifests \
	tests/images/test-index-tied-to-criu-run \
	tests/images/test-imgdir-planted-nodes-never-opened \
	tests/images/test-chunk-id-sha256-vectors-and-tree \
	tests/images/test-chunkstore-links-and-refusals
check_PROGRAMS += $(IMAGES_UNIT_TESTS)
TESTS += $(IMAGES_UNIT_TESTS)

IMAGES_TEST_COMMON = tests/images/unit.c tests/images/unit.h tests/tap.h tests/log-stderr.c

tests_images_test_imgdir_planted_nodes_never_opened_SOURCES = tests/images/test-imgdir-planted-nodes-never-opened.c \
	$(IMAGES_TEST_COMMON)
tests_images_test_imgdir_planted_nodes_never_opened_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_manifest_roundtrip_SOURCES = tests/images/test-manifest-roundtrip.c $(IMAGES_TEST_COMMON)
tests_images_test_manifest_roundtrip_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_manifest_host_facts_SOURCES = tests/images/test-manifest-host-facts.c $(IMAGES_TEST_COMMON)
tests_images_test_manifest_host_facts_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_placement_table_SOURCES = tests/images/test-placement-table.c $(IMAGES_TEST_COMMON)
tests_images_test_placement_table_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_device_view_restrict_SOURCES = tests/images/test-device-view-restrict.c $(IMAGES_TEST_COMMON)
tests_images_test_device_view_restrict_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_restore_plan_host_rules_SOURCES = tests/images/test-restore-plan-host-rules.c $(IMAGES_TEST_COMMON)
tests_images_test_restore_plan_host_rules_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_manifest_rejects_corrupt_SOURCES = tests/images/test-manifest-rejects-corrupt.c $(IMAGES_TEST_COMMON)
tests_images_test_manifest_rejects_corrupt_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_manifest_fuzz_never_crashes_SOURCES = tests/images/test-manifest-fuzz-never-crashes.c \
	$(IMAGES_TEST_COMMON)
tests_images_test_manifest_fuzz_never_crashes_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_manifest_check_extents_SOURCES = tests/images/test-manifest-check-extents.c $(IMAGES_TEST_COMMON)
tests_images_test_manifest_check_extents_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_imgdir_confinement_SOURCES = tests/images/test-imgdir-confinement.c $(IMAGES_TEST_COMMON)
tests_images_test_imgdir_confinement_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_imgdir_atomic_write_SOURCES = tests/images/test-imgdir-atomic-write.c $(IMAGES_TEST_COMMON)
tests_images_test_imgdir_atomic_write_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_index_owns_manifests_SOURCES = tests/images/test-index-owns-manifests.c $(IMAGES_TEST_COMMON)
tests_images_test_index_owns_manifests_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_index_tied_to_criu_run_SOURCES = tests/images/test-index-tied-to-criu-run.c $(IMAGES_TEST_COMMON)
tests_images_test_index_tied_to_criu_run_LDADD = $(UNIT_TEST_LIBS)
# chunk ids against the published SHA-256 examples and a second construction (sha256_ref.c)
tests_images_test_chunk_id_sha256_vectors_and_tree_SOURCES = tests/images/test-chunk-id-sha256-vectors-and-tree.c \
	tests/images/sha256_ref.c tests/images/sha256_ref.h $(IMAGES_TEST_COMMON)
tests_images_test_chunk_id_sha256_vectors_and_tree_LDADD = $(UNIT_TEST_LIBS)
tests_images_test_chunkstore_links_and_refusals_SOURCES = tests/images/test-chunkstore-links-and-refusals.c \
	$(IMAGES_TEST_COMMON)
tests_images_test_chunkstore_links_and_refusals_LDADD = $(UNIT_TEST_LIBS)
