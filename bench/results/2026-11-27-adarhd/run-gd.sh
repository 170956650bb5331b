#!/bin/sh
# AdaRHD-GD (preset=adarhd with the adagd estimator, as the authors'
# scripts run it with --hygrad_opt gd: K = 10000 epochs, so the lower
# tolerance is 1/K = 1e-4, and adagd's own 1e-4) on AdaRHD's published
# problems, beside run.sh's adaptive runs. Caps: -runtime 60.
# Usage: sh run-gd.sh OUT [η ...]   (default η: 0.05 0.5 5)
set -u
out=$1; shift
etas=${*:-0.05 0.5 5}
rhgd=${RHGD:-rhgd}
problems='synthetic-n100|synthetic -n 100
synthetic-n1000|synthetic -n 1000
synthetic-n5000|synthetic -n 5000
hyperrep|hyperrep'
echo "$problems" | while IFS='|' read -r name args; do
	for eta in $etas; do
		dir=$out/$name/eta$eta/adarhd-gd
		mkdir -p "$out/$name/eta$eta"
		$rhgd compare $args -preset adarhd -estimators adagd -inner 50 -eta-x $eta -eta-y $eta \
			-epochs 10000 -runtime 60 -quiet -out $dir >$dir.log 2>&1 || echo "$name η=$eta: exit $?" >>$out/failures.txt
	done
done
