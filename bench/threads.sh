#!/bin/sh
# threads.sh measures where OpenBLAS's threads pay off, on a quiet machine
# and beside two busy processes (two `while :; do :; done` shells that it
# starts and stops itself), to place the one-thread windows of
# blas/hybrid.go and lapackx/backend_native.go.
#
#   bench/threads.sh calls [sweeps]       every native call, one thread against all
#   bench/threads.sh domainadapt [rounds] 20 D→W epochs, RHGD_THREADS=1 against the default
#   bench/threads.sh scaling [count]      the synthetic epoch at d = 500 and 1000, likewise
#
# Each part waits until the 1-minute load average is below $MAX_LOAD
# (default 1.0) before it starts, so that neither other programs nor the
# previous part's busy processes skew it, prints `uptime` before and after,
# and after it the CPU time that other programs used meanwhile: quote a
# part only if that is small. CALLS_BENCH narrows `calls` to some
# sub-benchmarks (a go test -bench pattern), BENCHTIME sets the
# time per sub-benchmark (default 200ms).
# Results go to $OUT (default build/threads); the summaries are Markdown
# tables on standard output: medians, and speed-up = one thread's time
# over all threads' (above 1: threads win).
set -eu
cd "$(dirname "$0")/.."
OUT=${OUT:-build/threads}
mkdir -p "$OUT"
GO=${GO:-go}
PYTHON=${PYTHON:-/usr/bin/python3}

# settle waits for a quiet machine: a 1-minute load average below MAX_LOAD.
settle() {
	while ! awk -v max="${MAX_LOAD:-1.0}" '{exit !($1 < max)}' /proc/loadavg; do
		sleep 10
	done
}

spinners=""
load_on() {
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
		spinners="$spinners $!"
	done
	sleep 1
}
load_off() {
	for p in $spinners; do kill "$p" 2>/dev/null || true; done
	for p in $spinners; do wait "$p" 2>/dev/null || true; done
	spinners=""
}
trap load_off EXIT
trap 'load_off; exit 130' INT TERM

# CPU accounting, to tell whether other programs ran during a part: the
# machine's busy CPU time (/proc/stat) less this script's children's
# (`times`) and the busy shells' is what others used.
ticks=$(getconf CLK_TCK)
busy() { awk -v t="$ticks" '/^cpu /{print ($2 + $3 + $4 + $7 + $8) / t; exit}' /proc/stat; }
# children sets $child to the CPU seconds of the script's finished
# children; `times` must run in this shell, not in a $(...) subshell.
children() {
	times > "$OUT/.times"
	child=$(awk 'NR == 2 {split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2]}' "$OUT/.times")
}
shells() {
	c=0
	for p in $spinners; do c=$(awk -v c="$c" -v t="$ticks" '{print c + ($14 + $15) / t}' "/proc/$p/stat"); done
	echo "$c"
}
part_start() {
	settle
	[ "$1" = loaded ] && load_on
	echo "# $2 $1: $(uptime)" >&2
	children
	t0=$(date +%s.%N) b0=$(busy) c0=$child
}
part_end() {
	children
	b1=$(busy) c1=$child sh1=$(shells) t1=$(date +%s.%N)
	load_off
	awk -v b0="$b0" -v b1="$b1" -v c0="$c0" -v c1="$c1" -v s="$sh1" -v t0="$t0" -v t1="$t1" 'BEGIN {o = (b1 - b0) - (c1 - c0) - s; printf "# after %.0f s: other programs used %.1f CPU s (%.0f%% of one core)\n", t1 - t0, o, 100 * o / (t1 - t0)}' >&2
	echo "#   $(uptime)" >&2
}

# bench <name> <binary> <pattern> <sweeps>: the whole sweep <sweeps> times
# (so that a disturbance hits one sweep, not every repetition of one size),
# quiet and then loaded, into $OUT.
bench() {
	for cond in quiet loaded; do
		part_start "$cond" "$1"
		: > "$OUT/$1-$cond.txt"
		for _ in $(seq "$4"); do
			"$2" -test.run '^$' -test.bench "$3" -test.benchtime "${BENCHTIME:-200ms}" >> "$OUT/$1-$cond.txt"
		done
		part_end
	done
}

