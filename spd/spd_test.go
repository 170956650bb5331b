package spd_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

var (
	_ solver.Manifold  = (*spd.SPD)(nil)
	_ solver.Exper     = (*spd.SPD)(nil)
	_ solver.Logger    = (*spd.SPD)(nil)
	_ solver.Distancer = (*spd.SPD)(nil)
)

func TestConformance(t *testing.T) {
	for _, n := range []int{1, 2, 5, 17} {
		for _, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
			for _, tr := range []spd.TransportMethod{spd.Identity, spd.Parallel} {
				t.Run(fmt.Sprintf("n=%d,retraction=%d,transport=%d", n, r, tr), func(t *testing.T) {
					m := spd.New(n)
					m.Retraction, m.TransportMethod = r, tr
					manifoldtest.Run(t, m, conformance(n, uint64(n), tr))
				})
			}
		}
	}
}

// conformance returns manifoldtest's options for SPD(n) under any metric:
// a non-symmetric direction (none for n = 1) and a point with a negative
// diagonal entry off the manifold; the transport is isometric when it is
// the parallel one.
func conformance(n int, seed uint64, tr spd.TransportMethod) manifoldtest.Options {
	return manifoldtest.Options{RetractionOrder: 2, Seed: seed,
		IsometricTransport: tr == spd.Parallel,
		NotTangent: func(x []float64) []float64 {
			if n == 1 {
				return nil
			}
			v := make([]float64, n*n)
			v[1] = 1
			return v
		},
		BadPoint: func(x []float64) []float64 {
			b := make([]float64, n*n)
			copy(b, x)
			b[0] = -b[0] - 1 // a negative diagonal entry
			return b
		}}
}

// TestStaysSPD takes 10⁴ random steps with each retraction: the iterate
// stays exactly symmetric with a positive smallest eigenvalue.
func TestStaysSPD(t *testing.T) {
	n := 6
	for _, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
		m := spd.New(n)
		m.Retraction = r
		rnd := rand.New(rand.NewPCG(3, 3))
		x, u := make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		eig := lapackx.NewEigSym(n)
		minEig := math.Inf(1)
		for k := 0; k < 10000; k++ {
			m.RandTangent(u, x, rnd)
			if err := m.Retract(x, x, u, 0.05); err != nil {
				t.Fatalf("retraction %d, step %d: %v", r, k, err)
			}
			if k%100 == 99 {
				for i := 0; i < n; i++ {
					for j := 0; j < i; j++ {
						if x[i*n+j] != x[j*n+i] {
							t.Fatalf("retraction %d, step %d: not exactly symmetric", r, k)
						}
					}
				}
				if err := eig.Factorize(x); err != nil {
					t.Fatal(err)
				}
				minEig = math.Min(minEig, eig.Values()[0])
				if eig.Values()[0] <= 0 {
					t.Fatalf("retraction %d, step %d: λ_min = %g", r, k, eig.Values()[0])
				}
			}
		}
		t.Logf("retraction %d: smallest eigenvalue seen %.6g", r, minEig)
	}
}

func TestBadInput(t *testing.T) {
	m := spd.New(3)
	x := []float64{2, 1, 0, 1, 2, 0, 0, 0, 1}
	u := []float64{1, 0, 0, 0, 1, 0, 0, 0, math.NaN()}
	dst := make([]float64, 9)
	for _, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
		m.Retraction = r
		if err := m.Retract(dst, x, u, 1); err == nil {
			t.Errorf("retraction %d accepted NaN", r)
		}
	}
	indef := []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}
	if err := m.CheckPoint(indef); !errors.Is(err, numerr.ErrNotPosDef) {
		t.Errorf("indefinite point: %v", err)
	}
	if err := m.Retract(dst, indef, x, 1); !errors.Is(err, numerr.ErrNotPosDef) {
		t.Errorf("retraction at an indefinite point: %v", err)
	}
	if err := m.Log(dst, x, indef); !errors.Is(err, numerr.ErrNotPosDef) {
		t.Errorf("log of an indefinite point: %v", err)
	}
	asym := []float64{2, 1, 0, 1.1, 2, 0, 0, 0, 1}
	if err := m.CheckPoint(asym); !errors.Is(err, numerr.ErrNotSymmetric) {
		t.Errorf("asymmetric point: %v", err)
	}
	if d := m.Norm(indef, x); !math.IsNaN(d) {
		t.Errorf("norm at an indefinite point = %v, want NaN", d)
	}
	big := []float64{3000, 0, 0, 0, 1, 0, 0, 0, 1}
	m.Retraction = spd.Exponential
	if err := m.Retract(dst, x, big, 1); !errors.Is(err, numerr.ErrOverflow) {
		t.Errorf("overflowing exponential: %v", err)
	}
}

