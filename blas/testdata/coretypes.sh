#!/bin/sh
# coretypes.sh runs the kernel-sensitive packages' tests under every
# OpenBLAS kernel set this CPU executes (`rhgd info -cores`) but the
# default one, which the rest of make test runs. Each package's test binary
# is built once, and two runs go at a time: most of these tests keep one
# core busy. A set this OpenBLAS does not honour is skipped with a message,
# and so are subtests on the pure-Go backend (backend=gonum), whose results
# no OpenBLAS kernel set touches.
#
#   sh blas/testdata/coretypes.sh <rhgd binary> <package dir>...
set -u
cd "$(dirname "$0")/../.."
GO=${GO:-go}
rhgd=$1
shift
out=$(pwd)/build/coretypes
rm -rf "$out" && mkdir -p "$out"
for p in "$@"; do
	$GO test -c -o "$out/$(echo "$p" | tr / _).test" "./$p" || exit 1
done
def=$("$rhgd" info -core)
jobs=""
for c in $("$rhgd" info -cores); do
	if [ "$c" = "$def" ]; then
		echo "== OPENBLAS_CORETYPE=$c: the default kernel set, run by test-cgo"
		continue
	fi
	got=$(OPENBLAS_CORETYPE=$c "$rhgd" info -core)
	if [ "$got" != "$c" ]; then
		echo "== OPENBLAS_CORETYPE=$c: this OpenBLAS runs $got instead; skipped"
		continue
	fi
	for p in "$@"; do
		jobs="$jobs $c:$p"
	done
done
# Each job runs its test binary in its package's directory, as go test
# does, and leaves its output and status in $out.
printf '%s\n' $jobs | xargs -P 2 -I{} sh -c '
	c=${1%%:*} p=${1#*:} log=$2/$(echo "$1" | tr :/ __)
	bin=$2/$(echo "$p" | tr / _).test
	t0=$(date +%s)
	if (cd "$p" && OPENBLAS_CORETYPE=$c "$bin" -test.count=1 -test.skip /backend=gonum > "$log.out" 2>&1); then r=ok; else r=FAIL; fi
	echo "$r $c $p $(( $(date +%s) - t0 ))s" > "$log.status"
' _ {} "$out"
failed=""
for c in $(printf '%s\n' $jobs | cut -d: -f1 | uniq); do
	echo "== OPENBLAS_CORETYPE=$c"
	for p in "$@"; do
		log=$out/$(echo "$c:$p" | tr :/ __)
		read -r r _ _ secs < "$log.status" 2>/dev/null || r=FAIL
		printf '%-4s %s (%s)\n' "$r" "$p" "${secs:-?}"
		if [ "$r" != ok ]; then
			cat "$log.out"
			failed="$failed $c/$p"
		fi
	done
done
if [ -n "$failed" ]; then
	echo "test-coretypes: failed:$failed"
	exit 1
fi
