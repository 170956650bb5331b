package lapackx

import (
	"testing"

	"gonum.org/v1/gonum/lapack/testlapack"
)

// gonum's own conformance suites, run against Impl under each backend: on
// the native backend they exercise the LAPACKE calls and their row-major to
// column-major mapping. Dpotri has its own version (dpotri_test.go):
// gonum's asserts an absolute residual that the rounding of some OpenBLAS
// kernel sets exceeds.
func TestImplTestlapack(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		impl := Impl{}
		t.Run("Dpotrf", func(t *testing.T) { testlapack.DpotrfTest(t, impl) })
		t.Run("Dpotrs", func(t *testing.T) { testlapack.DpotrsTest(t, impl) })
		t.Run("Dpotri", func(t *testing.T) { dpotriTest(t, impl) })
		t.Run("Dgeqrf", func(t *testing.T) { testlapack.DgeqrfTest(t, impl) })
		t.Run("Dorgqr", func(t *testing.T) { testlapack.DorgqrTest(t, impl) })
		t.Run("Dgelqf", func(t *testing.T) { testlapack.DgelqfTest(t, impl) })
		t.Run("Dorglq", func(t *testing.T) { testlapack.DorglqTest(t, impl) })
	})
}
