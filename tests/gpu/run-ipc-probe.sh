#!/usr/bin/env bash
# run-ipc-probe.sh - a CUDA IPC pair (bin/cuda-ipc-pair: an exporter and the importer it forked and
# exec'd, sharing device memory through cudaIpcGetMemHandle / cudaIpcOpenMemHandle) beside a plain
# CUDA process, on an NVIDIA host: what tells the three apart, and what a checkpoint and restore of
# the pair through CRIU and the cudastore plugin do. Needs the artifacts of
# scripts/make-gpu-artifacts.sh (criu bundle, plugins, bin/cuda-ipc-pair, bin/cuda-checkpoint-standin),
# root and python3 (subreaper, kcmp); nothing is installed.
#
#   run-ipc-probe.sh [--artifacts DIR] [--images DIR] [--size 256m] [--out DIR] [--keep]
#                    [--no-driver-orders]
#
# a. start a --plain process and a pair
# b. probe the three (/proc, nvidia-smi, kcmp, the driver's state) and print what differs between
#    the plain process and each of the pair
# c. criu dump of the pair with the plugin's defaults; the images are backed up before any restore
# d. criu restore -d with the defaults (every process's GPU restore at once), then the verdicts
# e. only when d failed: the same from a fresh copy with CUDASTORE_PARALLEL=1 (one process at a
#    time, in criu's order: the root first)
# f. criu dump --leave-running of a fresh pair: both must run on and verify
# g. no CRIU: the driver's own lock/checkpoint/restore/unlock (cuda-checkpoint-standin) on fresh
#    pairs: the importer alone, both in each restore order, the exporter alone (last: the importer
#    reads its memory meanwhile)
#
# The run never hangs: every criu call is bounded by CRIU_LIMIT (300 s), every driver call by 60 s,
# and the processes it started are killed at exit. About 2 minutes at 256m. Into --out DIR:
# summary.txt (printed at the end), probes.txt, dump-restore.txt, driver-orders.txt and
# logs.tar.gz (criu's logs and the processes' own, whole).
set -uo pipefail
# the run adopts what it orphans (PR_SET_CHILD_SUBREAPER, kept across exec): a pair criu killed is
# reaped and its pids are free for the restore even where pid 1 reaps nothing
if [ -z "${CS_IPC_SUBREAPER:-}" ] && command -v python3 >/dev/null; then
	CS_IPC_SUBREAPER=1 exec python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
os.execv(sys.argv[1], sys.argv[1:])' "$BASH" "$0" "$@"
fi
ART=$(cd "$(dirname "$0")" && pwd)
IMGBASE=/dev/shm/cudastore-ipc-probe
SIZE=256m
OUT=$PWD/ipc-probe
KEEP=
ORDERS=1
LIMIT=${CRIU_LIMIT:-300}
while [ $# -gt 0 ]; do
	case "$1" in
	--artifacts) ART=$2; shift 2 ;;
	--images) IMGBASE=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--no-driver-orders) ORDERS=; shift ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 2; }
