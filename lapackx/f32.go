package lapackx

import "math"

// F32Unit is float32's unit roundoff, u = 2⁻²⁴ ≈ 6.0e-8.
const F32Unit = 0x1p-24

// F32Slack is the multiple of n·F32Unit that F32Tol allows. A float32
// computation of an order-n result (an inner product of length n, a
// matrix product, a QR factorization or a matrix function of order n) is
// accurate to about n·u per entry in the worst case (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1 and §19.3) and to about √n·u
// typically; 8 covers a short chain of such steps (expm, then a product),
// the way the authors' code and PyTorch pipelines make their data. The
// float32 data reported in the issue sit 100 times inside it: A_i symmetric
// to 1e-7 relative and W0 with ‖XᵀX − I‖_F = 1.1e-7 at order 50, against
// F32Tol(50) = 2.4e-5. A wrong matrix or a start that was never
// orthonormalized is off by far more.
const F32Slack = 8

// F32Tol returns the bound on a constraint's defect below which an input of
// order n counts as within float32 rounding of the constraint:
// F32Slack·n·F32Unit. Inputs that meet the constraint to float64 rounding
// are used as they are; inputs within F32Tol are projected onto the
// constraint once, with a note saying so; inputs beyond it are rejected.
// The defects it bounds are relative asymmetry (Asymmetry), ‖XᵀX − I‖_F
// for orthonormal columns and the relative marginal error of a coupling;
// n is the order of the matrix (its number of rows for n×p columns, the
// larger side of a coupling).
func F32Tol(n int) float64 { return F32Slack * float64(max(n, 1)) * F32Unit }

// Asymmetry returns max|a_ij − a_ji| / max|a_ij| for the n×n row-major a,
// the relative asymmetry that SymTol and F32Tol bound: 0 for a symmetric
// or zero matrix, NaN when an entry is not finite.
func Asymmetry(a []float64, n int) float64 {
	if len(a) != n*n {
		panic(errShape)
	}
	amax := maxAbsCopy(nil, a)
	if math.IsNaN(amax) || math.IsInf(amax, 0) {
		return math.NaN()
	}
	if amax == 0 {
		return 0
	}
	var dmax float64
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			dmax = math.Max(dmax, math.Abs(a[i*n+j]-a[j*n+i]))
		}
	}
	return dmax / amax
}
