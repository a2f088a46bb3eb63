# ===== tests/workload: cuda-workload, the test and demo CUDA application ======================
# Included from tests/emu/emu.mk. Reaches CUDA only through cs_cuda_load (libcsbase.a).
check_PROGRAMS += tests/workload/cuda-workload
tests_workload_cuda_workload_SOURCES = \
	tests/workload/workload.h \
	tests/workload/main.c \
	tests/workload/options.c \
	tests/workload/gpu.c \
	tests/workload/hostile.c \
	tests/workload/pattern.c
tests_workload_cuda_workload_LDADD = libcsbase.a -ldl -lpthread
