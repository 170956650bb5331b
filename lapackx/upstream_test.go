package lapackx

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/rhgd/rhgd/numerr"
)

// Matrices on which gonum v0.17's LAPACK goes wrong, found by searching
// random matrices with entries of very different magnitudes; rhgd works
// around both (condition, factorizeRowMajor).
var (
	// tinySym: gonum's Dsyev with vectors returns λ_max ≈ 1.2e-10 (the
	// true one is ≈ 1e-66); gonumScaledSym, the same scaled by 2^219, gets
	// 5.9e121 instead of 0.84; the values-only path panics in Dsterf on
	// tinyPanic.
	tinySym = []float64{5e-324, -5e-324, -5e-324, 1e-300, -5e-324, 1e-300, 5e-324, 1e-300,
		-5e-324, 5e-324, -1e-66, -1e-66, 1e-300, 1e-300, -1e-66, 1e-66}
	tinyPanic = []float64{5e-324, 0, 0, 5e-324, 0, 5e-324, 0, 0, 0, 0, 0, 1e-300, 5e-324, 0, 1e-300, 5e-324}
	// hqrFail makes gonum's Dlahqr fail to converge, after which Dhseqr
	// panics ("ihiz out of range") instead of reporting it.
	hqrFail = []float64{1, 1, 1e300, -1e-300, 1e-150, -1e300, 3e150, -1, 0}
)

func scaled(a []float64, e int) []float64 {
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = math.Ldexp(v, e)
	}
	return b
}

// TestGonumDsyevTiny: the eigendecompositions of the matrices above are
// right on both backends: AV = VΛ to rounding of ‖A‖, V orthogonal, the
// values-only path agrees, and exp of the near-zero matrix is I.
func TestGonumDsyevTiny(t *testing.T) {
	// The defects themselves, so that this test notices when gonum fixes
	// them (and the work-around can go).
	w, work := make([]float64, 4), make([]float64, 200)
	c := append([]float64(nil), tinySym...)
	gonum.Implementation{}.Dsyev(lapack.EVCompute, gblas.Upper, 4, c, 4, w, work, len(work))
	require.Greater(t, w[3], 1e-20, "gonum's Dsyev is right now: drop condition")
	require.Panics(t, func() {
		gonum.Implementation{}.Dsyev(lapack.EVNone, gblas.Upper, 4, append([]float64(nil), tinyPanic...), 4, w, work, len(work))
	}, "gonum's Dsterf no longer panics: drop condition")

	forEachBackend(t, func(t *testing.T) {
		n := 4
		for _, a := range [][]float64{tinySym, scaled(tinySym, 219), tinyPanic, scaled(tinySym, 400)} {
			e := NewEigSym(n)
			require.NoError(t, e.Factorize(a))
			lam, v := append([]float64(nil), e.Values()...), e.Vectors()
			var anorm, res, orth float64
			for _, x := range a {
				anorm = math.Max(anorm, math.Abs(x))
			}
			for k := 0; k < n; k++ { // ‖A v_k − λ_k v_k‖∞
				for i := 0; i < n; i++ {
					s := -lam[k] * v[k*n+i]
					for j := 0; j < n; j++ {
						s += a[i*n+j] * v[k*n+j]
					}
					res = math.Max(res, math.Abs(s))
				}
				for l := 0; l < n; l++ {
					var d float64
					for i := 0; i < n; i++ {
						d += v[k*n+i] * v[l*n+i]
					}
					if k == l {
						d--
					}
					orth = math.Max(orth, math.Abs(d))
				}
			}
			require.LessOrEqual(t, res, 1e-14*anorm, "residual, %v", a)
			require.Less(t, orth, 1e-14, "orthogonality, %v", a)
			require.NoError(t, e.FactorizeValues(a))
			for k := range lam {
				require.InDelta(t, lam[k], e.Values()[k], 1e-14*anorm)
			}
		}
		sf, dst := NewSymFunc(n), make([]float64, n*n)
		require.NoError(t, sf.Exp(dst, tinySym))
		for i := 0; i < n; i++ {
			require.InDelta(t, 1, dst[i*n+i], 1e-15, "exp of a near-zero matrix")
		}
	})
}

// TestGonumDhseqrFailure: a Schur form that does not converge is an error,
// never a panic, on either backend.
func TestGonumDhseqrFailure(t *testing.T) {
	require.Panics(t, func() {
		s := newSchur(3)
		copy(s.t, hqrFail)
		impl := gonum.Implementation{}
		impl.Dgehrd(3, 0, 2, s.t, 3, s.tau, s.work, len(s.work))
		copy(s.z, s.t)
		impl.Dorghr(3, 0, 2, s.z, 3, s.tau, s.work, len(s.work))
		impl.Dhseqr(lapack.EigenvaluesAndSchur, lapack.SchurOrig, 3, 0, 2, s.t, 3, s.wr, s.wi, s.z, 3, s.work, len(s.work))
	}, "gonum's Dhseqr no longer panics: the recover in factorizeRowMajor can go")
	forEachBackend(t, func(t *testing.T) {
		sy := NewSylvester(3, 3)
		dst := make([]float64, 9)
		c := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
		b := []float64{2, 0, 0, 0, 3, 0, 0, 0, 4}
		err := sy.Solve(dst, hqrFail, b, c)
		if lp().name() == "gonum" {
			require.ErrorIs(t, err, numerr.ErrNotConverged)
		}
		if err != nil { // LAPACK's dgees converges; its dtrsyl calls the equation singular
			require.True(t, errors.Is(err, numerr.ErrNotConverged) || errors.Is(err, numerr.ErrSingular), "%v", err)
			return
		}
		for _, v := range dst {
			require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
		}
	})
}
