package spd_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rhgd/rhgd/spd"
)

// benchOp runs op at two points in turn, so that every call pays for the
// Cholesky factorization as a solver's iterates do.
func benchOp(b *testing.B, op func(m *spd.SPD, dst, x, u []float64) error) {
	for _, n := range []int{50, 200, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			m := spd.New(n)
			rnd := rand.New(rand.NewPCG(1, uint64(n)))
			var xs, us [2][]float64
			for i := range xs {
				xs[i], us[i] = make([]float64, n*n), make([]float64, n*n)
				m.RandPoint(xs[i], rnd)
				m.RandTangent(us[i], xs[i], rnd)
			}
			dst := make([]float64, n*n)
			k := 0
			for b.Loop() {
				if err := op(m, dst, xs[k&1], us[k&1]); err != nil {
					b.Fatal(err)
				}
				k++
			}
		})
	}
}

// BenchmarkSPDExp is Exp_X(U), to compare with lapackx's BenchmarkEigSym.
func BenchmarkSPDExp(b *testing.B) {
	benchOp(b, func(m *spd.SPD, dst, x, u []float64) error { return m.Exp(dst, x, u, 1) })
}

// BenchmarkSPDRetr2 is the second-order retraction X + U + ½ U X⁻¹ U.
func BenchmarkSPDRetr2(b *testing.B) {
	benchOp(b, func(m *spd.SPD, dst, x, u []float64) error { return m.Retract(dst, x, u, 1) })
}

// BenchmarkSPDLog is Log_X(Y) with Y = R_X(U).
func BenchmarkSPDLog(b *testing.B) {
	var y []float64
	benchOp(b, func(m *spd.SPD, dst, x, u []float64) error {
		if len(y) != len(x) {
			y = make([]float64, len(x))
			if err := m.Retract(y, x, u, 1); err != nil {
				return err
			}
		}
		return m.Log(dst, x, y)
	})
}

// BenchmarkSPDInner is ⟨U, V⟩_X and ‖U‖_X at a fixed point, as CG calls
// them: the point's inverse is cached, so each is one or two products and
// a trace.
func BenchmarkSPDInner(b *testing.B) {
	for _, n := range []int{50, 200} {
		m := spd.New(n)
		rnd := rand.New(rand.NewPCG(2, uint64(n)))
		x, u, v := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		m.RandTangent(u, x, rnd)
		m.RandTangent(v, x, rnd)
		b.Run(fmt.Sprintf("op=inner/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Inner(x, u, v)
			}
		})
		b.Run(fmt.Sprintf("op=norm/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Norm(x, u)
			}
		})
	}
}
