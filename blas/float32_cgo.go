//go:build cgo && !purego

package blas

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// nativeImpl32 is the native library's float32 BLAS (CBLAS's s-routines,
// through the same cgo binding as the float64 ones).
func nativeImpl32() gblas.Float32 { return netlib.Implementation{} }
