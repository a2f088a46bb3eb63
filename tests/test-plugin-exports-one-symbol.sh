#!/bin/bash
# The plugin .so exports exactly CR_PLUGIN_DESC, and every symbol it imports comes from libc,
# protobuf-c, or the criu binary (weak where criu versions differ): nothing else can break a load.
. "$top_srcdir/tests/e2e/lib.sh"
plan 5
SO=$PLUGIN_SO
defined=$(nm -D --defined-only "$SO" | awk '$2 ~ /[A-TV-Z]/ {print $3}' | grep -v '^_' | sort | tr '\n' ' ')
check "only CR_PLUGIN_DESC is exported (found: $defined)" [ "$defined" = "CR_PLUGIN_DESC " ]
bad=$(nm -D --undefined-only "$SO" | awk '{print $NF}' | while read -r s; do
	case "$s" in
	*@GLIBC_*|*@LIBPROTOBUF_C_*) ;;                      # libc, libprotobuf-c (criu links it too)
	print_on_level|criu_get_image_dir) ;;                # criu's plugin API
	add_inventory_plugin|check_and_remove_inventory_plugin|set_compel_interrupt_only_mode) ;;
	collect_madv_guards) ;;                              # criu >= 4.2 marker (hooks.c), weak
	criu_run_id|dump_criu_run_id) ;;                     # criu's run ids (hooks.c), weak
	opts|log_get_loglevel) ;;                            # criu's options (plugin/criu/criu_opts.c)
	_ITM_*|__gmon_start__|__cxa_finalize*) ;;            # toolchain weak refs
	*) echo "$s" ;;
	esac
done | tr '\n' ' ')
check "every import is on the allow-list (unexpected: ${bad:-none})" [ -z "$bad" ]
weak=$(nm -D "$SO" | awk '$1 == "w" {print $2}' | grep -E 'inventory|interrupt_only|^opts$|log_get_loglevel|madv_guards|run_id' | sort | tr '\n' ' ')
check "criu internals are weak imports ($weak)" \
	[ "$weak" = "add_inventory_plugin check_and_remove_inventory_plugin collect_madv_guards criu_run_id dump_criu_run_id log_get_loglevel opts set_compel_interrupt_only_mode " ]
# criu's process never runs driver code: the driver tables and dlopen live in cudastore-helper
check "no driver code in the plugin (no cuCheckpoint* names)" sh -c "! grep -q cuCheckpointProcessLock '$SO'"
check "the plugin loads no library itself (no dlopen import)" sh -c "! nm -D --undefined-only '$SO' | grep -q dlopen"
done_testing
