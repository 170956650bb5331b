package grassmann_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/grassmann"
)

// TestSamePoint: X and XO (O orthogonal) are one point, and every
// operation treats them so. Dist(X, XO) and Log(X, XO) vanish to
// rounding; Dist and Log do not depend on the representative of Y; a
// tangent U at X is UO at XO, and Log(XO, Y) = Log(X, Y)O,
// Exp(XO, UO) = Exp(X, U)O, the polar retraction and the transport
// likewise; the QR retraction's representative is not equivariant
// (qf(AO) ≠ qf(A)O) but its subspace is.
func TestSamePoint(t *testing.T) {
	rnd := rand.New(rand.NewPCG(6, 1))
	for _, np := range shapes {
		n, p := np[0], np[1]
		t.Run(fmt.Sprintf("n=%d,p=%d", n, p), func(t *testing.T) {
			g := grassmann.New(n, p)
			x, y, u := draw(g, rnd)
			o := orthogonal(p, rnd)
			xo, yo, uo := mul(x, o, n, p, p), mul(y, o, n, p, p), mul(u, o, n, p, p)
			rot := func(a []float64) []float64 { return mul(a, o, n, p, p) }
			tol := 64 * eps * float64(n)

			d, err := g.Dist(x, xo)
			require.NoError(t, err)
			assert.LessOrEqual(t, d, tol, "Dist(X, XO)")
			l := make([]float64, n*p)
			require.NoError(t, g.Log(l, x, xo))
			assert.LessOrEqual(t, norm2(l), tol, "Log(X, XO)")

			d0, err := g.Dist(x, y)
			require.NoError(t, err)
			for _, pair := range [][2][]float64{{x, yo}, {xo, y}, {xo, yo}} {
				d, err := g.Dist(pair[0], pair[1])
				require.NoError(t, err)
				assert.InDelta(t, d0, d, tol, "Dist on other representatives")
			}

			l0, l1, l2 := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
			require.NoError(t, g.Log(l0, x, y))
			require.NoError(t, g.Log(l1, x, yo))
			require.NoError(t, g.Log(l2, xo, y))
			k := cond(mulT(x, y, n, p, p), p)
			assert.LessOrEqual(t, dist2(l1, l0), tol*k, "Log(X, YO) ≠ Log(X, Y)")
			assert.LessOrEqual(t, dist2(l2, rot(l0)), tol*k, "Log(XO, Y) ≠ Log(X, Y)O")

			a, b := make([]float64, n*p), make([]float64, n*p)
			require.NoError(t, g.Exp(a, x, u, 1.1))
			require.NoError(t, g.Exp(b, xo, uo, 1.1))
			assert.LessOrEqual(t, dist2(b, rot(a)), tol, "Exp(XO, UO) ≠ Exp(X, U)O")

			g.Transport(a, x, y, u)
			g.Transport(b, xo, yo, uo)
			assert.LessOrEqual(t, dist2(b, rot(a)), tol, "Transport(XO, YO, UO) ≠ Transport(X, Y, U)O")

			g.Retraction = grassmann.Polar
			require.NoError(t, g.Retract(a, x, u, 0.8))
			require.NoError(t, g.Retract(b, xo, uo, 0.8))
			assert.LessOrEqual(t, dist2(b, rot(a)), tol, "polar: R_XO(UO) ≠ R_X(U)O")
			g.Retraction = grassmann.QR
			require.NoError(t, g.Retract(a, x, u, 0.8))
			require.NoError(t, g.Retract(b, xo, uo, 0.8))
			assert.LessOrEqual(t, dist2(projector(b, n, p), projector(a, n, p)), tol, "QR: span R_XO(UO) ≠ span R_X(U)")
		})
	}
}