// TestCacheFollowsContent changes a point in place: the cached factor must
// not be reused.
func TestCacheFollowsContent(t *testing.T) {
	m := spd.New(2)
	x := []float64{4, 0, 0, 9}
	u := []float64{1, 0, 0, 0}
	a := m.Inner(x, u, u) // 1/16
	x[0] = 1
	b := m.Inner(x, u, u) // 1
	if math.Abs(a-1.0/16) > 1e-15 || math.Abs(b-1) > 1e-15 {
		t.Fatalf("inner products %v, %v; want 1/16, 1", a, b)
	}
}

// TestNonSymmetricPoint: the operations that factor a point (Cholesky
// reads one triangle) refuse a point that is not symmetric or not finite,
// instead of quietly using its lower triangle.
func TestNonSymmetricPoint(t *testing.T) {
	m := spd.New(3)
	x, y, u, skew, inf := badPoints(m)
	dst := make([]float64, 9)
	for _, tc := range []struct {
		name string
		bad  []float64
		want error
	}{{"non-symmetric", skew, numerr.ErrNotSymmetric}, {"infinite diagonal", inf, numerr.ErrNotFinite}} {
		for op, f := range map[string]func(p []float64) error{
			"Retract": func(p []float64) error { return m.Retract(dst, p, u, 0.1) },
			"Exp":     func(p []float64) error { return m.Exp(dst, p, u, 0.1) },
			"Log at":  func(p []float64) error { return m.Log(dst, p, y) },
			"Log of":  func(p []float64) error { return m.Log(dst, x, p) },
			"Dist":    func(p []float64) error { _, err := m.Dist(p, y); return err },
			"Dist to": func(p []float64) error { _, err := m.Dist(x, p); return err },
			"Retract (exp)": func(p []float64) error {
				c := spd.New(3)
				c.Retraction = spd.Exponential
				return c.Retract(dst, p, u, 0.1)
			},
		} {
			require.ErrorIs(t, f(tc.bad), tc.want, "%s: %s", tc.name, op)
		}
	}
	require.NoError(t, m.Retract(dst, x, u, 0.1), "a symmetric point still works after a bad one")
}

// badPoints returns random points x and y of the 3×3 m, a tangent u at
// x, and x made non-symmetric (skew) and infinite (inf).
func badPoints(m *spd.SPD) (x, y, u, skew, inf []float64) {
	rnd := rand.New(rand.NewPCG(8, 8))
	x, y, u = make([]float64, 9), make([]float64, 9), make([]float64, 9)
	m.RandPoint(x, rnd)
	m.RandPoint(y, rnd)
	m.RandTangent(u, x, rnd)
	skew = append([]float64(nil), x...)
	skew[1] += 0.3
	inf = append([]float64(nil), x...)
	inf[4] = math.Inf(1)
	return x, y, u, skew, inf
}

// TestStepTooLarge: an exponential whose smallest eigenvalue underflows
// is ErrUnderflow, and a step whose result is positive definite only in
// exact arithmetic is an error: neither returns a matrix that is not a
// point (the exponential returned [0] for the first, found by FuzzRetract).
func TestStepTooLarge(t *testing.T) {
	m := spd.New(1)
	m.Retraction = spd.Exponential
	dst := make([]float64, 1)
	require.ErrorIs(t, m.Retract(dst, []float64{0.00146484375}, []float64{192}, -0.875), numerr.ErrUnderflow)

	// ½X + ½(X + U)X⁻¹(X + U) with X = 10⁻²⁰I and U = 11ᵀ: eigenvalues
	// ≈ 4·10²⁰ and 10⁻²⁰, a condition number far beyond 1/ε.
	m2 := spd.New(2)
	x, u, y := []float64{1e-20, 0, 0, 1e-20}, []float64{1, 1, 1, 1}, make([]float64, 4)
	err := m2.Retract(y, x, u, 1)
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	require.ErrorContains(t, err, "step too large")
}
