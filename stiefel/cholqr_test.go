package stiefel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/stiefel"
)

var qrMethods = []stiefel.QRMethod{stiefel.QRAuto, stiefel.QRHouseholder, stiefel.QRCholesky2}

// retractWith returns R_x(tu) by the QR retraction with method q, and
// the number of CholeskyQR2 fallbacks it took.
func retractWith(t *testing.T, q stiefel.QRMethod, x, u []float64, tt float64, n, p int) ([]float64, int) {
	t.Helper()
	m := stiefel.New(n, p)
	m.QRMethod = q
	y := make([]float64, n*p)
	require.NoError(t, m.Retract(y, x, u, tt))
	return y, stiefel.QRFallbacks(m)
}

// TestCholQR2MatchesHouseholder: on tangent steps, where σ_min(X + tU) ≥ 1
// and no fallback may happen, CholeskyQR2 gives Householder's Q (with R's
// diagonal positive) to 1e-13, and both meet the fuzz target's check of
// qf's defining properties.
func TestCholQR2MatchesHouseholder(t *testing.T) {
	shapes := [][2]int{{2000, 50}, {300, 100}, {50, 50}, {40, 7}, {7, 7}, {12, 4}, {5, 1}}
	for _, np := range shapes {
		n, p := np[0], np[1]
		for _, tt := range []float64{0.01, 1, 10} {
			t.Run(fmt.Sprintf("n=%d,p=%d,t=%g", n, p, tt), func(t *testing.T) {
				m := stiefel.New(n, p)
				rnd := rand.New(rand.NewPCG(uint64(n), uint64(p)))
				x, u := make([]float64, n*p), make([]float64, n*p)
				m.RandPoint(x, rnd)
				m.RandTangent(u, x, rnd)
				qc, fb := retractWith(t, stiefel.QRCholesky2, x, u, tt, n, p)
				require.Zero(t, fb, "CholeskyQR2 fell back on a tangent step")
				qh, _ := retractWith(t, stiefel.QRHouseholder, x, u, tt, n, p)
				var d float64
				for i := range qc {
					d = math.Max(d, math.Abs(qc[i]-qh[i]))
				}
				require.LessOrEqual(t, d, 1e-13, "max |Q_chol − Q_householder|")
				for _, q := range []stiefel.QRMethod{stiefel.QRCholesky2, stiefel.QRHouseholder} {
					c := stiefel.New(n, p)
					c.QRMethod = q
					y := qc
					if q == stiefel.QRHouseholder {
						y = qh
					}
					require.Empty(t, checkRetraction(c, x, u, tt, y, n, p), q)
				}
			})
		}
	}
}

// condStep returns a u (not tangent) with X + u = A, an n×p matrix of
// condition number kappa: Haar singular vectors, singular values from 1
// down to 1/kappa geometrically.
func condStep(x []float64, n, p int, kappa float64, rnd *rand.Rand) []float64 {
	l, r := make([]float64, n*p), make([]float64, p*p)
	stiefel.New(n, p).RandPoint(l, rnd)
	stiefel.New(p, p).RandPoint(r, rnd)
	for j := 0; j < p; j++ {
		sj := math.Pow(kappa, -float64(j)/float64(p-1))
		for i := 0; i < n; i++ {
			l[i*p+j] *= sj
		}
	}
	a := fuzzing.MulPlainT(l, r, n, p, p)
	for i := range a {
		a[i] -= x[i]
	}
	return a
}

