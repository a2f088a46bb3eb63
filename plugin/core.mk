# plugin core: options, state machine, driver/process helpers (all in libcudastore.a)
libcudastore_a_SOURCES += \
	plugin/helper/context.c plugin/helper/context.h \
	plugin/criu/criu_opts.c plugin/criu/criu_opts.h \
	plugin/helper/devices.c plugin/helper/devices.h \
	plugin/helper/dump.c plugin/helper/dump.h \
	plugin/errmsg.h \
	plugin/helper/gpuop.c plugin/helper/gpuop.h \
	plugin/images/imgindex.c plugin/images/imgindex.h \
	plugin/helper/imgset.c plugin/helper/imgset.h \
	plugin/helper_path.c plugin/helper_path.h \
	plugin/trust.c plugin/trust.h \
	plugin/log.h \
	plugin/strsafe.c plugin/strsafe.h \
	plugin/options.c plugin/options.h \
	plugin/helper/plan.c plugin/helper/plan.h \
	plugin/helper/prefetch.c plugin/helper/prefetch.h \
	plugin/procfs.c plugin/procfs.h \
	plugin/helper/restore.c plugin/helper/restore.h \
	plugin/helper/relay.h \
	plugin/wire.c plugin/wire.h \
	plugin/helper/stats.c plugin/helper/stats.h \
	plugin/helper/summary.c plugin/helper/summary.h \
	plugin/helper/warmup.c plugin/helper/warmup.h \
	plugin/helper/batch.c plugin/helper/batch.h \
	plugin/helper/recover.c plugin/helper/recover.h \
	plugin/helper/isolate.c plugin/helper/isolate.h
