# fragment: see Makefile.am
# ===== libcsimages.a: manifest, index, images directory (sees images and base) ==================
noinst_LIBRARIES += libcsimages.a
libcsimages_a_CPPFLAGS = $(CS_DEFS) $(CS_IMAGES_INC) $(LIBCRYPTO_CFLAGS)
libcsimages_a_SOURCES = plugin/images/manifest.c plugin/images/manifest.h plugin/images/imgframe.c \
	plugin/images/imgframe.h plugin/images/imgdir.c plugin/images/imgdir.h plugin/images/imgindex.c \
	plugin/images/imgindex.h plugin/images/manifest_facts.c \
	plugin/images/manifest_facts.h plugin/images/placement.c plugin/images/placement.h \
	plugin/images/restore_plan.c plugin/images/restore_plan.h \
	plugin/images/chunk_id.c plugin/images/chunk_id.h plugin/images/device_view.c \
	plugin/images/device_view.h \
	plugin/images/chunkstore.c plugin/images/chunkstore.h plugin/images/chunk_parent.c \
	plugin/images/chunk_parent.h
nodist_libcsimages_a_SOURCES = $(PROTO_SRCS)