// TestRetractionSecondOrder: QR and polar give one subspace, span(X + tU),
// and it is a second-order retraction of Gr: its distance to Exp_X(tU)
// falls as t³ (the least-squares slope of log d against log t over
// t = 0.1 … 0.003). QR's representative differs from Exp's by O(t²), so
// the suite, which compares representatives, sees QR as first order.
func TestRetractionSecondOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 1))
	for _, np := range shapes {
		n, p := np[0], np[1]
		g := grassmann.New(n, p)
		x, u := make([]float64, n*p), make([]float64, n*p)
		q, r, e := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
		g.RandPoint(x, rnd)
		g.RandTangent(u, x, rnd)
		for _, step := range []float64{0.5, 3} {
			g.Retraction = grassmann.QR
			require.NoError(t, g.Retract(q, x, u, step))
			g.Retraction = grassmann.Polar
			require.NoError(t, g.Retract(r, x, u, step))
			d, err := g.Dist(q, r)
			require.NoError(t, err)
			assert.LessOrEqual(t, d, 64*eps*float64(n), "Gr(%d, %d): QR and polar subspaces differ at t = %v", n, p, step)
		}
		var lt, ld []float64
		for step := 0.1; step > 0.003; step /= 2 {
			require.NoError(t, g.Retract(r, x, u, step))
			require.NoError(t, g.Exp(e, x, u, step))
			d, err := g.Dist(r, e)
			require.NoError(t, err)
			lt, ld = append(lt, math.Log(step)), append(ld, math.Log(d))
		}
		assert.InDelta(t, 3, slope(lt, ld), 0.2, "Gr(%d, %d): order of span(X + tU) against Exp", n, p)
	}
}

// slope is the least-squares slope of y against x.
func slope(x, y []float64) float64 {
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx, sy, sxx, sxy = sx+x[i], sy+y[i], sxx+x[i]*x[i], sxy+x[i]*y[i]
	}
	k := float64(len(x))
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}

// rayleigh is f(X) = −tr(XᵀAX) for a symmetric n×n A, a function of the
// column space: ∇f = −2AX, ∇²f[U] = −2AU. Its minimizers on Gr are the
// spans of the eigenvectors of the p largest eigenvalues.
type rayleigh struct {
	n, p int
	a    []float64
}

func (r rayleigh) f(x []float64) float64 {
	var s float64
	ax := mul(r.a, x, r.n, r.n, r.p)
	for i := range x {
		s -= x[i] * ax[i]
	}
	return s
}

func (r rayleigh) egrad(x []float64) []float64 {
	g := mul(r.a, x, r.n, r.n, r.p)
	for i := range g {
		g[i] *= -2
	}
	return g
}

// symmetricWithSpectrum returns Q diag(lam) Qᵀ for a random orthogonal Q.
func symmetricWithSpectrum(lam []float64, rnd *rand.Rand) []float64 {
	n := len(lam)
	q := orthogonal(n, rnd)
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k, l := range lam {
				a[i*n+j] += q[i*n+k] * l * q[j*n+k]
			}
		}
	}
	return a
}

// TestInvariance: for f(X) = −tr(XᵀAX), a function of the subspace, the
// Riemannian gradient at XO is the gradient at X times O, and so is the
// Hessian applied to UO; Xᵀ∇f is symmetric and the Hessian self-adjoint.
func TestInvariance(t *testing.T) {
	rnd := rand.New(rand.NewPCG(8, 1))
	for _, np := range shapes {
		n, p := np[0], np[1]
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = rnd.NormFloat64()
		}
		f := rayleigh{n, p, symmetricWithSpectrum(lam, rnd)}
		g := grassmann.New(n, p)
		x, u, v := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
		g.RandPoint(x, rnd)
		g.RandTangent(u, x, rnd)
		g.RandTangent(v, x, rnd)
		o := orthogonal(p, rnd)
		xo, uo := mul(x, o, n, p, p), mul(u, o, n, p, p)
		rg, rgo := make([]float64, n*p), make([]float64, n*p)
		g.EGradToRGrad(rg, x, f.egrad(x))
		g.EGradToRGrad(rgo, xo, f.egrad(xo))
		tol := 64 * eps * float64(n) * norm2(f.a)
		assert.LessOrEqual(t, dist2(rgo, mul(rg, o, n, p, p)), tol, "Gr(%d, %d): grad at XO ≠ grad at X times O", n, p)

		hess := func(dst, x, u []float64) {
			eh := mul(f.a, u, n, n, p)
			for i := range eh {
				eh[i] *= -2
			}
			g.EHessToRHess(dst, x, f.egrad(x), eh, u)
		}
		hu, huo, hv := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
		hess(hu, x, u)
		hess(huo, xo, uo)
		hess(hv, x, v)
		assert.LessOrEqual(t, dist2(huo, mul(hu, o, n, p, p)), tol, "Hess at XO [UO] ≠ (Hess at X [U])O")
		assert.InDelta(t, g.Inner(x, hu, v), g.Inner(x, u, hv), tol, "Hessian not self-adjoint")
	}
}