CRIU=$ART/criu/criu
PLUGINS=$ART/plugins
PAIR=$ART/bin/cuda-ipc-pair
STANDIN=$ART/bin/cuda-checkpoint-standin
for f in "$CRIU" "$PLUGINS/cudastore_plugin.so" "$PAIR"; do
	[ -e "$f" ] || { echo "missing $f: run scripts/make-gpu-artifacts.sh (with nvcc for the pair)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "python3 needed (subreaper, kcmp)" >&2; exit 2; }
[ -x "$STANDIN" ] || STANDIN=
PAIR=$(readlink -f "$PAIR")
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
SUM=$OUT/summary.txt
PRB=$OUT/probes.txt
DR=$OUT/dump-restore.txt
DRV=$OUT/driver-orders.txt
: >"$SUM"; : >"$PRB"; : >"$DR"; : >"$DRV"; rm -f "$OUT/logs.tar.gz"
TMP=$(mktemp -d /tmp/cudastore-ipc.XXXXXX)
RUN=$TMP/run   # the processes' pid, ready, verdict and log files (their logs must stay where they were for criu)
LOGS=$TMP/logs # what goes into logs.tar.gz
mkdir -p "$RUN" "$LOGS"
IMG=$IMGBASE/pair
BAK=$IMGBASE/pair.backup
PIDS=
E=
I=
V=

exec 3>&2 # the terminal: progress lines, whatever a step's own output goes to
log() { echo "[$(date +%T)] $*" >&3; }
sum() { echo "$*" >>"$SUM"; log "$*"; }
sect() { printf '\n-- %s\n' "$*"; }
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
pstate() { # gone | zombie | alive(STATE)
	local s
	s=$(awk '/^State:/ { print $2; exit }' "/proc/$1/status" 2>/dev/null)
	case $s in
	"") echo gone ;;
	Z) echo zombie ;;
	*) echo "alive($s)" ;;
	esac
}
alive() { [[ $(pstate "$1") == alive* ]]; }
wait_gone() { # wait_gone PID [SECONDS]
	for _ in $(seq $((${2:-20} * 20))); do
		[ -d "/proc/$1" ] || return 0
		sleep 0.05
	done
	return 1
}
# a pid is killed only while it still runs our program (pids are reused)
ours() { [ -n "$1" ] && [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$PAIR" ]; }

pack_logs() {
	local f
	cp "$RUN"/*.log "$LOGS/" 2>/dev/null
	tar -C "$TMP" -czf "$OUT/logs.tar.gz" logs 2>/dev/null
	[ "$(stat -c %s "$OUT/logs.tar.gz" 2>/dev/null || echo 0)" -le $((15 << 20)) ] && return
	for f in "$LOGS"/*; do # too big: each log's first and last 20000 lines
		[ "$(wc -l <"$f")" -gt 40000 ] || continue
		{ head -n 20000 "$f"; echo "... trimmed ..."; tail -n 20000 "$f"; } >"$f.t" && mv "$f.t" "$f"
	done
	tar -C "$TMP" -czf "$OUT/logs.tar.gz" logs 2>/dev/null
}
cleanup() {
	local p
	for p in $PIDS; do ours "$p" && kill -9 "$p" 2>/dev/null; done
	for p in $PIDS; do wait_gone "$p" 5; done
	pack_logs
	[ -n "$KEEP" ] || { rm -rf "$IMG" "$BAK" "$IMGBASE/leave-running"; rmdir "$IMGBASE" 2>/dev/null; }
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# start NAME [cuda-ipc-pair options]: a detached process (or pair), ready; sets E, and I for a pair
start() {
	local n=$1 rc
	shift
	rm -f "$RUN/$n".*
	timeout -k 5 180 "$PAIR" --daemon --size "$SIZE" --pidfile "$RUN/$n.pid" --child-pidfile "$RUN/$n.cpid" \
		--ready "$RUN/$n.ready" --outfile "$RUN/$n.out" "$@" >>"$RUN/$n.log" 2>&1 </dev/null
	rc=$?
	E=$(cat "$RUN/$n.pid" 2>/dev/null)
	I=$(cat "$RUN/$n.cpid" 2>/dev/null)
	PIDS="$PIDS $E $I"
	[ $rc = 0 ] && [ -e "$RUN/$n.ready" ] && return 0
	log "$n did not start (rc $rc): $(tail -n 3 "$RUN/$n.log" | tr '\n' ' ')"
	return 1
}

# outcome NAME SUFFIX PID: the process's verdict, waiting up to 60 s while it runs
outcome() {
	local f=$RUN/$1.out.$2
	for _ in $(seq 600); do
		[ -s "$f" ] && break
		alive "$3" || { sleep 0.3; break; }
		sleep 0.1
	done
	[ -s "$f" ] && head -n 1 "$f" || echo "no verdict (process $(pstate "$3"))"
}

# finish NAME PID [IMPORTER]: SIGTERM to the process (and the importer), their verdicts into V;
# whatever is left is then killed
finish() {
	local p
	for p in $2 ${3:-}; do alive "$p" && kill -TERM "$p"; done
	if [ -n "${3:-}" ]; then
		V="exporter: $(outcome "$1" parent "$2"); importer: $(outcome "$1" child "$3")"
	else
		V="plain: $(outcome "$1" plain "$2")"
	fi
	for p in $2 ${3:-}; do
		wait_gone "$p" 30 && continue
		log "pid $p ($(pstate "$p")) still there after its verdict: killed"
		ours "$p" && kill -9 "$p"
		wait_gone "$p" 10
	done
}
passed() { [ "$V" = "exporter: PASS; importer: PASS" ]; }

# ---------------------------------------------------------------- probes
maps_summary() { # one line per mapped path: mappings, size, permissions:count
	awk 'function hex(s,   i, n) {
		n = 0
		for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	{
		split($1, a, "-"); p = $6
		for (i = 7; i <= NF; i++) p = p " " $i
		if (p == "") p = "[anon]"
		n[p]++; kib[p] += (hex(a[2]) - hex(a[1])) / 1024
		if (!((p, $2) in pc)) perms[p] = perms[p] " " $2
		pc[p, $2]++
	}
	END {
		for (p in n) {
			s = ""; m = split(perms[p], q, " ")
			for (i = 1; i <= m; i++) s = s " " q[i] ":" pc[p, q[i]]
			printf "%s: %d maps, %.0f KiB,%s\n", p, n[p], kib[p], s
		}
	}' "/proc/$1/maps" | LC_ALL=C sort
}

sockets() { # the unix sockets among PID's descriptors, with their names
	local fd t ino
	for fd in /proc/"$1"/fd/*; do
		t=$(readlink "$fd") || continue
		[[ $t == socket:* ]] || continue
		ino=${t#socket:[}
		ino=${ino%]}
		echo "fd ${fd##*/} socket $ino: $(awk -v i="$ino" '$7 == i { print "unix type " $5 " state " $6 " name " ($8 == "" ? "-" : $8); f = 1 }
			END { if (!f) print "not a unix socket of this network namespace" }' "/proc/$1/net/unix")"
	done
}

driver_view() { # what the driver's checkpoint API says about PID
	[ -n "$STANDIN" ] || { echo "no bin/cuda-checkpoint-standin"; return; }
	echo "state: $(timeout -k 2 30 "$STANDIN" --get-state --pid "$1" 2>&1 | tr '\n' ' ')"
	echo "restore thread: $(timeout -k 2 30 "$STANDIN" --get-restore-tid --pid "$1" 2>&1 | tr '\n' ' ')"
}

probe() { # probe LABEL PID: everything cheap that /proc and the driver say about PID
	local p=$2 fd t
	printf '\n################ %s: pid %s, %s, parent %s ################\n' "$1" "$p" "$(pstate "$p")" \
		"$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)"
	sect "cmdline"; tr '\0' ' ' <"/proc/$p/cmdline"; echo
	sect "maps by path (mappings, size, permissions:count)"; maps_summary "$p"
	sect "fd (ls -l)"; ls -l "/proc/$p/fd"
	sect "fdinfo of the /dev/nvidia* descriptors"
	for fd in /proc/"$p"/fd/*; do
		t=$(readlink "$fd") || continue
		[[ $t == /dev/nvidia* ]] || continue
		echo "fd ${fd##*/} -> $t"
		sed 's/^/    /' "/proc/$p/fdinfo/${fd##*/}"
	done
	sect "unix sockets"; sockets "$p"
	sect "threads: $(ls "/proc/$p/task" | wc -l)"
	for t in /proc/"$p"/task/*; do echo "${t##*/} $(cat "$t/comm")"; done
	sect "environ keys"; tr '\0' '\n' <"/proc/$p/environ" | sed -n 's/=.*//p' | sort | tr '\n' ' '; echo
	sect "namespaces"; for t in /proc/"$p"/ns/*; do printf '%s ' "${t##*/}=$(readlink "$t")"; done; echo
	sect "the driver's view"; driver_view "$p"
	sect "status"; cat "/proc/$p/status"
	sect "smaps_rollup"; cat "/proc/$p/smaps_rollup"
	sect "map_files (ls -l)"; ls -l "/proc/$p/map_files" | awk 'NR > 1 { print $9, $10, $11 }'
	sect "maps"; cat "/proc/$p/maps"
	sect "smaps"; cat "/proc/$p/smaps"
} 2>&1