# table <files...>: the speed-up table of tune's BenchmarkThreadProbes
# output (sub-benchmarks op=X/threads=one|all/n=N).
table() {
	"$PYTHON" - "$@" <<'EOF'
import re, statistics, sys
rows = {}
for path in sys.argv[1:]:
    cond = "loaded" if path.endswith("loaded.txt") else "quiet"
    for line in open(path):
        m = re.match(r"Benchmark\w+/op=(\w+)/threads=(one|all)/n=(\d+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
        if m:
            op, th, n, ns = m.group(1), m.group(2), int(m.group(3)), float(m.group(4))
            rows.setdefault((op, n), {}).setdefault((cond, th), []).append(ns)
print("| op | n | quiet one µs | quiet all µs | quiet speed-up | loaded one µs | loaded all µs | loaded speed-up |")
print("|---|---|---|---|---|---|---|---|")
for (op, n) in sorted(rows):
    r = rows[(op, n)]
    cells = []
    for cond in ("quiet", "loaded"):
        one, al = r.get((cond, "one")), r.get((cond, "all"))
        if one and al:
            o, a = statistics.median(one) / 1e3, statistics.median(al) / 1e3
            cells += [f"{o:.4g}", f"{a:.4g}", f"{o / a:.2f}"]
        else:
            cells += ["", "", ""]
    print(f"| {op} | {n} | " + " | ".join(cells) + " |")
EOF
}

# with_threads <1|default> <command...> runs the command with
# RHGD_THREADS=1 or with rhgd's default thread count.
with_threads() {
	if [ "$1" = 1 ]; then
		shift
		RHGD_THREADS=1 "$@"
	else
		shift
		env -u RHGD_THREADS "$@"
	fi
}

# epochs <name> <rounds> <command...>: the command's summary.json seconds,
# alternating RHGD_THREADS=1 and the default, quiet and then loaded.
epochs() {
	name=$1 rounds=$2
	shift 2
	for cond in quiet loaded; do
		part_start "$cond" "$name"
		: > "$OUT/$name-$cond.txt"
		for r in $(seq "$rounds"); do
			for th in 1 default; do
				with_threads "$th" "$@" -out "$OUT/run" > /dev/null
				s=$(sed -n 's/^  "seconds": \([0-9.]*\),$/\1/p' "$OUT/run/summary.json")
				echo "$r $th $s" >> "$OUT/$name-$cond.txt"
			done
		done
		part_end
	done
	"$PYTHON" - "$OUT/$name-quiet.txt" "$OUT/$name-loaded.txt" <<'EOF'
import statistics, sys
print("| condition | RHGD_THREADS=1 s | default s | default / one |")
print("|---|---|---|---|")
for path in sys.argv[1:]:
    t = {}
    for line in open(path):
        _, th, s = line.split()
        t.setdefault(th, []).append(float(s))
    one, dflt = statistics.median(t["1"]), statistics.median(t["default"])
    cond = "loaded" if path.endswith("loaded.txt") else "quiet"
    print(f"| {cond} ({len(t['1'])} rounds) | {one:.3f} | {dflt:.3f} | {dflt / one:.2f} |")
EOF
}

case "${1:-}" in
calls)
	count=${2:-3}
	$GO test -c -o "$OUT/tune.test" ./tune
	bench calls "$OUT/tune.test" "${CALLS_BENCH:-ThreadProbes}" "$count"
	table "$OUT"/calls-quiet.txt "$OUT"/calls-loaded.txt
	;;
domainadapt)
	$GO build -o "$OUT/rhgd" ./cmd/rhgd
	epochs domainadapt "${2:-3}" "$OUT/rhgd" run domainadapt -source dslr -target webcam -features decaf6 \
		-epochs 20 -quiet
	;;
scaling)
	count=${2:-3}
	$GO test -c -o "$OUT/synthetic.test" ./problems/synthetic
	for cond in quiet loaded; do
		part_start "$cond" scaling
		: > "$OUT/scaling-$cond.txt"
		for r in $(seq "$count"); do
			for th in 1 default; do
				with_threads "$th" "$OUT/synthetic.test" -test.run '^$' -test.bench 'RHGDEpochScaling/estimator=cg/d=(500|1000)$' \
					-test.benchtime 3x | sed -n "s/^Benchmark\([^[:space:]]*\)-[0-9]*[[:space:]].*[[:space:]]\([0-9]*\) ns\/op.*/\1 $th \2/p" >> "$OUT/scaling-$cond.txt"
			done
		done
		part_end
	done
	"$PYTHON" - "$OUT/scaling-quiet.txt" "$OUT/scaling-loaded.txt" <<'EOF'
import statistics, sys
print("| condition | case | RHGD_THREADS=1 ms | default ms | speed-up |")
print("|---|---|---|---|---|")
for path in sys.argv[1:]:
    t = {}
    for line in open(path):
        case, th, ns = line.split()
        t.setdefault(case, {}).setdefault(th, []).append(float(ns))
    cond = "loaded" if path.endswith("loaded.txt") else "quiet"
    for case in sorted(t):
        one, dflt = statistics.median(t[case]["1"]) / 1e6, statistics.median(t[case]["default"]) / 1e6
        print(f"| {cond} | {case} | {one:.1f} | {dflt:.1f} | {one / dflt:.2f} |")
EOF
	;;
*)
	awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"
	exit 2
	;;
esac
