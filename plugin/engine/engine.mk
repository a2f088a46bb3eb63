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
	plugin/engine/engine_prefetch.c
