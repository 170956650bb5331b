//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// eigTestMatrices are the symmetric matrices of order n the eigensolver
// accuracy tests use: general, graded SPD, clustered and repeated
// eigenvalues, a zero row (tred2's skipped reflector), diagonal, zero,
// and scalings that would over- or underflow squares unscaled.
func eigTestMatrices(n int) map[string][]float64 {
	rnd := newRand(uint64(100 + n))
	clustered := make([]float64, n)
	for i := range clustered {
		clustered[i] = 1 + float64(i%3)*1e-13 // three clusters of width 1e-13
	}
	zeroRow := randSym(rnd, n, 1)
	for j := 0; j < n; j++ {
		zeroRow[(n/2)*n+j], zeroRow[j*n+n/2] = 0, 0
	}
	diag := make([]float64, n*n)
	for i := 0; i < n; i++ {
		diag[i*n+i] = float64(n - 2*i)
	}
	sym := randSym(rnd, n, 1)
	return map[string][]float64{
		"random":    sym,
		"graded":    benchSPD(n),
		"clustered": withSpectrum(rnd, clustered),
		"zero-row":  zeroRow,
		"diagonal":  diag,
		"zero":      make([]float64, n*n),
		"huge":      scaledBy(sym, 0x1p700),
		"tiny":      scaledBy(sym, 0x1p-700),
		"minimal":   scaledBy(sym, 0x1p-1000),
	}
}

func scaledBy(a []float64, s float64) []float64 {
	out := make([]float64, len(a))
	for i, x := range a {
		out[i] = x * s
	}
	return out
}

// eigErrorsScaled is eigErrors with A scaled by a power of two so that its
// largest entry is about 1: the residual of a matrix near the ends of the
// exponent range is then computed without over- or underflow (the
// eigenvalues scale with it, the eigenvectors do not).
func eigErrorsScaled(a, w, v []float64, n int) (res, orth float64) {
	var amax float64
	for _, x := range a {
		amax = math.Max(amax, math.Abs(x))
	}
	if amax == 0 {
		return eigErrors(a, w, v, n)
	}
	_, e := math.Frexp(amax)
	as, ws := make([]float64, len(a)), make([]float64, len(w))
	for i, x := range a {
		as[i] = math.Ldexp(x, -e)
	}
	for i, x := range w {
		ws[i] = math.Ldexp(x, -e)
	}
	return eigErrors(as, ws, v, n)
}

// TestEigQLAccuracy: rhgd's QL eigensolver (both its AVX2 and its base
// code) has the residual ‖AV − VΛ‖_F/‖A‖_F and orthogonality ‖VVᵀ − I‖_F
// of LAPACK's dsyevd on the same matrix, within a factor 3 or under
// (n+4)·ε and 2(n+4)·ε (1.2e-14 and 2.4e-14 at n = 50), and the same
// eigenvalues to (n+4)·ε·‖A‖₂ (Weyl, with both backward errors of that
// order); it reads only the triangle it is told to.
func TestEigQLAccuracy(t *testing.T) {
	const eps = 0x1p-52
	for _, n := range []int{1, 2, 3, 5, 17, 32, 50, 64, 99, 130} {
		for name, a := range eigTestMatrices(n) {
			// dsyevd on the upper triangle of the column-major view.
			ref, wref := append([]float64(nil), a...), make([]float64, n)
			lw, liw := nativeLapack{}.eigWork(n)
			require.Zero(t, lapacke.Dsyevd('V', 'L', n, ref, n, wref, make([]float64, lw), make([]int32, liw)))
			resRef, orthRef := eigErrorsScaled(a, wref, ref, n)
			tol := float64(n+4) * eps
			anorm := math.Max(math.Abs(wref[0]), math.Abs(wref[n-1])) // ‖A‖₂
			for _, base := range []bool{false, true} {
				for _, lower := range []bool{false, true} {
					t.Run(fmt.Sprintf("n=%d/%s/base=%v/lower=%v", n, name, base, lower), func(t *testing.T) {
						v, w, e := append([]float64(nil), a...), make([]float64, n), make([]float64, n)
						for i := 0; i < n; i++ { // poison the triangle not read
							for j := i + 1; j < n; j++ {
								if lower {
									v[i*n+j] = math.NaN()
								} else {
									v[j*n+i] = math.NaN()
								}
							}
						}
						require.Zero(t, lapacke.Syevql(n, v, w, e, lower, base))
						res, orth := eigErrorsScaled(a, w, v, n)
						require.LessOrEqual(t, res, math.Max(3*resRef, tol), "residual (dsyevd's %.2e)", resRef)
						require.LessOrEqual(t, orth, math.Max(3*orthRef, 2*tol), "orthogonality (dsyevd's %.2e)", orthRef)
						for i := range w {
							if i > 0 {
								require.LessOrEqual(t, w[i-1], w[i], "ascending")
							}
							require.InDelta(t, wref[i], w[i], tol*anorm+math.SmallestNonzeroFloat64, "eigenvalue %d", i)
						}
					})
				}
			}
		}
	}
}

// TestEigQLNaN: a NaN reaching the QL solver (EigSym's checks stop it
// before) comes back as a failure, not as NaN eigenvalues.
func TestEigQLNaN(t *testing.T) {
	for _, n := range []int{1, 4, 50} {
		for _, base := range []bool{false, true} {
			a := randSym(newRand(7), n, 1)
			a[(n-1)*n] = math.NaN()
			a[n-1] = math.NaN()
			require.NotZero(t, lapacke.Syevql(n, a, make([]float64, n), make([]float64, n), true, base), "n=%d base=%v", n, base)
		}
	}
}

// TestEigQLChosen: EigSym takes the QL solver exactly below its cutoff,
// which is set by accuracy since issue 29 (eigQLVecCutoff).
func TestEigQLChosen(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		if lp().name() != "openblas" {
			t.Skip("QL solver is the native backend's")
		}
		for _, n := range []int{eigQLCutoff() - 1, eigQLCutoff()} {
			a := benchSPD(n)
			e := NewEigSym(n)
			require.NoError(t, e.Factorize(a))
			v, w := append([]float64(nil), a...), make([]float64, n)
			require.Zero(t, lapacke.Syevql(n, v, w, make([]float64, n), false, false))
			same := true
			for i := range w {
				same = same && w[i] == e.Values()[i]
			}
			require.Equal(t, n < eigQLCutoff(), same, "n=%d: EigSym's values are bitwise the QL solver's", n)
		}
	})
}
