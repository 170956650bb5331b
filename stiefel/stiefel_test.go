package stiefel_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

var (
	_ solver.Manifold = (*stiefel.Stiefel)(nil)
	_ solver.Exper    = (*stiefel.Stiefel)(nil)
)

func TestConformance(t *testing.T) {
	for _, np := range [][2]int{{3, 1}, {5, 3}, {6, 6}, {40, 7}} {
		for _, r := range []stiefel.Retraction{stiefel.QR, stiefel.Polar, stiefel.Cayley, stiefel.Exponential} {
			t.Run(fmt.Sprintf("n=%d,p=%d,%v", np[0], np[1], r), func(t *testing.T) {
				m := stiefel.New(np[0], np[1])
				m.Retraction = r
				order := 2 // polar and the exponential
				if r == stiefel.QR || r == stiefel.Cayley {
					order = 1
				}
				manifoldtest.Run(t, m, manifoldtest.Options{RetractionOrder: order, Seed: uint64(np[0]),
					NotTangent: func(x []float64) []float64 { return append([]float64(nil), x...) },
					BadPoint: func(x []float64) []float64 {
						b := append([]float64(nil), x...)
						b[0] += 1e-3
						return b
					}})
			})
		}
	}
}

// TestOrthonormalityDrift takes 10⁵ random QR-retraction steps with the
// default method and with each of the two it chooses from: the iterate
// stays orthonormal to 1e−14, since each step recomputes an orthonormal
// factor rather than updating the previous one.
func TestOrthonormalityDrift(t *testing.T) {
	n, p := 12, 4
	for _, q := range qrMethods {
		t.Run(q.String(), func(t *testing.T) {
			m := stiefel.New(n, p)
			m.QRMethod = q
			rnd := rand.New(rand.NewPCG(7, 7))
			x, u := make([]float64, n*p), make([]float64, n*p)
			m.RandPoint(x, rnd)
			worst := 0.0
			for k := 0; k < 100000; k++ {
				m.RandTangent(u, x, rnd)
				if err := m.Retract(x, x, u, 0.3); err != nil {
					t.Fatal(err)
				}
				if k%1000 == 999 {
					worst = math.Max(worst, orthoErr(x, n, p))
				}
			}
			if worst > 1e-14 {
				t.Fatalf("‖XᵀX − I‖_F reached %.3g", worst)
			}
			if f := stiefel.QRFallbacks(m); f != 0 {
				t.Fatalf("%d fallbacks to Householder on tangent steps", f)
			}
			t.Logf("max ‖XᵀX − I‖_F over 10⁵ steps: %.2e", worst)
		})
	}
}

func orthoErr(x []float64, n, p int) float64 {
	var s float64
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			var d float64
			for k := 0; k < n; k++ {
				d += x[k*p+i] * x[k*p+j]
			}
			if i == j {
				d--
			}
			s += d * d
		}
	}
	return math.Sqrt(s)
}

func TestBadInput(t *testing.T) {
	m := stiefel.New(5, 2)
	x, u := make([]float64, 10), make([]float64, 10)
	m.RandPoint(x, rand.New(rand.NewPCG(1, 1)))
	u[3] = math.NaN()
	for _, r := range []stiefel.Retraction{stiefel.QR, stiefel.Polar, stiefel.Cayley, stiefel.Exponential} {
		m.Retraction = r
		if err := m.Retract(make([]float64, 10), x, u, 1); err == nil {
			t.Errorf("%v retraction accepted NaN", r)
		}
	}
	if err := m.CheckPoint(make([]float64, 10)); !errors.Is(err, stiefel.ErrNotOrthonormal) {
		t.Errorf("zero matrix: %v", err)
	}
	if err := m.CheckPoint(make([]float64, 9)); err == nil {
		t.Error("wrong length accepted")
	}
}

// TestQRRetractionDependent: with a U that is not tangent, X + tU can have
// dependent columns, where qf is undefined: an error, not an arbitrary Q.
// Every QR method reports it (CholeskyQR2 through its fallback).
func TestQRRetractionDependent(t *testing.T) {
	for _, q := range qrMethods {
		s := stiefel.New(5, 2)
		s.QRMethod = q
		x := make([]float64, 10)
		s.RandPoint(x, rand.New(rand.NewPCG(3, 3)))
		u := make([]float64, 10)
		for i := range u {
			u[i] = -x[i]
		}
		dst := make([]float64, 10)
		require.ErrorIs(t, s.Retract(dst, x, u, 1), numerr.ErrSingular, "%v: X + U = 0", q)
		for i := 0; i < 5; i++ { // X + U: column 1 equal to column 0
			u[2*i], u[2*i+1] = 0, x[2*i]-x[2*i+1]
		}
		require.ErrorIs(t, s.Retract(dst, x, u, 1), numerr.ErrSingular, "%v: X + U with equal columns", q)
	}
}