// TestCholQR2Fallback: an ill-conditioned X + tU goes to Householder,
// once, and the result is still qf(X + tU): orthonormal to 1e-14 and
// meeting the fuzz target's check. At κ = 1e10 Cholesky usually fails
// (κ² > 1/ε) and at 1e8 the guard's condition estimate rejects what it
// gives (which of the guard's tests fires depends on rounding; that one
// does is what the guard promises, two decades and more beyond
// cholQRMaxCond); at 1e4 CholeskyQR2 keeps it, as its own result.
func TestCholQR2Fallback(t *testing.T) {
	n, p := 60, 8
	for _, c := range []struct {
		kappa     float64
		fallbacks int
	}{{1e10, 1}, {1e8, 1}, {1e4, 0}} {
		t.Run(fmt.Sprintf("κ=%g", c.kappa), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(9, uint64(c.kappa)))
			m := stiefel.New(n, p)
			x := make([]float64, n*p)
			m.RandPoint(x, rnd)
			u := condStep(x, n, p, c.kappa, rnd)
			m.QRMethod = stiefel.QRCholesky2
			q := make([]float64, n*p)
			require.NoError(t, m.Retract(q, x, u, 1))
			require.Equal(t, c.fallbacks, stiefel.QRFallbacks(m))
			require.LessOrEqual(t, orthoErr(q, n, p), 1e-14)
			require.Empty(t, checkRetraction(m, x, u, 1, q, n, p))
			qh, _ := retractWith(t, stiefel.QRHouseholder, x, u, 1, n, p)
			// qf's own condition is κ: a fallback gives Householder's Q
			// exactly, CholeskyQR2 agrees to about κε.
			require.LessOrEqual(t, fuzzing.Frob(fuzzing.Sub(q, qh)), 1e-14*c.kappa)
		})
	}
}

// TestQRRetractionAllocs: no QR method allocates per Retract, in place
// (dst = x) or not, on CholeskyQR2's path and on its fallback.
func TestQRRetractionAllocs(t *testing.T) {
	n, p := 200, 10
	rnd := rand.New(rand.NewPCG(4, 4))
	m := stiefel.New(n, p)
	x, y := make([]float64, n*p), make([]float64, n*p)
	m.RandPoint(x, rnd)
	tangent := make([]float64, n*p)
	m.RandTangent(tangent, x, rnd)
	illCond := condStep(x, n, p, 1e10, rnd)
	for _, q := range qrMethods {
		for name, u := range map[string][]float64{"tangent": tangent, "ill-conditioned": illCond} {
			m.QRMethod = q
			for _, inPlace := range []bool{false, true} {
				op := func() {
					dst := y
					if inPlace {
						copy(y, x)
						dst = y
						if err := m.Retract(dst, dst, u, 1); err != nil {
							t.Fatal(err)
						}
						return
					}
					if err := m.Retract(dst, x, u, 1); err != nil {
						t.Fatal(err)
					}
				}
				if a := testing.AllocsPerRun(10, op); a != 0 {
					t.Errorf("%v, %s, in place %v: %v allocations per Retract", q, name, inPlace, a)
				}
			}
		}
	}
}

// TestQRRetractionInPlace: dst = x or dst = u gives the same point as a separate dst,
// for every method; CholeskyQR2 must not overwrite x before its guard
// has passed.
func TestQRRetractionInPlace(t *testing.T) {
	n, p := 30, 5
	rnd := rand.New(rand.NewPCG(8, 8))
	m := stiefel.New(n, p)
	x := make([]float64, n*p)
	m.RandPoint(x, rnd)
	for _, kappa := range []float64{0, 1e10} {
		u := make([]float64, n*p)
		if kappa == 0 {
			m.RandTangent(u, x, rnd)
		} else {
			u = condStep(x, n, p, kappa, rnd)
		}
		for _, q := range qrMethods {
			m.QRMethod = q
			want := make([]float64, n*p)
			require.NoError(t, m.Retract(want, x, u, 1))
			got := append([]float64(nil), x...)
			require.NoError(t, m.Retract(got, got, u, 1))
			require.Equal(t, want, got, "%v, κ=%g, dst = x", q, kappa)
			got = append(got[:0], u...)
			require.NoError(t, m.Retract(got, x, got, 1))
			require.Equal(t, want, got, "%v, κ=%g, dst = u", q, kappa)
		}
	}
}
