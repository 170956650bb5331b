#!/bin/sh
# Oracle counts to 10⁻³: each run of run.sh that reached ‖grad F(x_k)‖ ≤
# 10⁻³‖grad F(x_0)‖ (true hypergradient) at epoch k is run again with
# -epochs k+1, the same flags otherwise (runs are deterministic), so that
# its summary.json counts the work through the epoch whose estimate is at
# x_k (and the final lower solve at x_{k+1}).
# Usage: sh counts.sh OUT COUNTS
set -u
out=$1; counts=$2
rhgd=${RHGD:-rhgd}
for log in "$out"/*/eta*/*.log; do
	run=${log%.log}
	preset=$(basename "$run")
	etadir=$(dirname "$run"); eta=$(basename "$etadir"); eta=${eta#eta}
	name=$(basename "$(dirname "$etadir")")
	k=$(python3 -c "
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
g0=float(rows[0]['true_hypergrad_norm'])
print(next((r['epoch'] for r in rows if r['true_hypergrad_norm'] and float(r['true_hypergrad_norm'])<=1e-3*g0),''))" "$run/cg/history.csv" 2>/dev/null)
	[ -n "$k" ] || continue
	case $name in synthetic-n*) args="synthetic -n ${name#synthetic-n}";; *) args=$name;; esac
	dir=$counts/$name/eta$eta/$preset
	mkdir -p "$counts/$name/eta$eta"
	$rhgd compare $args -preset $preset -estimators cg -inner 50 -eta-x $eta -eta-y $eta \
		-epochs $((k + 1)) -quiet -out $dir >$dir.log 2>&1 || echo "$name η=$eta $preset: exit $?" >>$counts/failures.txt
done