counted() { LC_ALL=C sort | uniq -c | sed -E 's/^ *([0-9]+) (.*)/\2 (x\1)/'; }

# signature PID: the comparable part of a probe (no addresses, pids, descriptor or inode numbers),
# sorted, for a diff between processes
signature() {
	local p=$1 fd t
	maps_summary "$p" | sed 's/^/maps /'
	awk '/^[0-9a-f]+-[0-9a-f]+ / { p = $6; for (i = 7; i <= NF; i++) p = p " " $i; if (p == "") p = "[anon]" }
		/^VmFlags:/ { sub(/^VmFlags: */, ""); sub(/ *$/, ""); print "vmflags " p ": " $0 }' "/proc/$p/smaps" | counted
	for fd in /proc/"$p"/fd/*; do
		t=$(readlink "$fd") || continue
		case $t in
		socket:*) t=socket ;;
		pipe:*) t=pipe ;;
		"$RUN"/*) t="its log file" ;;
		/dev/nvidia*) t="$t flags $(awk '/^flags:/ { print $2 }' "/proc/$p/fdinfo/${fd##*/}")" ;;
		esac
		echo "fd -> $t"
	done | counted
	sockets "$p" | sed -E 's/^fd [0-9]+ socket [0-9]+:/socket/; s/[0-9]{3,}/N/g' | counted
	echo "threads $(ls "/proc/$p/task" | wc -l)"
	cat /proc/"$p"/task/*/comm | sed 's/^/thread /' | counted
	tr '\0' '\n' <"/proc/$p/environ" | sed -n 's/=.*//p' | sed 's/^/env /'
	grep -E '^(Threads|SigBlk|SigIgn|SigCgt|CapEff|Seccomp|NoNewPrivs|VmLck|VmPin|HugetlbPages):' "/proc/$p/status" |
		tr -s '\t ' ' ' | sed 's/^/status /'
	driver_view "$p" | sed -E 's/[0-9]{3,}/N/g; s/^/driver /'
} 2>/dev/null

