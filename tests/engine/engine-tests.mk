# fragment: see Makefile.am
# ----- copy engine unit tests (fake device, no GPU; tests/engine/fake-cuda.h) -----
# The tests link the engine as the helper does (libcsengine.a and what it sees); their own test
# library holds the fake device and the shared test code only. For leak checks run e.g.
#   make check TESTS= ... ENGINE_TEST_SAN=-fsanitize=address    (LeakSanitizer on exit)
# (tests/test-sanitizers.sh builds the whole tree, the engine included, with ASan and UBSan)
ENGINE_TEST_SAN =
check_LIBRARIES += tests/engine/libenginetest.a
tests_engine_libenginetest_a_SOURCES = tests/log-stderr.c \
	tests/engine/fake-cuda.c tests/engine/fake-cuda.h \
	tests/engine/engine-test.c tests/engine/engine-test.h
tests_engine_libenginetest_a_CPPFLAGS = $(CS_DEFS) $(CS_ENGINE_INC)
tests_engine_libenginetest_a_CFLAGS = $(AM_CFLAGS) $(ENGINE_TEST_SAN)
ENGINE_TEST_LDADD = tests/engine/libenginetest.a libcsengine.a libcsimages.a libcsbase.a $(PROTOBUF_C_LIBS) \
	$(LIBCRYPTO_LIBS) -lpthread -ldl
ENGINE_TEST_CFLAGS = $(AM_CFLAGS) $(ENGINE_TEST_SAN) -I$(top_srcdir)/tests -I$(top_srcdir)/tests/engine

ENGINE_TESTS = \
	tests/engine/test-engine-opts \
	tests/engine/test-engine-roundtrip \
	tests/engine/test-engine-multiregion \
	tests/engine/test-engine-zero-skip \
	tests/engine/test-engine-known-chunks-not-copied \
	tests/engine/test-engine-checksum \
	tests/engine/test-engine-truncated \
	tests/engine/test-engine-direct-fallback \
	tests/engine/test-engine-enospc \
	tests/engine/test-engine-memfs-space-checked-not-reserved \
	tests/engine/test-engine-tmpfs-readback \
	tests/engine/test-engine-tmpfs-restore-map \
	tests/engine/test-engine-chunk-restore-map \
	tests/engine/test-engine-cuda-fault \
	tests/engine/test-engine-hash-builds-agree \
	tests/engine/test-engine-threads-block-signals \
	tests/engine/test-engine-direct-align \
	tests/engine/test-engine-extent-not-regular \
	tests/engine/test-engine-restore-big-chunks \
	tests/engine/test-engine-stripes \
	tests/engine/test-engine-prefetch \
	tests/engine/test-engine-pinned-pool \
	tests/engine/test-engine-thread-times \
	tests/engine/test-engine-plan
check_PROGRAMS += $(ENGINE_TESTS)
TESTS += $(ENGINE_TESTS)

tests_engine_test_engine_opts_SOURCES = tests/engine/test-engine-opts.c
tests_engine_test_engine_opts_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_opts_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_roundtrip_SOURCES = tests/engine/test-engine-roundtrip.c
tests_engine_test_engine_roundtrip_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_roundtrip_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_multiregion_SOURCES = tests/engine/test-engine-multiregion.c
tests_engine_test_engine_multiregion_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_multiregion_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_zero_skip_SOURCES = tests/engine/test-engine-zero-skip.c
tests_engine_test_engine_zero_skip_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_zero_skip_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_known_chunks_not_copied_SOURCES = tests/engine/test-engine-known-chunks-not-copied.c
tests_engine_test_engine_known_chunks_not_copied_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_known_chunks_not_copied_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_checksum_SOURCES = tests/engine/test-engine-checksum.c
tests_engine_test_engine_checksum_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_checksum_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_truncated_SOURCES = tests/engine/test-engine-truncated.c
tests_engine_test_engine_truncated_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_truncated_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_direct_fallback_SOURCES = tests/engine/test-engine-direct-fallback.c
tests_engine_test_engine_direct_fallback_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_direct_fallback_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_enospc_SOURCES = tests/engine/test-engine-enospc.c
tests_engine_test_engine_enospc_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_enospc_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_memfs_space_checked_not_reserved_SOURCES = tests/engine/test-engine-memfs-space-checked-not-reserved.c
tests_engine_test_engine_memfs_space_checked_not_reserved_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_memfs_space_checked_not_reserved_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_tmpfs_readback_SOURCES = tests/engine/test-engine-tmpfs-readback.c
tests_engine_test_engine_tmpfs_readback_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_tmpfs_readback_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_tmpfs_restore_map_SOURCES = tests/engine/test-engine-tmpfs-restore-map.c
tests_engine_test_engine_tmpfs_restore_map_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_tmpfs_restore_map_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_chunk_restore_map_SOURCES = tests/engine/test-engine-chunk-restore-map.c
tests_engine_test_engine_chunk_restore_map_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_chunk_restore_map_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_cuda_fault_SOURCES = tests/engine/test-engine-cuda-fault.c
tests_engine_test_engine_cuda_fault_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_cuda_fault_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_hash_builds_agree_SOURCES = tests/engine/test-engine-hash-builds-agree.c
tests_engine_test_engine_hash_builds_agree_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_hash_builds_agree_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_restore_big_chunks_SOURCES = tests/engine/test-engine-restore-big-chunks.c
tests_engine_test_engine_restore_big_chunks_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_restore_big_chunks_LDADD = $(ENGINE_TEST_LDADD)

