//go:build cgo

package main

// #cgo CFLAGS: -fvisibility=hidden -Wall
import "C"

// version is the library's version, which rhgd_version (rhgd.c) returns
// from C; TestVersion checks that the two agree.
const version = "0.1.0"