# sigdiff A B: lines only in A ("- "), only in B ("+ ")
sigdiff() {
	LC_ALL=C comm -3 <(LC_ALL=C sort "$1") <(LC_ALL=C sort "$2") | sed 's/^\t/+ /; /^+ /!s/^/- /'
}

# same_files LABEL PID LABEL PID: descriptors of the two that are one open file (kcmp KCMP_FILE)
same_files() {
	[ -n "$2" ] && [ -n "$4" ] || { echo "$1/$3: a pid is missing"; return; }
	python3 - "$@" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
la, a, lb, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def fds(p):
    try:
        return sorted(int(f) for f in os.listdir("/proc/%d/fd" % p))
    except OSError:
        return []
def target(p, fd):
    try:
        return os.readlink("/proc/%d/fd/%d" % (p, fd))
    except OSError:
        return "?"
n = 0
for fa in fds(a):
    for fb in fds(b):
        L = ctypes.c_long
        r = libc.syscall(L(312), L(a), L(b), L(0), L(fa), L(fb))  # kcmp(KCMP_FILE), x86-64
        if r < 0:
            print("kcmp %s/%s: %s" % (la, lb, os.strerror(ctypes.get_errno())))
            sys.exit(0)
        if r == 0:
            n += 1
            print("%s fd %d (%s) is %s fd %d (%s)" % (la, fa, target(a, fa), lb, fb, target(b, fb)))
if not n:
    print("%s and %s share no open file" % (la, lb))
EOF
}

