#!/bin/bash
# make install puts every file under the configured prefix, each where the code looks for it:
# the plugin in criuplugindir, the helper where the plugin's fallback looks, the config path the
# plugin reads under --sysconfdir, man pages with the version and this build's paths, the
# documents they name, and the bash completion named for the command. Then configure alone (in a
# copy of the build system) for the directory rules: --prefix=/usr -> /usr/lib/criu, another
# prefix -> LIBDIR/criu, --with-criu-plugindir wins, --sysconfdir moves the config file, the
# bash completion goes to bash-completion's completionsdir (pkg-config) when that is under the
# prefix, else DATADIR/bash-completion/completions, --with-bash-completion-dir wins, and nothing
# outside the tree is read for CRIU's option layout unless --with-criu-src names it. Runs as any
# user.
. "$top_srcdir/tests/e2e/lib.sh"
WORK=$(mktemp -d /tmp/cs-install.XXXXXX) || bail "mktemp failed"
dirs=$(make -s --no-print-directory -C "$top_builddir" print-install-dirs 2>&1) &&
	eval "$(echo "$dirs" | grep -E '^[a-z]+=')" || bail "make print-install-dirs failed: $dirs"
plan 29
D=$WORK/destdir
make -s --no-print-directory -C "$top_builddir" install DESTDIR="$D" >"$WORK/install.log" 2>&1
rc=$?
check "make install DESTDIR=... succeeds" [ $rc = 0 ]
[ $rc = 0 ] || tail -n 20 "$WORK/install.log" | sed 's/^/# /'
files=$(cd "$D" && find . ! -type d | sed 's|^\.||' | sort)
echo "$files" | sed 's/^/# installed: /'
outside=$(echo "$files" | grep -v "^$prefix/")
check "every installed file is under the prefix $prefix" [ -z "$outside" ]
[ -z "$outside" ] || diag "outside: $outside"
check "the plugin is in $criuplugindir" [ -f "$D$criuplugindir/cudastore_plugin.so" ]
check "the helper is in $pkglibexecdir" [ -x "$D$pkglibexecdir/cudastore-helper" ]
check "the cudastore command is in $bindir" [ -x "$D$bindir/cudastore" ]
check "the bash completion is $bashcompletiondir/cudastore, named for the command" \
	bash -c "grep -q '^complete -F _cudastore cudastore' '$D$bashcompletiondir/cudastore'"
so=$D$criuplugindir/cudastore_plugin.so
check "the plugin falls back to the installed helper $pkglibexecdir/cudastore-helper" \
	grep -aqF "$pkglibexecdir/cudastore-helper" "$so"
check "the plugin's default config file is $csconfigfile" grep -aqF "$csconfigfile" "$so"
for m in man1/cudastore.1 man5/cudastore.conf.5 man8/cudastore-plugin.8; do
	check "man page $m is installed" [ -f "$D$mandir/$m" ]
done
f=$D$mandir/man1/cudastore.1
check "man1/cudastore.1: version $version in the header, no unsubstituted @...@" \
	bash -c "grep -q '^\.TH .*\"cudastore $version\"' '$f' && ! grep -q '@[A-Z_]*@' '$f'"
for m in man5/cudastore.conf.5 man8/cudastore-plugin.8; do
	f=$D$mandir/$m
	check "$m: version $version in the header, no unsubstituted @...@" \
		bash -c "grep -q '^\.TH .*\"cudastore $version\"' '$f' && ! grep -q '@[A-Z_]*@' '$f'"
	check "$m: names the config file $csconfigfile" grep -qF "$csconfigfile" "$f"
	missing=
	for doc in $(grep -o "$docdir/[A-Za-z0-9._-]\+" "$f" | sort -u); do
		[ -f "$D$doc" ] || missing="$missing $doc"
	done
	check "$m: every document it names under $docdir is installed${missing:+ (missing:$missing)}" [ -z "$missing" ]
done
check "cudastore-plugin.8 names the installed plugin and helper" \
	bash -c "grep -qF '$criuplugindir' '$D$mandir/man8/cudastore-plugin.8' && grep -qF '$pkglibexecdir' '$D$mandir/man8/cudastore-plugin.8'"

