package stiefel_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rhgd/rhgd/stiefel"
)

// benchShapes are the shapes of every retraction's benchmark; the QR and
// polar ones add bigShapes.
var (
	benchShapes = [][2]int{{1000, 50}, {10000, 100}}
	bigShapes   = append(benchShapes[:len(benchShapes):len(benchShapes)], [2]int{100000, 50})
)

// methodShapes cover both sides of QRAuto's size rule (p ≥ 4, except
// n < 2p with p ≥ 256): the call-dominated small end, square matrices and
// tall ones.
var methodShapes = [][2]int{{12, 4}, {20, 5}, {100, 2}, {100, 10}, {128, 128}, {500, 500},
	{400, 200}, {1000, 50}, {2000, 50}, {10000, 100}, {100000, 50}}

func benchRetract(b *testing.B, r stiefel.Retraction, q stiefel.QRMethod, shapes [][2]int) {
	for _, s := range shapes {
		n, p := s[0], s[1]
		b.Run(fmt.Sprintf("n=%d,p=%d", n, p), func(b *testing.B) {
			b.ReportAllocs()
			m := stiefel.New(n, p)
			m.Retraction, m.QRMethod = r, q
			rnd := rand.New(rand.NewPCG(1, 2))
			x, u, y := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
			m.RandPoint(x, rnd)
			m.RandTangent(u, x, rnd)
			for b.Loop() {
				if err := m.Retract(y, x, u, 0.1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStiefelQR is the QR retraction with the default method, to
// compare with lapackx's BenchmarkQR at the same shapes.
func BenchmarkStiefelQR(b *testing.B)     { benchRetract(b, stiefel.QR, stiefel.QRAuto, bigShapes) }
func BenchmarkStiefelPolar(b *testing.B)  { benchRetract(b, stiefel.Polar, 0, bigShapes) }
func BenchmarkStiefelCayley(b *testing.B) { benchRetract(b, stiefel.Cayley, 0, benchShapes) }
func BenchmarkStiefelExp(b *testing.B)    { benchRetract(b, stiefel.Exponential, 0, benchShapes) }

// BenchmarkStiefelQRMethod puts Householder and CholeskyQR2 side by side,
// the measurement behind QRAuto's size rule.
func BenchmarkStiefelQRMethod(b *testing.B) {
	for _, q := range []stiefel.QRMethod{stiefel.QRHouseholder, stiefel.QRCholesky2} {
		b.Run("method="+q.String(), func(b *testing.B) { benchRetract(b, stiefel.QR, q, methodShapes) })
	}
}
