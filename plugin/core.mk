# plugin core: options, state machine, driver/process helpers (all in libcudastore.a)
libcudastore_a_SOURCES += \
	plugin/context.c plugin/context.h \
	plugin/criu_opts.c plugin/criu_opts.h \
	plugin/devices.c plugin/devices.h \
	plugin/dump.c plugin/dump.h \
	plugin/errmsg.h \
	plugin/gpuop.c plugin/gpuop.h \
	plugin/imgindex.c plugin/imgindex.h \
	plugin/imgset.c plugin/imgset.h \
	plugin/log.h \
	plugin/options.c plugin/options.h \
	plugin/plan.c plugin/plan.h \
	plugin/prefetch.c plugin/prefetch.h \
	plugin/procfs.c plugin/procfs.h \
	plugin/restore.c plugin/restore.h \
	plugin/rthread.h \
	plugin/relay.h \
	plugin/wire.c plugin/wire.h \
	plugin/stats.c plugin/stats.h \
	plugin/summary.c plugin/summary.h
