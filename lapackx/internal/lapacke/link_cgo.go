//go:build cgo && !purego && !customblas

package lapacke

// The default build links Debian's LAPACKE (whose LAPACK is OpenBLAS's).
// With -tags customblas this file drops out and CGO_LDFLAGS names the
// library instead.

// #cgo LDFLAGS: -llapacke
import "C"
