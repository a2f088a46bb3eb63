# ===== tests/emu: libcuda.so.1 / libnvidia-ml.so.1 emulator and its tests =====================
# The emulated libraries are check programs linked -shared, at tests/emu/lib/ in the build
# tree; tests and CRIU runs load them with CUDASTORE_LIBCUDA / CUDASTORE_LIBNVML or
# LD_LIBRARY_PATH. See docs/testing.md.
EMU_LIB_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
EMU_COMMON = tests/emu/emu.h tests/emu/emu_config.c tests/emu/emu_host.c plugin/base/cuda_ops.c plugin/base/trust.c plugin/base/uuid.c

check_PROGRAMS += tests/emu/lib/libcuda.so.1 tests/emu/lib/libnvidia-ml.so.1
tests_emu_lib_libcuda_so_1_SOURCES = $(EMU_COMMON) plugin/base/procfs.c \
	tests/emu/emu_api.h \
	tests/emu/emu_call.c \
	tests/emu/emu_init.c \
	tests/emu/emu_procaddr.c \
	tests/emu/emu_device.c \
	tests/emu/emu_mem.c \
	tests/emu/emu_memapi.c \
	tests/emu/emu_dtoh_count.c \
	tests/emu/emu_proto.c \
	tests/emu/emu_driver.c \
	tests/emu/emu_checkpoint.c \
	tests/emu/emu_kernel.c plugin/images/chunk_id.c
tests_emu_lib_libcuda_so_1_CFLAGS = $(EMU_LIB_CFLAGS) $(LIBCRYPTO_CFLAGS)
tests_emu_lib_libcuda_so_1_LDFLAGS = -shared -Wl,-soname,libcuda.so.1 -Wl,-z,defs
tests_emu_lib_libcuda_so_1_LDADD = $(LIBCRYPTO_LIBS) -ldl -lpthread

tests_emu_lib_libnvidia_ml_so_1_SOURCES = $(EMU_COMMON) tests/emu/emu_nvml.h tests/emu/emu_nvml.c
tests_emu_lib_libnvidia_ml_so_1_CFLAGS = $(EMU_LIB_CFLAGS)
tests_emu_lib_libnvidia_ml_so_1_LDFLAGS = -shared -Wl,-soname,libnvidia-ml.so.1 -Wl,-z,defs
tests_emu_lib_libnvidia_ml_so_1_LDADD = -ldl -lpthread

include $(top_srcdir)/tests/workload/workload.mk

# ----- emulator tests (TAP) -----
EMU_TEST_SOURCES = tests/tap.h tests/emu/emu-test.h tests/emu/emu-test.c
EMU_TEST_LDADD = $(CS_ALL_LIBS) $(LIBCRYPTO_LIBS) -ldl -lpthread
EMU_TESTS = \
	tests/emu/test-emu-state-machine

check_PROGRAMS += $(EMU_TESTS)
TESTS += $(EMU_TESTS)
tests_emu_test_emu_state_machine_SOURCES = tests/emu/test-emu-state-machine.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_state_machine_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-custom-storage
tests_emu_test_emu_custom_storage_SOURCES = tests/emu/test-emu-custom-storage.c tests/workload/pattern.c \
	$(EMU_TEST_SOURCES)
tests_emu_test_emu_custom_storage_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-driver-managed tests/emu/test-emu-gpu-pairs
tests_emu_test_emu_driver_managed_SOURCES = tests/emu/test-emu-driver-managed.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_driver_managed_LDADD = $(EMU_TEST_LDADD)
tests_emu_test_emu_gpu_pairs_SOURCES = tests/emu/test-emu-gpu-pairs.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_gpu_pairs_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-faults
tests_emu_test_emu_faults_SOURCES = tests/emu/test-emu-faults.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_faults_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-ptrace tests/emu/test-emu-workload tests/emu/test-emu-nvml
tests_emu_test_emu_ptrace_SOURCES = tests/emu/test-emu-ptrace.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_ptrace_LDADD = $(EMU_TEST_LDADD)
tests_emu_test_emu_workload_SOURCES = tests/emu/test-emu-workload.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_workload_LDADD = $(EMU_TEST_LDADD)
tests_emu_test_emu_nvml_SOURCES = tests/emu/test-emu-nvml.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_nvml_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-procaddress tests/emu/test-emu-memory
tests_emu_test_emu_procaddress_SOURCES = tests/emu/test-emu-procaddress.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_procaddress_LDADD = $(EMU_TEST_LDADD)
tests_emu_test_emu_memory_SOURCES = tests/emu/test-emu-memory.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_memory_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-concurrent-driver-managed tests/emu/test-emu-concurrent-custom-storage
tests_emu_test_emu_concurrent_driver_managed_SOURCES = tests/emu/test-emu-concurrent-driver-managed.c \
	$(EMU_TEST_SOURCES)
tests_emu_test_emu_concurrent_driver_managed_LDADD = $(EMU_TEST_LDADD)
tests_emu_test_emu_concurrent_custom_storage_SOURCES = tests/emu/test-emu-concurrent-custom-storage.c \
	tests/workload/pattern.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_concurrent_custom_storage_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-faults-per-pid
tests_emu_test_emu_faults_per_pid_SOURCES = tests/emu/test-emu-faults-per-pid.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_faults_per_pid_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-gpu-facts tests/emu/test-emu-malformed-facts-abort
tests_emu_test_emu_gpu_facts_SOURCES = tests/emu/test-emu-gpu-facts.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_gpu_facts_LDADD = $(EMU_TEST_LDADD)
tests_emu_test_emu_malformed_facts_abort_SOURCES = tests/emu/test-emu-malformed-facts-abort.c \
	$(EMU_TEST_SOURCES)
tests_emu_test_emu_malformed_facts_abort_LDADD = $(EMU_TEST_LDADD)
EMU_TESTS += tests/emu/test-emu-visible-devices
tests_emu_test_emu_visible_devices_SOURCES = tests/emu/test-emu-visible-devices.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_visible_devices_LDADD = $(EMU_TEST_LDADD)
# the GPU hasher's ids (engine/gpu_hash.h) through the emulated kernels equal the CPU's
EMU_TESTS += tests/emu/test-emu-gpu-hash-equals-cpu-ids
tests_emu_test_emu_gpu_hash_equals_cpu_ids_SOURCES = tests/emu/test-emu-gpu-hash-equals-cpu-ids.c $(EMU_TEST_SOURCES)
tests_emu_test_emu_gpu_hash_equals_cpu_ids_LDADD = $(EMU_TEST_LDADD)

# emu-ctl: a tiny cuda-checkpoint for shell tests and debugging (not a test itself)
check_PROGRAMS += tests/emu/emu-ctl
tests_emu_emu_ctl_SOURCES = tests/emu/emu-ctl.c
tests_emu_emu_ctl_LDADD = $(CS_ALL_LIBS) -ldl -lpthread

# a shell test: real CRIU dump/restore of an emulated CUDA app (skipped without root/criu)
dist_check_SCRIPTS += tests/emu/test-emu-criu.sh
TESTS += tests/emu/test-emu-criu.sh
