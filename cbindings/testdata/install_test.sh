#!/bin/sh
# install_test.sh runs the C build lines of README.md ("## C and Python")
# and of examples/c/example.c's header exactly as written, and the programs
# they build:
#   - the in-tree lines, in a stand-in for the repository (cbindings/,
#     build/ and examples/ linked into a temporary directory): README's
#     program and examples/c/example.c;
#   - README's make install line, its PREFIX=/usr/local redirected to a
#     temporary directory, then README's pkg-config line in a directory of
#     its own (PKG_CONFIG_PATH pointing into that PREFIX) for README's
#     program and for example.c, which uses libm itself.
# Every binary runs from / without LD_LIBRARY_PATH, and README's program
# must print the final f of make demo's hinv row, as README says.
# `make test-install` runs it after `make lib`.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
	echo "install_test: $*" >&2
	exit 1
}

# block LANG prints the first ```LANG block of README's "## C and Python".
block() {
	awk -v lang="$1" '/^## /{s = ($0 == "## C and Python")} s && $0 == "```" lang {b = 1; next} b && $0 == "```" {exit} b' "$repo/README.md"
}

# run runs a program from / without LD_LIBRARY_PATH.
run() {
	(cd / && env -u LD_LIBRARY_PATH "$@") || fail "$* failed (status $?)"
}

block c >"$tmp/prog.c"
block sh >"$tmp/lines"
[ -s "$tmp/prog.c" ] || fail "README.md's C section has no C program"
intree=$(grep '^cc -I cbindings prog.c ' "$tmp/lines") || fail "README.md has no in-tree cc line"
install=$(grep '^make install ' "$tmp/lines") || fail "README.md has no make install line"
pkgline=$(grep '^cc prog.c .*pkg-config' "$tmp/lines") || fail "README.md has no pkg-config cc line"
example=$(sed -n 's/^ \*   \(cc .*\)$/\1/p' "$repo/examples/c/example.c")
[ -n "$example" ] || fail "examples/c/example.c's header has no cc line"
want=$(awk '$1 == "hinv" && $2 == "IterationLimit" {print $4; exit}' "$repo/README.md")
[ -n "$want" ] || fail "README.md has no make demo hinv row"

# checkf FILE: README's program printed make demo's final f.
checkf() {
	awk -v want="$want" '/final f = / {f = $NF; found = 1} END {
		d = f - want; if (!found || d > 1e-6 || d < -1e-6) {print "final f " f ", make demo " want; exit 1}}' "$1" ||
		fail "README's program does not reproduce make demo"
}

# In the repository.
mkdir "$tmp/tree"
ln -s "$repo/cbindings" "$repo/build" "$repo/examples" "$tmp/tree/"
cp "$tmp/prog.c" "$tmp/tree/"
(cd "$tmp/tree" && sh -c "$intree") || fail "in-tree line failed: $intree"
(cd "$tmp/tree" && sh -c "$example") || fail "example.c's line failed: $example"
run "$tmp/tree/prog" >"$tmp/out"
checkf "$tmp/out"
run "$tmp/tree/example" >/dev/null

# Installed.
prefix="$tmp/prefix"
line=$(printf '%s\n' "$install" | sed "s|PREFIX=/usr/local|PREFIX=$prefix|")
[ "$line" != "$install" ] || fail "the make install line has no PREFIX=/usr/local: $install"
(cd "$repo" && sh -c "$line") || fail "$line failed"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
h=$(sed -n 's/^#define RHGD_VERSION "\(.*\)"$/\1/p' "$repo/cbindings/rhgd.h")
v=$(pkg-config --modversion rhgd) || fail "pkg-config cannot find rhgd.pc in $PKG_CONFIG_PATH"
[ "$v" = "$h" ] || fail "rhgd.pc has version $v, rhgd.h $h"
mkdir "$tmp/user" "$tmp/user-libm"
cp "$tmp/prog.c" "$tmp/user/"
cp "$repo/examples/c/example.c" "$tmp/user-libm/prog.c"
for d in user user-libm; do
	(cd "$tmp/$d" && sh -c "$pkgline") || fail "$pkgline failed on $d/prog.c"
done
run "$tmp/user/prog" >"$tmp/out"
checkf "$tmp/out"
run "$tmp/user-libm/prog" >/dev/null
echo "install_test: README.md's and example.c's C lines work as written"
