//go:build cgo

package main

// #cgo CFLAGS: -fvisibility=hidden -Wall
import "C"

// version is the library's version, as written in the repository's VERSION
// file; rhgd_version (rhgd.c) returns rhgd.h's RHGD_VERSION, and
// TestVersionOnePlace checks that all copies agree.
const version = "0.2.0"