# --- configure's directory rules, in a copy of the build system ------------------------------
S=$WORK/src
mkdir -p "$S/plugin/criu" && cp -r "$top_srcdir/configure" "$top_srcdir/Makefile.in" "$top_srcdir/config.h.in" \
	"$top_srcdir/build-aux" "$S/" && cp "$top_srcdir/plugin/criu/hooks.c" "$S/plugin/criu/" ||
	bail "cannot copy the build system"
chmod -R u+w "$S" # a copy of a read-only source tree (make distcheck) must stay removable
conf() { # conf NAME configure-options...: configure in $WORK/NAME, prints nothing
	local n=$1; shift
	mkdir -p "$WORK/$n" && (cd "$WORK/$n" && "$S/configure" --with-criu-include="$criuincdir" \
		--with-criu=no "$@" >configure.out 2>&1)
}
mkvar() { sed -n "s/^$2 = //p" "$WORK/$1/Makefile"; }
conf usr --prefix=/usr
check "--prefix=/usr: the plugin goes to criu's default /usr/lib/criu" [ "$(mkvar usr criuplugindir)" = /usr/lib/criu ]
conf opt --prefix=/opt/cs --sysconfdir=/etc/opt/cs
check "--prefix=/opt/cs: the plugin goes under the prefix (\${libdir}/criu)" \
	[ "$(mkvar opt criuplugindir)/$(mkvar opt libdir)" = '${libdir}/criu/${exec_prefix}/lib' ]
check "--sysconfdir=/etc/opt/cs: the config file is /etc/opt/cs/cudastore/cudastore.conf" \
	grep -q "config file: *[/]etc/opt/cs/cudastore/cudastore.conf" "$WORK/opt/configure.out"
conf dir --prefix=/usr --with-criu-plugindir=/srv/criu-plugins
check "--with-criu-plugindir wins over the prefix" [ "$(mkvar dir criuplugindir)" = /srv/criu-plugins ]
check "without --with-criu-src, configure reads no CRIU source tree" \
	bash -c "! grep -q '^#define CS_CRIU_OPTS_PROBED' '$WORK/usr/config.h' && grep -q 'checked-in table only' '$WORK/usr/configure.out'"
# a bash-completion.pc of our own, found first: completionsdir=/usr/share/bash-completion/completions
mkdir -p "$WORK/pc"
printf 'prefix=/usr\ndatadir=${prefix}/share\ncompletionsdir=${datadir}/bash-completion/completions\nName: bash-completion\nDescription: x\nVersion: 2.11\n' \
	>"$WORK/pc/bash-completion.pc"
conf bcusr --prefix=/usr PKG_CONFIG_PATH="$WORK/pc"
check "--prefix=/usr: the bash completion goes to bash-completion's completionsdir" \
	[ "$(mkvar bcusr bashcompletiondir)" = /usr/share/bash-completion/completions ]
conf bcopt --prefix=/opt/cs PKG_CONFIG_PATH="$WORK/pc"
check "--prefix=/opt/cs: under the prefix instead, DATADIR/bash-completion/completions" \
	[ "$(mkvar bcopt bashcompletiondir)" = '${datadir}/bash-completion/completions' ]
conf bcdir --prefix=/usr --with-bash-completion-dir=/srv/bc PKG_CONFIG_PATH="$WORK/pc"
check "--with-bash-completion-dir wins" [ "$(mkvar bcdir bashcompletiondir)" = /srv/bc ]
conf bcno --with-bash-completion-dir=no
check "--with-bash-completion-dir=no installs none" \
	bash -c "grep -q '^#bashcompletion_DATA = ' '$WORK/bcno/Makefile' || grep -q '^INSTALL_BASH_COMPLETION_TRUE = #' '$WORK/bcno/Makefile'"
conf bad --with-criu-src="$WORK/no-such-tree"
rc=$?
check "--with-criu-src naming no CRIU tree fails, naming the directory" \
	bash -c "[ $rc != 0 ] && grep -q 'with-criu-src=$WORK/no-such-tree is not a configured CRIU source tree' '$WORK/bad/configure.out'"
done_testing
