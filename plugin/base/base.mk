# fragment: see Makefile.am
# ===== libcsbase.a: plugin/base/, shared by both processes and the command (sees only plugin/base/) ==
noinst_LIBRARIES += libcsbase.a
libcsbase_a_CPPFLAGS = $(CS_DEFS) $(CS_BASE_INC)
libcsbase_a_SOURCES = \
	plugin/base/cuda_api.h \
	plugin/base/cuda_ops.h \
	plugin/base/clock.c plugin/base/clock.h \
	plugin/base/criu_run.h \
	plugin/base/criu_version.c plugin/base/criu_version.h \
	plugin/base/cuda_ops.c \
	plugin/base/devview.c plugin/base/devview.h \
	plugin/base/errmsg.h \
	plugin/base/facts.c plugin/base/facts.h \
	plugin/base/gpu_probe.c plugin/base/gpu_probe.h \
	plugin/base/helper_path.c plugin/base/helper_path.h \
	plugin/base/imglimits.h \
	plugin/base/le.h \
	plugin/base/log.c plugin/base/log.h \
	plugin/base/options.c plugin/base/options.h \
	plugin/base/procfs.c plugin/base/procfs.h \
	plugin/base/run_capture.c plugin/base/run_capture.h \
	plugin/base/strsafe.c plugin/base/strsafe.h \
	plugin/base/trust.c plugin/base/trust.h \
	plugin/base/uuid.c \
	plugin/base/wire.c plugin/base/wire.h
