//go:build cgo

package ctest

/*
#include <stdlib.h>
#include "rhgd.h"
*/
import "C"

// The manifold toolkit: each function calls the rhgd_ function of its
// name. The scalar results of Inner, Norm and Dist go to res[0], so that
// a caller that reuses res makes calls that allocate nothing (a Go
// variable whose address C gets lives on the heap); a nil res passes
// NULL, to test the check.

// Inner calls rhgd_manifold_inner.
func Inner(h int64, x, u, v, res []float64) int {
	return int(C.rhgd_manifold_inner(mh(h), p(x), p(u), p(v), p(res)))
}

// Norm calls rhgd_manifold_norm.
func Norm(h int64, x, u, res []float64) int {
	return int(C.rhgd_manifold_norm(mh(h), p(x), p(u), p(res)))
}

// Dist calls rhgd_manifold_dist.
func Dist(h int64, x, y, res []float64) int {
	return int(C.rhgd_manifold_dist(mh(h), p(x), p(y), p(res)))
}

// Supports calls rhgd_manifold_supports.
func Supports(h int64, method string) (bool, int) {
	s := cstr(method)
	defer free(s)
	var r C.int
	rc := int(C.rhgd_manifold_supports(mh(h), s, &r))
	return r != 0, rc
}

// Exp calls rhgd_manifold_exp.
func Exp(h int64, x, u []float64, t float64, out []float64) int {
	return int(C.rhgd_manifold_exp(mh(h), p(x), p(u), C.double(t), p(out)))
}

// Log calls rhgd_manifold_log.
func Log(h int64, x, y, out []float64) int {
	return int(C.rhgd_manifold_log(mh(h), p(x), p(y), p(out)))
}

// EGrad2RGrad calls rhgd_manifold_egrad2rgrad.
func EGrad2RGrad(h int64, x, egrad, out []float64) int {
	return int(C.rhgd_manifold_egrad2rgrad(mh(h), p(x), p(egrad), p(out)))
}

// EHess2RHess calls rhgd_manifold_ehess2rhess.
func EHess2RHess(h int64, x, egrad, ehess, u, out []float64) int {
	return int(C.rhgd_manifold_ehess2rhess(mh(h), p(x), p(egrad), p(ehess), p(u), p(out)))
}

// Transport calls rhgd_manifold_transport.
func Transport(h int64, x, y, u, out []float64) int {
	return int(C.rhgd_manifold_transport(mh(h), p(x), p(y), p(u), p(out)))
}

// RandTangent calls rhgd_manifold_rand_tangent.
func RandTangent(h int64, x []float64, seed uint64, out []float64) int {
	return int(C.rhgd_manifold_rand_tangent(mh(h), p(x), C.uint64_t(seed), p(out)))
}

// CheckTangent calls rhgd_manifold_check_tangent.
func CheckTangent(h int64, x, u []float64) int {
	return int(C.rhgd_manifold_check_tangent(mh(h), p(x), p(u)))
}

// Sylvester calls rhgd_sylvester.
func Sylvester(m, n int64, a, b, c, x []float64) int {
	return int(C.rhgd_sylvester(C.int64_t(m), C.int64_t(n), p(a), p(b), p(c), p(x)))
}

// Lyapunov calls rhgd_lyapunov.
func Lyapunov(n int64, a, c, x []float64) int {
	return int(C.rhgd_lyapunov(C.int64_t(n), p(a), p(c), p(x)))
}

// Frechet calls rhgd_<f>sym_frechet for f = "exp", "log" or "sqrt".
func Frechet(f string, n int64, a, e, out []float64) int {
	switch f {
	case "exp":
		return int(C.rhgd_expsym_frechet(C.int64_t(n), p(a), p(e), p(out)))
	case "log":
		return int(C.rhgd_logsym_frechet(C.int64_t(n), p(a), p(e), p(out)))
	case "sqrt":
		return int(C.rhgd_sqrtsym_frechet(C.int64_t(n), p(a), p(e), p(out)))
	}
	panic("ctest: Frechet of " + f)
}