tests_engine_test_engine_stripes_SOURCES = tests/engine/test-engine-stripes.c
tests_engine_test_engine_stripes_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_stripes_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_prefetch_SOURCES = tests/engine/test-engine-prefetch.c
tests_engine_test_engine_prefetch_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_prefetch_LDADD = $(ENGINE_TEST_LDADD)

# cs-bench end to end on the fake device, loaded as a libcuda through the normal loader
check_PROGRAMS += tests/engine/libcuda-fake.so
tests_engine_libcuda_fake_so_SOURCES = tests/engine/fake-libcuda.c tests/engine/fake-cuda.c \
	tests/engine/fake-cuda.h
tests_engine_libcuda_fake_so_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_engine_libcuda_fake_so_LDFLAGS = -shared -pthread
TESTS += tests/engine/test-bench-fake.sh
dist_check_SCRIPTS += tests/engine/test-bench-fake.sh
tests_engine_test_engine_threads_block_signals_SOURCES = tests/engine/test-engine-threads-block-signals.c
tests_engine_test_engine_threads_block_signals_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_threads_block_signals_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_direct_align_SOURCES = tests/engine/test-engine-direct-align.c
tests_engine_test_engine_direct_align_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_direct_align_LDFLAGS = -Wl,--wrap=pwrite -Wl,--wrap=pread -Wl,--wrap=statx
tests_engine_test_engine_direct_align_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_extent_not_regular_SOURCES = tests/engine/test-engine-extent-not-regular.c
tests_engine_test_engine_extent_not_regular_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_extent_not_regular_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_pinned_pool_SOURCES = tests/engine/test-engine-pinned-pool.c
tests_engine_test_engine_pinned_pool_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_pinned_pool_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_thread_times_SOURCES = tests/engine/test-engine-thread-times.c
tests_engine_test_engine_thread_times_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_thread_times_LDADD = $(ENGINE_TEST_LDADD)
tests_engine_test_engine_plan_SOURCES = tests/engine/test-engine-plan.c
tests_engine_test_engine_plan_CFLAGS = $(ENGINE_TEST_CFLAGS)
tests_engine_test_engine_plan_LDADD = $(ENGINE_TEST_LDADD)
# the PTX in the tree is the one made from gpu_hash.cu (scripts/gpu-hash-ptx-check.sh)
TESTS += tests/engine/test-gpu-hash-ptx-is-the-cu-s.sh
dist_check_SCRIPTS += tests/engine/test-gpu-hash-ptx-is-the-cu-s.sh
# cs-bench --hash end to end on the driver emulator (its kernels run on the CPU)
TESTS += tests/engine/test-bench-hash-on-emulator.sh
dist_check_SCRIPTS += tests/engine/test-bench-hash-on-emulator.sh
# cs-bench --chunked end to end on the driver emulator: a chunked dump, its child, the restores
TESTS += tests/engine/test-bench-chunked-on-emulator.sh
dist_check_SCRIPTS += tests/engine/test-bench-chunked-on-emulator.sh
