# fragment: see Makefile.am
# ===== libcscriu.a and the plugin .so: inside criu (sees criu and base only) ====================
# criu_opts.c in a library of its own so that tests/criu/test-criu-opts links it too
noinst_LIBRARIES += libcscriu.a
libcscriu_a_CPPFLAGS = $(CS_DEFS) $(CS_CRIU_INC)
libcscriu_a_SOURCES = plugin/criu/criu_opts.c plugin/criu/criu_opts.h

# the plugin .so: hooks.c and its helpers, exporting only CR_PLUGIN_DESC (plugin/criu/plugin.map)
criuplugin_PROGRAMS = cudastore_plugin.so
cudastore_plugin_so_SOURCES = plugin/criu/hooks.c plugin/log.h plugin/criu/log_criu.c plugin/criu/log_criu.h \
	plugin/criu/helper_link.c \
	plugin/criu/helper_link.h plugin/criu/rthread.c plugin/criu/rthread.h plugin/criu/freezer.c plugin/criu/freezer.h
cudastore_plugin_so_CPPFLAGS = $(CS_DEFS) $(CS_CRIU_INC)
cudastore_plugin_so_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
cudastore_plugin_so_LDFLAGS = -shared -Wl,--version-script=$(top_srcdir)/plugin/criu/plugin.map
cudastore_plugin_so_LDADD = libcscriu.a libcsbase.a $(PROTOBUF_C_LIBS) -lpthread -ldl
EXTRA_DIST += plugin/criu/plugin.map
cudastore_plugin_so_DEPENDENCIES = libcscriu.a libcsbase.a $(top_srcdir)/plugin/criu/plugin.map
