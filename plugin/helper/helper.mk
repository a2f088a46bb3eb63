# fragment: see Makefile.am
# ===== libcshelper.a and cudastore-helper: every driver call, outside criu's process ============
# (sees helper, engine, images, base)
noinst_LIBRARIES += libcshelper.a
libcshelper_a_CPPFLAGS = $(CS_DEFS) $(CS_HELPER_INC)
libcshelper_a_SOURCES = \
	plugin/helper/batch.c plugin/helper/batch.h \
	plugin/helper/context.c plugin/helper/context.h \
	plugin/helper/copy_opts.c plugin/helper/copy_opts.h \
	plugin/helper/criu_door.c plugin/helper/criu_door.h \
	plugin/helper/custom_view.c plugin/helper/custom_view.h \
	plugin/helper/devices.c plugin/helper/devices.h \
	plugin/helper/driver_state.c plugin/helper/driver_state.h \
	plugin/helper/dump.c plugin/helper/dump.h \
	plugin/helper/dump_chunks.c plugin/helper/dump_chunks.h \
	plugin/helper/dump_plan.c plugin/helper/dump_plan.h \
	plugin/helper/dump_prehash.c plugin/helper/dump_prehash.h \
	plugin/helper/dump_facts.c plugin/helper/dump_facts.h \
	plugin/helper/restore_place.c plugin/helper/restore_place.h \
	plugin/helper/rollback.c plugin/helper/rollback.h \
	plugin/helper/imgset.c plugin/helper/imgset.h \
	plugin/helper/isolate.c plugin/helper/isolate.h \
	plugin/helper/phase_timer.c plugin/helper/phase_timer.h \
	plugin/helper/pool.c plugin/helper/pool.h \
	plugin/helper/prefetch.c plugin/helper/prefetch.h \
	plugin/helper/progress.c plugin/helper/progress.h \
	plugin/helper/recover.c plugin/helper/recover.h \
	plugin/helper/restore.c plugin/helper/restore.h \
	plugin/helper/summary.c plugin/helper/summary.h \
	plugin/helper/task_fate.c plugin/helper/task_fate.h \
	plugin/helper/test_hooks.c plugin/helper/test_hooks.h \
	plugin/helper/warmup.c plugin/helper/warmup.h
CS_HELPER_LIBS = libcshelper.a libcsengine.a libcsimages.a libcsbase.a

pkglibexec_PROGRAMS = cudastore-helper
HELPER_SOURCES = plugin/helper/helper_main.c plugin/helper/criu_link.c plugin/helper/criu_link.h \
	plugin/helper/watch.c plugin/helper/watch.h
cudastore_helper_SOURCES = $(HELPER_SOURCES)
cudastore_helper_CPPFLAGS = $(CS_DEFS) $(CS_HELPER_INC)
cudastore_helper_LDADD = $(CS_HELPER_LIBS) $(PROTOBUF_C_LIBS) $(JSON_C_LIBS) $(LIBCRYPTO_LIBS) -lpthread -ldl
# its test build, which installs the test hooks (test_hooks.h), cudastore-helper-test:
# tests/helper/helper-tests.mk
