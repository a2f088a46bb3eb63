#!/bin/bash
# cudastore check names the plugin directory criu really searches, in criu's order: -L
# (--plugin-dir), else libdir in criu's config files (/etc/criu/default.conf, ~/.criu/default.conf,
# $CRIU_CONFIG_FILE, the last one winning), else $CRIU_LIBS_DIR, else the directory compiled into
# criu, which 'criu --help' names (a stand-in criu names its own here, and the real one is asked
# too). Where the plugin is not there, it says that criu will not load it and what to do. Before,
# it called this build's own install directory (PREFIX/lib/criu) "criu's default" and said a dump
# would work from there, while criu without -L loaded nothing.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
grep -qsE '^[[:space:]]*lib' /etc/criu/default.conf && skip_all "/etc/criu/default.conf names a libdir here"
export CUDASTORE_LIBCUDA=$WORK/no-libcuda.so CUDASTORE_LIBNVML=$WORK/no-nvml.so
export HOME=$WORK/home
unset CRIU_LIBS_DIR CRIU_CONFIG_FILE
mkdir -p "$HOME"
plan 16
run() { "$CS" check --json "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
jget() { json_get "$WORK/out" "$1" 2>/dev/null; }
plugins() { mkdir -p "$1" && cp "$PLUGINDIR/cudastore_plugin.so" "$PLUGINDIR/cudastore-helper" "$1/"; }
# fake_criu DIR: a criu 4.2.1 whose compiled-in plugin directory is DIR
fake_criu() {
	printf '#!/bin/sh\ncase "$1" in\n--version) echo "Version: 4.2.1" ;;\n--help) echo "  -L|--libdir           path to a plugin directory (by default %s/)" ;;\ncheck) echo "Looks good." ;;\nesac\n' "$1" >"$WORK/criu"
	chmod 755 "$WORK/criu"
}
problem_has() { [ "$(jget "any(\"\"\"$1\"\"\" in p for p in d['problems'])")" = True ]; }

# ---- the directory compiled into criu, absent: criu loads nothing
fake_criu "$WORK/builtin"
run --criu "$WORK/criu"
check "criu's compiled-in directory, as 'criu --help' names it, not this build's install directory" \
	[ "$(jget "(d['criu']['plugin_dir'], d['criu']['plugin_dir_from'], d['criu']['default_plugin_dir_from_criu'])")" = "('$WORK/builtin', 'default', True)" ]
check "... it does not exist: exit 1, criu will not load the plugin from there" \
	bash -c "[ $RC = 1 ] && [ \"\$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[\"criu\"][\"default_plugin_dir_exists\"], d[\"criu\"][\"plugin\"])' '$WORK/out')\" = 'False None' ]"
check "... the problem says so, with -L DIR and where this build installs the plugin" \
	problem_has "criu will not load the plugin from here; pass -L DIR or install with --with-criu-plugindir=$WORK/builtin (DIR: the directory holding cudastore_plugin.so, $(jget "d['criu']['install_plugin_dir']") as this build installs it"
"$CS" check --criu "$WORK/criu" >"$WORK/text" 2>&1
check "the text names the directory and why criu uses it" \
	grep -q "^  plugin dir:     $WORK/builtin (criu's compiled-in default, as 'criu --help' says; it does not exist, so criu loads no plugin at all)" "$WORK/text"

# ---- the real criu: its own compiled-in directory
if [ -n "${CRIU:-}" ] && [ -x "$CRIU" ]; then
	real=$("$CRIU" --help | sed -n 's/.*--libdir.*(by default \(.*\))$/\1/p')
	real=${real%/}
	run --criu "$CRIU"
	check "the real criu: the directory 'criu --help' names ($real)" \
		[ "$(jget "(d['criu']['plugin_dir'], d['criu']['plugin_dir_from'])")" = "('$real', 'default')" ]
	if [ "$real" = /usr/lib/criu ] && [ ! -e "$real/cudastore_plugin.so" ]; then
		check "... the plugin is not in it: pass -L DIR or install with --prefix=/usr" \
			problem_has "criu will not load the plugin from here; pass -L DIR or install with --prefix=/usr"
	else
		ok "# SKIP criu's directory is $real, or holds a cudastore_plugin.so"
	fi
else
	ok "# SKIP no criu"; ok "# SKIP no criu"
fi

# ---- the compiled-in directory holding the plugin
plugins "$WORK/builtin"
run --criu "$WORK/criu"
check "the plugin in criu's compiled-in directory: found there, no problem about it" \
	[ "$(jget "(d['criu']['plugin'], [p for p in d['problems'] if 'plugin' in p])")" = "('$WORK/builtin/cudastore_plugin.so', [])" ]

# ---- CRIU_LIBS_DIR, then criu's config files, then -L
plugins "$WORK/env"
CRIU_LIBS_DIR=$WORK/env run --criu "$WORK/criu"
check "CRIU_LIBS_DIR wins over the compiled-in directory" \
	[ "$(jget "(d['criu']['plugin_dir'], d['criu']['plugin_dir_from'], d['criu']['plugin'])")" = "('$WORK/env', 'CRIU_LIBS_DIR', '$WORK/env/cudastore_plugin.so')" ]
mkdir -p "$WORK/env-empty"
CRIU_LIBS_DIR=$WORK/env-empty run --criu "$WORK/criu"
check "CRIU_LIBS_DIR without the plugin: criu will not load it, and how to fix that" \
	problem_has "(\$CRIU_LIBS_DIR): criu will not load the plugin from here; pass -L DIR, set CRIU_LIBS_DIR=DIR"
mkdir -p "$HOME/.criu"
printf '# mine\nlibdir=%s/user\n' "$WORK" >"$HOME/.criu/default.conf"
plugins "$WORK/user"
CRIU_LIBS_DIR=$WORK/env run --criu "$WORK/criu"
check "libdir in ~/.criu/default.conf wins over CRIU_LIBS_DIR, file and line named" \
	[ "$(jget "(d['criu']['plugin_dir'], d['criu']['plugin_dir_from'], d['criu']['plugin_dir_config'])")" = "('$WORK/user', 'config_file', '$HOME/.criu/default.conf:2')" ]
printf 'tcp-established\nlibdir "%s/conf"   # ours\n' "$WORK" >"$WORK/criu.conf"
plugins "$WORK/conf"
CRIU_CONFIG_FILE=$WORK/criu.conf run --criu "$WORK/criu"
check "libdir in \$CRIU_CONFIG_FILE (quoted, a comment after it) wins over ~/.criu/default.conf" \
	[ "$(jget "(d['criu']['plugin_dir'], d['criu']['plugin_dir_config'], d['criu']['plugin'])")" = "('$WORK/conf', '$WORK/criu.conf:2', '$WORK/conf/cudastore_plugin.so')" ]
"$CS" check --criu "$WORK/criu" >"$WORK/text" 2>&1
check "the text names the config file and line" \
	grep -q "^  plugin dir:     $WORK/user (libdir in criu's config file $HOME/.criu/default.conf:2)" "$WORK/text"
CRIU_CONFIG_FILE=$WORK/criu.conf run --criu "$WORK/criu" --plugin-dir "$WORK/builtin"
check "--plugin-dir (criu -L) wins over every config file" \
	[ "$(jget "(d['criu']['plugin_dir'], d['criu']['plugin_dir_from'])")" = "('$WORK/builtin', '--plugin-dir')" ]
printf 'lib %s/missing\n' "$WORK" >"$HOME/.criu/default.conf"
run --criu "$WORK/criu"
check "a config file's directory that does not exist: every criu run fails on it, said so" \
	problem_has "criu's plugin directory $WORK/missing cannot be read (No such file or directory), and every criu run fails on it (libdir in criu's config file $HOME/.criu/default.conf:1)"

# ---- the help
"$CS" check --help >"$WORK/help"
check "check --help no longer calls this build's directory criu's default" \
	bash -c "! grep -q 'else $(jget "d['criu']['install_plugin_dir']")' '$WORK/help' && grep -q \"as 'criu --help' names it\" '$WORK/help'"
check "check --help says where this build installs the plugin" \
	grep -qF "installs the plugin in" "$WORK/help"
done_testing
