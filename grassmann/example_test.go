package grassmann_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/grassmann"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// The lower level g(Y) = −tr(YᵀAY) asks for the subspace of A's p largest
// eigenvalues; any orthonormal basis of it is a minimizer, so on Stiefel
// the minimizers form a set of dimension p(p−1)/2 and the Riemannian
// Hessian there has that many zero eigenvalues: g is not strongly convex,
// and a hypergradient's Hessian solve is singular. On Gr the same function
// has one isolated minimizer and a positive definite Hessian, with
// eigenvalues 2(λ_i − λ_j), i ≤ p < j: the smallest is 2(λ₃ − λ₄) = 2.
func Example_strongConvexity() {
	const n, p = 6, 3
	lam := []float64{6, 5, 4, 3, 2, 1}
	rnd := rand.New(rand.NewPCG(1, 1))
	a := symmetricWithSpectrum(lam, rnd)

	// The minimizer: the eigenvectors of the three largest eigenvalues.
	y := topEigenvectors(a, n, p)
	egrad := mul(a, y, n, n, p)
	for i := range egrad {
		egrad[i] *= -2
	}
	hess := func(m solver.Manifold) func(dst, u []float64) {
		return func(dst, u []float64) {
			ehess := mul(a, u, n, n, p)
			for i := range ehess {
				ehess[i] *= -2
			}
			m.EHessToRHess(dst, y, egrad, ehess, u)
		}
	}
	for _, m := range []solver.Manifold{grassmann.New(n, p), stiefel.New(n, p)} {
		ev := hessianEigenvalues(m, y, hess(m))
		zeros := 0
		for _, e := range ev {
			if math.Abs(e) < 1e-10 {
				zeros++
			}
		}
		name := "Gr"
		if _, ok := m.(*stiefel.Stiefel); ok {
			name = "St"
		}
		fmt.Printf("%s(%d, %d): %d Hessian eigenvalues, %d zero, smallest nonzero %.4f\n",
			name, n, p, len(ev), zeros, ev[zeros])
	}
	// Output:
	// Gr(6, 3): 9 Hessian eigenvalues, 0 zero, smallest nonzero 2.0000
	// St(6, 3): 12 Hessian eigenvalues, 3 zero, smallest nonzero 2.0000
}

// hessianEigenvalues returns, in ascending order, the eigenvalues of the
// matrix of the Hessian h at y in an orthonormal basis of the tangent
// space there: the projections of the coordinate matrices E_ij,
// orthonormalized (twice, modified Gram–Schmidt), those that vanish
// dropped.
func hessianEigenvalues(m solver.Manifold, y []float64, h func(dst, u []float64)) []float64 {
	var basis [][]float64
	for k := 0; k < m.Len(); k++ {
		e := make([]float64, m.Len())
		e[k] = 1
		m.Project(e, y, e)
		for pass := 0; pass < 2; pass++ {
			for _, b := range basis {
				c := m.Inner(y, b, e)
				for i := range e {
					e[i] -= c * b[i]
				}
			}
		}
		if nrm := m.Norm(y, e); nrm > 1e-8 {
			for i := range e {
				e[i] /= nrm
			}
			basis = append(basis, e)
		}
	}
	if len(basis) != m.Dim() {
		panic(fmt.Sprintf("tangent basis of %d vectors, Dim %d", len(basis), m.Dim()))
	}
	d := len(basis)
	hm := mat.NewSymDense(d, nil)
	hb := make([]float64, m.Len())
	for j, b := range basis {
		h(hb, b)
		for i := 0; i <= j; i++ {
			hm.SetSym(i, j, m.Inner(y, basis[i], hb))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(hm, false) {
		panic("eigendecomposition failed")
	}
	return es.Values(nil)
}
