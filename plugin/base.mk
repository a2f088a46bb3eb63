# fragment: see Makefile.am
# ===== libcsbase.a: plugin/*.c, shared by both processes and the command (sees only plugin/, include/) =====
noinst_LIBRARIES += libcsbase.a
libcsbase_a_CPPFLAGS = $(CS_DEFS) $(CS_BASE_INC)
libcsbase_a_SOURCES = \
	include/cudastore/cuda_api.h \
	include/cudastore/cuda_ops.h \
	plugin/clock.c plugin/clock.h \
	plugin/criu_run.h \
	plugin/criu_version.c plugin/criu_version.h \
	plugin/cuda_ops.c \
	plugin/devview.c plugin/devview.h \
	plugin/errmsg.h \
	plugin/facts.c plugin/facts.h \
	plugin/gpu_probe.c plugin/gpu_probe.h \
	plugin/helper_path.c plugin/helper_path.h \
	plugin/imglimits.h \
	plugin/log.h \
	plugin/options.c plugin/options.h \
	plugin/procfs.c plugin/procfs.h \
	plugin/strsafe.c plugin/strsafe.h \
	plugin/trust.c plugin/trust.h \
	plugin/uuid.c \
	plugin/wire.c plugin/wire.h
