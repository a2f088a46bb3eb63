# the plugin .so: hooks.c plus libcudastore.a, exporting only CR_PLUGIN_DESC (plugin/criu/plugin.map)
EXTRA_DIST += plugin/criu/plugin.map
cudastore_plugin_so_DEPENDENCIES = libcudastore.a $(top_srcdir)/plugin/criu/plugin.map
