package bench

import (
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/stiefel"
)

// stiefelCases are the QR and polar retractions of St(n, p) at a random
// point X along a random tangent U with ‖U‖_F = 1, Householder QR of
// X + U (LAPACK's dgeqrf and dorgqr, what numpy.linalg.qr calls) and the
// floor both retractions rest on, the Gram matrix AᵀA by dsyrk.
func stiefelCases(n, p int) []Case {
	size, np2 := sizeNP(n, p), float64(n)*float64(p)*float64(p)
	setup := func(dir string) (*stiefel.Stiefel, []float64, []float64, *inputs) {
		rnd := rand.New(rand.NewPCG(uint64(n), uint64(p)))
		m := stiefel.New(n, p)
		x, u := make([]float64, n*p), make([]float64, n*p)
		m.RandPoint(x, rnd)
		m.Project(u, x, gaussian(rnd, n*p, 1))
		s := 1 / math.Sqrt(dotSelf(u))
		for i := range u {
			u[i] *= s
		}
		in := newInputs(dir)
		in.add("x", x, n, p)
		in.add("u", u, n, p)
		return m, x, u, in
	}
	retraction := func(op string, r stiefel.Retraction, flops string, peers []string) Case {
		return Case{Group: "stiefel", Op: op, Size: size, N: np2, FlopCount: flops, Exponent: 1, Floor: "gram", Peers: peers,
			Prepare: func(dir string) (*Prepared, error) {
				m, x, u, in := setup(dir)
				m.Retraction = r
				y := make([]float64, n*p)
				return &Prepared{Files: in.files, Output: func() []float64 { return y }, Run: func() error { return m.Retract(y, x, u, 1) }}, in.err
			}}
	}
	return []Case{
		{Group: "stiefel", Op: "gram", Size: size, N: np2, FlopCount: "np²", Exponent: 1,
			Prepare: func(dir string) (*Prepared, error) {
				_, x, _, in := setup(dir)
				g := make([]float64, p*p)
				return &Prepared{Files: in.files, Run: func() error {
					blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, p, n, 1, x, p, 0, g, p)
					return nil
				}}, in.err
			}},
		{Group: "stiefel", Op: "householder", Size: size, N: np2, FlopCount: "4np²", Exponent: 1, Floor: "gram", Peers: []string{"numpy.qr"},
			Prepare: func(dir string) (*Prepared, error) {
				_, x, u, in := setup(dir)
				qr, a, q := lapackx.NewQR(n, p), make([]float64, n*p), make([]float64, n*p)
				return &Prepared{Files: in.files, Output: func() []float64 { return q }, Run: func() error {
					for i := range a {
						a[i] = x[i] + u[i]
					}
					if err := qr.Factorize(a); err != nil {
						return err
					}
					qr.QTo(q)
					return nil
				}}, in.err
			}},
		retraction("qr", stiefel.QR, "≈4np²", []string{"numpy.qrretr", "torch.qrretr"}),
		retraction("polar", stiefel.Polar, "≈4np²", []string{"numpy.polar", "torch.polar"}),
	}
}

func dotSelf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}
