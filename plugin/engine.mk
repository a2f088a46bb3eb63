# fragment: see Makefile.am
# ----- copy engine (engine.h; map of the files in engine_priv.h) -----
libcudastore_a_SOURCES += \
	plugin/engine.h \
	plugin/engine_priv.h \
	plugin/engine.c \
	plugin/engine_chunk.c \
	plugin/engine_hash_avx2.c \
	plugin/engine_io.c \
	plugin/engine_dump.c \
	plugin/engine_restore.c \
	plugin/engine_prefetch.c
