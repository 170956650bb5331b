// Package ctest calls rhgd's C ABI from C, for the tests of package
// cbindings: import "C" is not allowed in _test.go files, so the C side of
// those tests lives here, as libtailscale's tsnetctest does. Its functions
// are linked against the exports of package cbindings, so only that
// package's test binary can use them; the package builds (empty) without
// cgo.
//
// The C test code itself is in ctest.h, which the standalone threads test
// (cbindings/testdata/threads_main.c) compiles against build/librhgd.so.
//
// rhgd.h here is a symbolic link to cbindings/rhgd.h: the go command hashes
// the headers in a package's own directory, not those it reaches by a
// relative path, so with the link a changed header rebuilds this package
// instead of leaving a stale build in the cache.
package ctest
