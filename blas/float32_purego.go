//go:build !cgo || purego

package blas

import gblas "gonum.org/v1/gonum/blas"

func nativeImpl32() gblas.Float32 { panic("blas: no native BLAS in a pure-Go build") }