// TestRayleighNewton: Riemannian gradient descent on f(X) = −tr(XᵀAX)
// from a random start, then Riemannian Newton (the Newton equation
// Hess f[η] = −grad f solved by conjugate gradients in the horizontal
// space, a step along the QR retraction) reaches the span of the
// eigenvectors of A's p largest eigenvalues (gonum's symmetric
// eigensolver), at f = −(their sum), with the quadratic convergence that
// a right Hessian gives. On Stiefel the Newton equation there is singular.
func TestRayleighNewton(t *testing.T) {
	const n, p = 8, 3
	rnd := rand.New(rand.NewPCG(9, 1))
	lam := []float64{10, 9, 7, 4, 3, 2, 1, 0.5}
	f := rayleigh{n, p, symmetricWithSpectrum(lam, rnd)}
	g := grassmann.New(n, p)
	x := make([]float64, n*p)
	g.RandPoint(x, rnd)
	grad := make([]float64, n*p)
	for k := 0; k < 2000; k++ {
		g.EGradToRGrad(grad, x, f.egrad(x))
		if g.Norm(x, grad) < 1e-2 {
			break
		}
		require.NoError(t, g.Retract(x, x, grad, -1/(2*lam[0])))
	}
	hess := func(dst, u []float64) {
		eh := mul(f.a, u, n, n, p)
		for i := range eh {
			eh[i] *= -2
		}
		g.EHessToRHess(dst, x, f.egrad(x), eh, u)
	}
	var norms []float64
	for k := 0; k < 8; k++ {
		g.EGradToRGrad(grad, x, f.egrad(x))
		norms = append(norms, g.Norm(x, grad))
		if norms[k] < 1e-12 {
			break
		}
		eta := cg(g, x, hess, grad)
		require.NoError(t, g.Retract(x, x, eta, -1))
	}
	t.Logf("‖grad‖ over the Newton steps: %.2e", norms)
	require.Less(t, norms[len(norms)-1], 1e-12, "Newton did not converge: ‖grad‖ = %v", norms)
	for k := 1; k < len(norms) && norms[k-1] > 1e-6; k++ {
		assert.LessOrEqual(t, norms[k], 10*norms[k-1]*norms[k-1], "not quadratic: ‖grad‖ = %v", norms)
	}

	var es mat.EigenSym
	require.True(t, es.Factorize(mat.NewSymDense(n, f.a), true))
	var vecs mat.Dense
	es.VectorsTo(&vecs) // ascending: the last p columns are the top ones
	top := make([]float64, n*p)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			top[i*p+j] = vecs.At(i, n-1-j)
		}
	}
	d, err := g.Dist(x, top)
	require.NoError(t, err)
	assert.LessOrEqual(t, d, 1e-12, "distance to the top eigenspace")
	assert.InDelta(t, -(lam[0] + lam[1] + lam[2]), f.f(x), 1e-12*lam[0])
}

// cg solves H η = b for the symmetric positive definite H on the tangent
// space at x by conjugate gradients, to ‖r‖ ≤ 1e-12‖b‖. b is projected
// once more first: a gradient computed as P_X(∇f) keeps a normal part of
// about ε‖∇f‖, which near a critical point is large against ‖b‖ and which
// no step along H's (horizontal) range removes.
func cg(g *grassmann.Grassmann, x []float64, h func(dst, u []float64), b []float64) []float64 {
	m := len(b)
	eta, r, d, hd := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	g.Project(r, x, b)
	copy(d, r)
	rr := g.Inner(x, r, r)
	for k := 0; k < 2*g.Dim() && math.Sqrt(rr) > 1e-12*norm2(b); k++ {
		h(hd, d)
		alpha := rr / g.Inner(x, d, hd)
		for i := range eta {
			eta[i] += alpha * d[i]
			r[i] -= alpha * hd[i]
		}
		old := rr
		rr = g.Inner(x, r, r)
		for i := range d {
			d[i] = r[i] + rr/old*d[i]
		}
	}
	return eta
}
