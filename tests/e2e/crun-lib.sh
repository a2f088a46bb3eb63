# crun-lib.sh - the runc scenarios' container helpers (runc-lib.sh) run with crun (sourced after
# lib.sh, instead of runc-lib.sh).
#
# crun's command line is runc's for everything these tests use (spec, run -d, state, list -q,
# checkpoint, restore -d, kill, delete -f), so runc-lib.sh's helpers drive crun unchanged.
# Differences: crun needs CRIU support (`crun --version` shows +CRIU; Debian 12's package lacks
# it, scripts/provide-crun.sh builds one into /usr/local/lib/cudastore-crun), and it starts criu
# through libcriu (criu swrk, found in PATH). crun 1.8 reads no runtime CRIU config file (neither
# the org.criu.config annotation nor /etc/criu/crun.conf): the same CRIU config file the runc
# tests name in the annotation reaches criu through CRIU_CONFIG_FILE in crun's environment,
# which libcriu passes on to criu.
#
# crun 1.8 also refuses hybrid cgroups (v1 controllers plus a cgroup2 tree at
# /sys/fs/cgroup/unified) when cgroup2 holds any controller ("cgroups in hybrid mode not
# supported"), which some VMs have (hugetlb left in cgroup2). There, each crun command runs in a
# private mount namespace in which cgroup2's cgroup.controllers reads empty; the host is not
# changed, and the containers use the v1 controllers as runc's do.

CRUN=${CRUN:-}
if [ -z "$CRUN" ]; then
	for c in /usr/local/lib/cudastore-crun/crun "$(command -v crun || true)"; do
		[ -x "$c" ] && "$c" --version 2>/dev/null | grep -q '+CRIU' && { CRUN=$c; break; }
	done
fi
RUNC=$CRUN
. "$top_srcdir/tests/e2e/runc-lib.sh"

need_crun() {
	[ -n "$CRUN" ] || skip_all "no crun with CRIU support (+CRIU in crun --version; scripts/provide-crun.sh builds one)"
	"$CRUN" --version | grep -q '+CRIU' || skip_all "$CRUN lacks CRIU support (scripts/provide-crun.sh builds one)"
	ldconfig -p | grep -q 'libcriu\.so\.2 ' || skip_all "libcriu.so.2 not installed (scripts/provide-criu.sh installs it)"
	need_runc
	crun_hybrid_wrap
}

# crun_hybrid_wrap: on hybrid cgroups with cgroup2 controllers, $RUNC becomes a wrapper that
# runs crun as described above
crun_hybrid_wrap() {
	local u=/sys/fs/cgroup/unified/cgroup.controllers
	[ -n "$(cat "$u" 2>/dev/null)" ] || return 0
	command -v unshare >/dev/null || skip_all "hybrid cgroups with cgroup2 controllers ($(cat $u)), which crun 1.8 refuses, and no unshare to hide them"
	diag "hybrid cgroups with cgroup2 controllers ($(cat $u)): crun runs where $u reads empty"
	: >"$WORK/no-controllers"
	cat >"$WORK/crun-hybrid" <<WRAP
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount --bind "\$0" $u && exec "\$@"' "$WORK/no-controllers" "$CRUN" "\$@"
WRAP
	chmod 755 "$WORK/crun-hybrid"
	RUNC=$WORK/crun-hybrid
}

# as runc-lib.sh's, plus the CRIU config file through criu's environment (see above)
configure_plugin() { # configure_plugin MODE
	printf 'libdir %s\n' "$PLUGINDIR" >"$WORK/criu-runc.conf"
	printf 'mode = %s\n' "$1" >"$WORK/cudastore.conf"
	export CUDASTORE_CONFIG=$WORK/cudastore.conf
	export CRIU_CONFIG_FILE=$WORK/criu-runc.conf
}

# crun, unlike runc, wants the work directory to exist: runc-lib.sh's checkpoint and restore
# after creating it
eval "runc_$(declare -f ctr_checkpoint)"
eval "runc_$(declare -f ctr_restore)"
ctr_checkpoint() { mkdir -p "$3.work" && runc_ctr_checkpoint "$@"; }
ctr_restore() { mkdir -p "$3.rwork" && runc_ctr_restore "$@"; }
