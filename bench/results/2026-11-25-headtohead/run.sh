#!/bin/sh
# The head-to-head runs of issue 21 §4 (README.md here). Usage, from the
# repository root: sh bench/results/2026-11-25-headtohead/run.sh [outdir]
# It writes the full outputs (history.csv per run) to outdir (default
# /tmp/h2h-out) and copies the tables, summaries and figures here.
# ONLY='domainadapt-*' runs only the matching configurations.
set -u
OUT=${1:-/tmp/h2h-out}
HERE=$(dirname "$0")
RHGD=${RHGD:-go run ./cmd/rhgd}
ALL=hinv,cg,ns,ad,fo,cg:damping=auto,ns:damping=auto
ADA=hinv,cg,ns,fo,cg:damping=auto,ns:damping=auto   # AD differentiates the paper's fixed lower steps
PL=cg:damping=0,cg,ns,ad,fo,ns:damping=auto          # no HINV (singular Hessian); plstiefel's own cg is damped=auto

_run() { # name, then compare's arguments
	name=$1; shift
	echo "== $name: rhgd compare $*"
	start=$(date +%s.%N)
	$RHGD compare "$@" -quiet -out "$OUT/$name" > "$OUT/$name.txt" 2>&1
	echo "exit $? after $(echo "$(date +%s.%N) - $start" | bc) s"
	mkdir -p "$HERE/$name"
	cp "$OUT/$name/headtohead.md" "$OUT/$name/summary.json" "$OUT/$name/figure1.png" "$OUT/$name/progress.png" "$OUT/$name.txt" "$HERE/$name/" 2>/dev/null
}
run() { _run "$@"; }
mkdir -p "$OUT"
[ -n "${ONLY:-}" ] && run() { case "$1" in $ONLY) _run "$@";; esac; }
run synthetic-d50-paper     synthetic -estimators $ALL -epochs 1000 -runtime 8s
run synthetic-d50-adaptive  synthetic -preset adaptive -estimators $ADA -epochs 1000 -runtime 8s
run synthetic-d200-paper    synthetic -n 400 -d 200 -r 80 -estimators $ALL -epochs 400 -runtime 10s
run synthetic-d200-adaptive synthetic -n 400 -d 200 -r 80 -preset adaptive -estimators $ADA -epochs 400 -runtime 10s
run hyperrep-paper          hyperrep -estimators $ALL -epochs 1000 -runtime 6s
run hyperrep-adaptive       hyperrep -preset adaptive -estimators $ADA -epochs 1000 -runtime 8s
run domainadapt-DW-paper    domainadapt -source dslr -target webcam -estimators $ALL   # the paper's 100 epochs, uncapped
run domainadapt-DW-adaptive domainadapt -source dslr -target webcam -preset adaptive -estimators $ADA -runtime 10s
run plstiefel-paper         plstiefel -estimators $PL -epochs 2000 -runtime 5s
run plstiefel-adaptive      plstiefel -preset adaptive -estimators cg:damping=0,cg,ns,fo,ns:damping=auto -epochs 2000 -runtime 5s
