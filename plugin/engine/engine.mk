# fragment: see Makefile.am
# ===== libcsengine.a: the copy engine (engine.h; map of the files in engine_priv.h; sees engine, images, base)
noinst_LIBRARIES += libcsengine.a
libcsengine_a_CPPFLAGS = $(CS_DEFS) $(CS_ENGINE_INC)
libcsengine_a_SOURCES = \
	plugin/engine/engine.h \
	plugin/engine/engine_priv.h \
	plugin/engine/engine.c \
	plugin/engine/engine_job.c \
	plugin/engine/engine_chunk.c \
	plugin/engine/engine_chunks.c \
	plugin/engine/engine_hash_avx2.c \
	plugin/engine/engine_io.c \
	plugin/engine/engine_mapread.c \
	plugin/engine/engine_pool.c \
	plugin/engine/engine_dump.c \
	plugin/engine/engine_restore.c \
	plugin/engine/engine_prefetch.c \
	plugin/engine/gpu_hash.c plugin/engine/gpu_hash.h

# the GPU hasher's kernels (gpu_hash.cu): their PTX is kept in the tree and made again by nvcc
# when there is one; the engine embeds it as a string (gpu_hash_ptx.c), made only from a PTX
# whose recorded SHA-256 is the .cu's (scripts/gpu-hash-ptx-check.sh)
GPU_HASH_CU = $(top_srcdir)/plugin/engine/gpu_hash.cu
GPU_HASH_PTX = $(top_srcdir)/plugin/engine/gpu_hash.ptx
EXTRA_DIST += plugin/engine/gpu_hash.cu plugin/engine/gpu_hash.ptx
nodist_libcsengine_a_SOURCES = plugin/engine/gpu_hash_ptx.c
BUILT_SOURCES += plugin/engine/gpu_hash_ptx.c
CLEANFILES += plugin/engine/gpu_hash_ptx.c
if HAVE_NVCC
$(GPU_HASH_PTX): $(GPU_HASH_CU) $(top_srcdir)/scripts/gen-gpu-hash-ptx.sh
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/scripts/gen-gpu-hash-ptx.sh '$(NVCC)' $(GPU_HASH_CU) $@
endif
plugin/engine/gpu_hash_ptx.c: $(GPU_HASH_PTX) $(GPU_HASH_CU) $(top_srcdir)/scripts/gpu-hash-ptx-check.sh
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/scripts/gpu-hash-ptx-check.sh $(GPU_HASH_CU) $(GPU_HASH_PTX) && \
	$(MKDIR_P) plugin/engine && \
	{ echo '/* made by the build from gpu_hash.ptx (engine.mk): the kernels of gpu_hash.cu */'; \
	  echo 'extern const char cs_gpu_hash_ptx[];'; echo 'const char cs_gpu_hash_ptx[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(GPU_HASH_PTX); echo ';'; } >$@.tmp && \
	mv $@.tmp $@
