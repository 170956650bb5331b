#!/bin/sh
# The head-to-head of issue 31 §2: rhgd's adaptive preset against
# preset=adarhd (AdaRHD as its authors' code runs it), through rhgd
# compare's true-hypergradient tables, over initial step sizes
# η_x = η_y = η. The two presets of each (problem, η) run one after the
# other, adaptive first, so that the machine's load falls on both alike.
# Usage: sh run.sh OUT [η ...]   (default η: 0.05 0.5 5)
# Caps: -epochs 1000 (AdaRHD's epochs with CG) and -runtime 60 per run.
set -u
out=$1; shift
etas=${*:-0.05 0.5 5}
rhgd=${RHGD:-rhgd}
# problem name, its flags
problems='synthetic-n100|synthetic -n 100
synthetic-n1000|synthetic -n 1000
synthetic-n5000|synthetic -n 5000
hyperrep|hyperrep
spdnet|spdnet
domainadapt|domainadapt
meta|meta
karcher|karcher
minmax|minmax
plstiefel|plstiefel'
echo "$problems" | while IFS='|' read -r name args; do
	for eta in $etas; do
		for preset in adaptive adarhd; do
			dir=$out/$name/eta$eta/$preset
			mkdir -p "$out/$name/eta$eta"
			# AdaRHD's scripts start the lower cap at 50 (y_subiter);
			# the adaptive preset uses S only in its first epoch.
			$rhgd compare $args -preset $preset -estimators cg -inner 50 -eta-x $eta -eta-y $eta \
				-epochs 1000 -runtime 60 -quiet -out $dir >$dir.log 2>&1 || echo "$name η=$eta $preset: exit $?" >>$out/failures.txt
		done
	done
done