host_probes() {
	sect "host"; uname -r; cat /proc/driver/nvidia/version; cat /proc/driver/nvidia/gpus/*/information
	if command -v nvidia-smi >/dev/null; then
		sect "nvidia-smi --query-compute-apps=pid,process_name,used_memory"
		timeout 60 nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
		sect "nvidia-smi -q -d PIDS"; timeout 60 nvidia-smi -q -d PIDS
		sect "nvidia-smi --query-gpu"
		timeout 60 nvidia-smi --query-gpu=name,memory.used,memory.total,compute_mode --format=csv
	else
		sect "no nvidia-smi"
	fi
	sect "ls -la /dev/shm"; ls -la /dev/shm
	sect "ls -l /dev/nvidia*"; ls -l /dev/nvidia*
	sect "/proc/net/unix (first 300 lines)"; head -n 300 /proc/net/unix
	sect "descriptors that are one open file (kcmp)"
	same_files exporter "$E" importer "$I"
	same_files plain "$PLAIN" exporter "$E"
	same_files plain "$PLAIN" importer "$I"
} 2>&1

# ---------------------------------------------------------------- criu
# logs CRIU-LOG TITLE: the parts of a criu log worth reading beside the result
log_excerpts() {
	sect "$2: the plugin's lines"; grep -a 'cudastore' "$1"
	sect "$2: errors and warnings"; grep -aE 'Error|Warn|fail' "$1" | head -n 60
	sect "$2: last 40 lines"; tail -n 40 "$1"
} 2>&1

# the lines of a criu log that say why something failed, indented, for the summary
why() {
	{
		grep -a 'cudastore' "$1" | grep -aiE 'fail|error|cannot|refus|lost' | head -n 4
		grep -a 'Error' "$1" | grep -av 'cudastore\|RLIMIT_NOFILE' | head -n 3
	} 2>/dev/null | cut -c 1-300 | sed 's/^/   /'
}

pages_per_pid() { # host pages criu dumped per pid, from its dump log
	awk '/Dumping pages \(type: [0-9]+ pid: [0-9]+\)/ { match($0, /pid: [0-9]+/); pid = substr($0, RSTART + 5, RLENGTH - 5); order[++n] = pid }
		/Pagemap generated: [0-9]+ pages/ { match($0, /generated: [0-9]+/); pg[pid] += substr($0, RSTART + 11, RLENGTH - 11) }
		END { for (i = 1; i <= n; i++) printf "%spid %s %.1f MiB", (i > 1 ? ", " : ""), order[i], pg[order[i]] * 4096 / 1048576 }' "$1"
}

# restore_try STEP LABEL [VAR=VALUE...]: criu restore -d of a fresh copy of the backup with
# VAR=VALUE in criu's environment; the verdicts if anything runs. 0 when both run on and pass.
restore_try() {
	local step=$1 label=$2 t0 t1 rc se si p
	shift 2
	rm -rf "$IMG" && cp -a "$BAK" "$IMG"
	rm -f "$RUN"/pair.out.*
	t0=$(now)
	timeout -k 5 "$LIMIT" env "$@" "$CRIU" restore -d -D "$IMG" -o restore.log -v4 -L "$PLUGINS" >"$TMP/criu.out" 2>&1
	rc=$?
	t1=$(now)
	cp "$IMG/restore.log" "$LOGS/pair-restore-$label.log" 2>/dev/null
	sleep 1
	se=$(pstate "$E")
	si=$(pstate "$I")
	if alive "$E" && alive "$I"; then
		{ probe "exporter after restore ($label)" "$E"; probe "importer after restore ($label)" "$I"; } >>"$PRB"
	fi
	if alive "$E" || alive "$I"; then finish pair "$E" "$I"; else V="nothing runs"; fi
	for p in $E $I; do ours "$p" && kill -9 "$p"; wait_gone "$p" 10; done
	{
		printf '\n================ restore (%s): criu restore -d, %s\n' "$label" "${*:-the defaults}"
		echo "rc $rc in $(dt "$t0" "$t1") s$([ "$rc" = 124 ] || [ "$rc" = 137 ] && echo ": hung, killed after $LIMIT s")"
		echo "1 s after it: exporter $E $se, importer $I $si"
		echo "verdicts: $V"
		sect "criu's own output"; cat "$TMP/criu.out"
		sect "restored pages (nr_restored_pages per process)"; grep -a 'nr_restored_pages' "$IMG/restore.log"
		log_excerpts "$IMG/restore.log" "restore.log"
		sect "the pair's log since the dump"; sed -n '/=== dumped ===/,$p' "$RUN/pair.log" | tail -n 60
	} >>"$DR" 2>&1
	sum "$step restore ($label): rc $rc in $(dt "$t0" "$t1") s; after it exporter $se, importer $si; $V"
	why "$IMG/restore.log" >>"$SUM"
	[ "$rc" = 0 ] && passed
}

# ---------------------------------------------------------------- driver orders (no CRIU)
dstate() {
	if alive "$1"; then timeout -k 2 30 "$STANDIN" --get-state --pid "$1" 2>&1 | head -n 1 | cut -c 1-100; else pstate "$1"; fi
}
# drv e|i ACTION: one checkpoint-API call on the exporter or importer, as cuda-checkpoint makes it
drv() {
	local pid=$E who=exporter t0 t1 out rc
	[ "$1" = i ] && pid=$I who=importer
	t0=$(now)
	out=$(timeout -k 5 60 "$STANDIN" --action "$2" --pid "$pid" --timeout 10000 2>&1)
	rc=$?
	t1=$(now)
	printf '  %-8s %-10s rc %-3s %6s s  %s\n' "$who" "$2" "$rc" "$(dt "$t0" "$t1")" "${out//$'\n'/ }"
	printf '  %-8s %-10s states now: exporter %s, importer %s\n' "" "" "$(dstate "$E")" "$(dstate "$I")"
	return "$rc"
}
driver_order() { # driver_order NAME STEP...: a fresh pair, the steps (e|i:ACTION), the verdicts
	local name=$1 step rc failed=
	shift
	echo
	echo "================ $name: $*"
	if ! start "drv-$name" --seed 11; then
		echo "the pair did not start"
		sum "g. $name: the pair did not start"
		return
	fi
	for step in "$@"; do
		drv "${step%%:*}" "${step#*:}" && continue
		rc=$?
		failed="$failed $step"
		# a call that hung: the driver is stuck on this pair, the rest would only hang as long
		[ $rc = 124 ] || [ $rc = 137 ] || continue
		echo "  the call hung (killed after 60 s): the rest of this order is skipped"
		failed="$failed (hung; rest skipped)"
		break
	done
	sleep 1
	finish "drv-$name" "$E" "$I"
	echo "verdicts: $V"
	sum "g. $name: ${failed:+failed:$failed; }$V"
}

# ================================================================ the run
DRIVER=$(head -n 1 /proc/driver/nvidia/version 2>/dev/null)
rm -rf "$IMG" "$BAK" "$IMGBASE/leave-running" # made at the dump: not in b's /dev/shm listing
sum "cuda-ipc-pair probe $(date -u +%FT%TZ): $(uname -r), ${DRIVER:-no NVIDIA driver}; size $SIZE; images in $IMGBASE"
"$CRIU" check >"$TMP/check" 2>&1 || sum "criu check failed: $(tail -n 2 "$TMP/check" | tr '\n' ' ')"

# a.
start plain --plain --seed 5 || sum "a. the plain process did not start: $(tail -n 2 "$RUN/plain.log" | tr '\n' ' ')"
PLAIN=$E
if ! start pair --seed 7; then
	sum "a. the pair did not start: $(tail -n 3 "$RUN/pair.log" | tr '\n' ' ')"
	exit 1
fi
sum "a. plain $PLAIN; pair: exporter $E, importer $I; all ready"

# b.
{
	echo "probes of the plain process, the exporter and the importer, before any dump"
	host_probes
	[ -z "$PLAIN" ] || probe plain "$PLAIN"
	probe exporter "$E"
	probe importer "$I"
} >>"$PRB"
signature "$PLAIN" >"$TMP/sig.plain"
signature "$E" >"$TMP/sig.exporter"
signature "$I" >"$TMP/sig.importer"
{
	printf '\n################ what differs (- the plain process only, + the other only)\n'
	for w in importer exporter; do
		sect "plain vs $w"
		sigdiff "$TMP/sig.plain" "$TMP/sig.$w"
	done
	sect "exporter vs importer"
	sigdiff "$TMP/sig.exporter" "$TMP/sig.importer"
} | tee -a "$PRB"
same_files exporter "$E" importer "$I" >"$TMP/kcmp"
nv=$(grep -a ' is .*nvidia' "$TMP/kcmp" | sed 's/ (\/dev\//(/g; s/exporter //; s/ is importer/ =/' | tr '\n' ' ')
sum "b. signature lines that differ: plain/importer $(sigdiff "$TMP/sig.plain" "$TMP/sig.importer" | wc -l)," \
	"plain/exporter $(sigdiff "$TMP/sig.plain" "$TMP/sig.exporter" | wc -l); exporter and importer share" \
	"$(grep -c ' is ' "$TMP/kcmp") open files (kcmp), $(grep -c ' is .*nvidia' "$TMP/kcmp") of /dev/nvidia*${nv:+: ${nv:0:300}}"
[ -z "$PLAIN" ] || finish plain "$PLAIN"
sum "b. the plain process after its probes: $V"

# c.
echo "=== dumped ===" >>"$RUN/pair.log"
mkdir -p "$IMG"
t0=$(now)
timeout -k 5 "$LIMIT" "$CRIU" dump -t "$E" -D "$IMG" -o dump.log -v4 -L "$PLUGINS" >"$TMP/criu.out" 2>&1
rc=$?
t1=$(now)
cp "$IMG/dump.log" "$LOGS/pair-dump.log" 2>/dev/null
se=$(pstate "$E")
si=$(pstate "$I")
cp -a "$IMG" "$BAK"
{
	printf '================ dump: criu dump -t %s (exporter; importer %s) -v4 -L plugins\n' "$E" "$I"
	echo "rc $rc in $(dt "$t0" "$t1") s; right after it: exporter $se, importer $si"
	sect "criu's own output"; cat "$TMP/criu.out"
	sect "host pages dumped per process"; pages_per_pid "$IMG/dump.log"; echo
	sect "images (ls -la)"; ls -la "$IMG"; du -sh "$IMG"
	for f in "$IMG"/cudastore-*.json; do [ -e "$f" ] && { sect "$(basename "$f")"; cat "$f"; echo; }; done
	log_excerpts "$IMG/dump.log" "dump.log"
} >>"$DR" 2>&1
sum "c. dump: rc $rc in $(dt "$t0" "$t1") s; after it exporter $se, importer $si; pages $(pages_per_pid "$IMG/dump.log");" \
	"images $(du -sh "$IMG" 2>/dev/null | cut -f1)"
grep -a 'cudastore' "$IMG/dump.log" | grep -aE "pid ($E|$I)\b" | head -n 6 | cut -c 1-300 | sed 's/^/   /' >>"$SUM"
why "$IMG/dump.log" >>"$SUM"

if [ "$rc" = 0 ]; then
	# d. and e.
	wait_gone "$E" || sum "c. exporter $E still there ($(pstate "$E")) 20 s after the dump"
	wait_gone "$I" || sum "c. importer $I still there ($(pstate "$I")) 20 s after the dump"
	if restore_try d. defaults; then
		sum "e. not run: the restore with the defaults passed"
	else
		restore_try e. parallel-1 CUDASTORE_PARALLEL=1
	fi
else
	# the plugin put them back to running (or not): their verdicts, and the next steps
	finish pair "$E" "$I"
	sum "c. after the failed dump: $V"
fi

# f.
if start leave-running --seed 9; then
	img=$IMGBASE/leave-running
	mkdir -p "$img"
	echo "=== dumped ===" >>"$RUN/leave-running.log"
	t0=$(now)
	timeout -k 5 "$LIMIT" "$CRIU" dump -t "$E" -D "$img" -o dump.log -v4 -L "$PLUGINS" --leave-running >"$TMP/criu.out" 2>&1
	rc=$?
	t1=$(now)
	cp "$img/dump.log" "$LOGS/leave-running-dump.log" 2>/dev/null
	sleep 2
	se=$(pstate "$E")
	si=$(pstate "$I")
	finish leave-running "$E" "$I"
	{
		printf '\n================ leave-running: criu dump -t %s --leave-running (importer %s)\n' "$E" "$I"
		echo "rc $rc in $(dt "$t0" "$t1") s; 2 s after it: exporter $se, importer $si"
		echo "verdicts: $V"
		sect "criu's own output"; cat "$TMP/criu.out"
		log_excerpts "$img/dump.log" "leave-running dump.log"
		sect "the pair's log since the dump"; sed -n '/=== dumped ===/,$p' "$RUN/leave-running.log" | tail -n 60
	} >>"$DR" 2>&1
	sum "f. leave-running dump: rc $rc in $(dt "$t0" "$t1") s; 2 s after it exporter $se, importer $si; $V"
	why "$img/dump.log" >>"$SUM"
	rm -rf "$img"
else
	sum "f. the leave-running pair did not start"
fi

# g.
if [ -z "$ORDERS" ]; then
	sum "g. skipped (--no-driver-orders)"
elif [ -z "$STANDIN" ]; then
	sum "g. skipped: no bin/cuda-checkpoint-standin"
else
	{
		echo "The driver's own checkpoint calls on running pairs, no CRIU (bin/cuda-checkpoint-standin, one call"
		echo "per run, lock timeout 10 s); after each call both processes' states; then SIGTERM and the verdicts."
		driver_order importer-alone i:lock i:checkpoint i:restore i:unlock
		driver_order both-exporter-restored-first e:lock i:lock e:checkpoint i:checkpoint e:restore i:restore e:unlock i:unlock
		driver_order both-importer-restored-first e:lock i:lock e:checkpoint i:checkpoint i:restore e:restore i:unlock e:unlock
		driver_order both-importer-checkpointed-first i:lock e:lock i:checkpoint e:checkpoint e:restore i:restore e:unlock i:unlock
		driver_order exporter-alone e:lock e:checkpoint e:restore e:unlock
	} >>"$DRV" 2>&1
fi

echo
echo "================ summary ($SUM)"
cat "$SUM"
echo "files: $(cd "$OUT" && ls | tr '\n' ' ')logs.tar.gz (written at exit)"
