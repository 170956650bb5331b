package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// randSym returns a d×d symmetric matrix QΛQᵀ with the eigenvalues lam
// and a random orthogonal Q, and gonum's eigenvalues of it.
func randSym(rnd *rand.Rand, lam []float64) ([]float64, []float64) {
	d := len(lam)
	g := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			g.Set(i, j, rnd.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q, t, a mat.Dense
	qr.QTo(&q)
	t.Mul(&q, mat.NewDiagDense(d, lam))
	a.Mul(&t, q.T())
	out := a.RawMatrix().Data
	for i := range d {
		for j := range i {
			m := 0.5 * (out[i*d+j] + out[j*d+i])
			out[i*d+j], out[j*d+i] = m, m
		}
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(d, append([]float64(nil), out...)), false) {
		panic("eigen")
	}
	return out, es.Values(nil)
}

// TestHInvDenseKernels: the derived inverse's Cholesky factor, its solve
// and its tridiagonal reduction's extreme eigenvalues, against gonum
// (LLᵀ = A, the residual of the solve, the eigenvalues), each within
// c·d·ε·‖A‖ (κ(A) times that for the solution); an indefinite matrix
// fails the factorization.
func TestHInvDenseKernels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const eps = 0x1p-53
	for _, d := range []int{1, 2, 3, 7, 40, 121} {
		lam := make([]float64, d)
		for i := range lam {
			lam[i] = math.Pow(10, 3*float64(i)/float64(max(d-1, 1))) // κ = 1e3
		}
		rnd.Shuffle(d, func(i, j int) { lam[i], lam[j] = lam[j], lam[i] })
		a, w := randSym(rnd, lam)
		norm := w[d-1]
		l := make([]float64, d*d)
		require.True(t, cholesky(l, a, d), "d=%d", d)
		var llt mat.Dense
		lm := mat.NewDense(d, d, l)
		llt.Mul(lm, lm.T())
		llt.Sub(&llt, mat.NewDense(d, d, a))
		assert.Less(t, mat.Norm(&llt, 2), 8*float64(d)*eps*norm, "d=%d: LLᵀ − A", d)

		b, x := make([]float64, d), make([]float64, d)
		for i := range b {
			b[i] = rnd.NormFloat64()
		}
		cholSolve(x, l, b, d)
		var r mat.VecDense
		r.MulVec(mat.NewDense(d, d, a), mat.NewVecDense(d, x))
		r.SubVec(&r, mat.NewVecDense(d, b))
		assert.Less(t, r.Norm(2), 16*float64(d)*eps*norm*floats.Norm(x, 2), "d=%d: residual", d)

		tri, diag, off, work := append([]float64(nil), a...), make([]float64, d), make([]float64, d), make([]float64, d)
		tridiagonalize(tri, diag, off, work, d)
		lo, hi := tridiagExtremes(diag, off[:max(d-1, 0)])
		assert.InDelta(t, w[0], lo, 16*float64(d)*eps*norm, "d=%d: λ_min", d)
		assert.InDelta(t, w[d-1], hi, 16*float64(d)*eps*norm, "d=%d: λ_max", d)

		if d > 1 {
			lam[0] = -1 // indefinite, by a margin far above rounding
			a, _ = randSym(rnd, lam)
			assert.False(t, cholesky(l, a, d), "d=%d indefinite", d)
		}
	}
}

// TestHInvBasis: the derived inverse's basis of T_y is orthonormal in
// the metric and tangent, with Dim vectors, on SPD (whitened, and by the
// metric's inner products) and Stiefel.
func TestHInvBasis(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name      string
		m         Manifold
		noWhitenV bool
		whitened  bool
	}{{"spd(4)", spd.New(4), false, true}, {"spd(4) unwhitened", spd.New(4), true, false}, {"stiefel(5,2)", stiefel.New(5, 2), false, false}} {
		func() {
			old := noWhiten
			noWhiten = c.noWhitenV
			defer func() { noWhiten = old }()
			y := make([]float64, c.m.Len())
			c.m.RandPoint(y, rnd)
			h := newHInvDerived(c.m, false)
			require.False(t, h.euclid)
			require.Equal(t, c.whitened, h.wh != nil, c.name)
			require.NoError(t, h.buildBasis(y), c.name)
			n, d := h.n, h.d
			pq := make([]float64, n)
			for i := range d {
				qi := h.basis[i*n : (i+1)*n]
				c.m.Project(pq, y, qi)
				assert.Less(t, floats.Distance(pq, qi, 2), 1e-13*floats.Norm(qi, 2), "%s: q_%d tangent", c.name, i)
				for j := range i + 1 {
					want := 0.0
					if i == j {
						want = 1
					}
					assert.InDelta(t, want, c.m.Inner(y, qi, h.basis[j*n:(j+1)*n]), 1e-13, "%s: ⟨q_%d, q_%d⟩", c.name, i, j)
				}
			}
		}()
	}
}
