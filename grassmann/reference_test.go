package grassmann_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/grassmann"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/stiefel"
)

const eps = 0x1p-52

// pymanoptCase is one case of testdata/pymanopt.json (gen_pymanopt.py).
type pymanoptCase struct {
	N, P                                    int
	Dist                                    float64
	X, Y, U, V, Egrad, Ehess                []float64
	Projection, Rhess, Exp, Log, Retraction []float64
	Transport                               []float64
}

// TestPymanopt compares each operation with pymanopt's Grassmann on the
// same inputs (testdata/gen_pymanopt.py): the projection, the Hessian
// conversion, the polar retraction, the transport and the logarithm entry
// by entry; the exponential up to the signs of its columns, which
// pymanopt's QR re-orthonormalization leaves to LAPACK (its R ≈ ±I);
// the distance, which pymanopt takes as ‖arccos σ(XᵀY)‖. The bounds are a
// few hundred units of roundoff on these order-10 products, and more for
// Log, whose (XᵀY)⁻¹ multiplies the error by its condition number.
func TestPymanopt(t *testing.T) {
	raw, err := os.ReadFile("testdata/pymanopt.json")
	require.NoError(t, err)
	var ref struct{ Cases []pymanoptCase }
	require.NoError(t, json.Unmarshal(raw, &ref))
	require.Len(t, ref.Cases, 5)
	for _, c := range ref.Cases {
		t.Run(fmt.Sprintf("n=%d,p=%d", c.N, c.P), func(t *testing.T) {
			n, p := c.N, c.P
			g := grassmann.New(n, p)
			g.Retraction = grassmann.Polar
			got := make([]float64, n*p)
			near := func(what string, want []float64, tol float64) {
				t.Helper()
				assert.LessOrEqual(t, dist2(got, want), tol*(1+norm2(want)), "%s: got %v, want %v", what, got, want)
			}
			g.Project(got, c.X, c.V)
			near("projection", c.Projection, 1e-14)
			g.EHessToRHess(got, c.X, c.Egrad, c.Ehess, c.U)
			near("Riemannian Hessian", c.Rhess, 1e-14)
			require.NoError(t, g.Retract(got, c.X, c.U, 1))
			near("polar retraction", c.Retraction, 1e-14)
			g.Transport(got, c.X, c.Y, c.U)
			near("transport", c.Transport, 1e-14)

			require.NoError(t, g.Log(got, c.X, c.Y))
			kappa := cond(mulT(c.X, c.Y, n, p, p), p)
			near("Log", c.Log, 1e-14*kappa)

			d, err := g.Dist(c.X, c.Y)
			require.NoError(t, err)
			assert.InDelta(t, c.Dist, d, 1e-13, "Dist")

			require.NoError(t, g.Exp(got, c.X, c.U, 1))
			for j := 0; j < p; j++ {
				var plus, minus float64
				for i := 0; i < n; i++ {
					a, b := got[i*p+j], c.Exp[i*p+j]
					plus, minus = math.Hypot(plus, a-b), math.Hypot(minus, a+b)
				}
				assert.LessOrEqual(t, math.Min(plus, minus), 1e-14, "Exp column %d differs from pymanopt's beyond its sign", j)
			}
		})
	}
}

// cond returns the 2-norm condition number of the p×p a: the ratio of
// its extreme singular values, from the principal-angle helper's SVD.
func cond(a []float64, p int) float64 {
	s := singularValues(a, p)
	return s[0] / s[len(s)-1]
}

// TestExpMatchesStiefel: for a horizontal U, Exp is stiefel's exponential
// of the embedded metric (Edelman, Arias and Smith 1998, eq. 2.45, by a
// 2p×2p matrix exponential: an independent computation), representative
// and all: the horizontal geodesics of St(n, p) are the lifts of Gr's
// (the quotient map is a Riemannian submersion). Steps run from short
// to long ones that wrap around (t‖U‖ = 10), where both lose accuracy in
// proportion to the step.
func TestExpMatchesStiefel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 1))
	for _, np := range shapes {
		n, p := np[0], np[1]
		g, s := grassmann.New(n, p), stiefel.New(n, p)
		x, u := make([]float64, n*p), make([]float64, n*p)
		want, got := make([]float64, n*p), make([]float64, n*p)
		g.RandPoint(x, rnd)
		g.RandTangent(u, x, rnd)
		for _, step := range []float64{1e-3, 0.4, 1.3, 3, 10} {
			require.NoError(t, s.Exp(want, x, u, step))
			require.NoError(t, g.Exp(got, x, u, step))
			assert.LessOrEqual(t, dist2(got, want), 1e-14*(1+step)*math.Sqrt(float64(n*p)),
				"Gr(%d, %d), t = %v", n, p, step)
			require.NoError(t, g.CheckPoint(got))
		}
	}
}

// TestProjectiveSpace: Gr(n, 1) is the real projective space, the sphere
// with x and −x identified, with the round metric: its geodesics are
// great circles, Exp_x(tu) = cos(t‖u‖)x + sin(t‖u‖)u/‖u‖, and
// d(x, y) = arccos|xᵀy|; Log_x(y) = θ w/‖w‖ with w = ±y − cos θ x, the
// sign that of xᵀy; ±y are one point. Orthogonal lines are π/2 apart,
// where Log is not defined.
func TestProjectiveSpace(t *testing.T) {
	const n = 5
	rnd := rand.New(rand.NewPCG(3, 1))
	g := grassmann.New(n, 1)
	x, y, u := make([]float64, n), make([]float64, n), make([]float64, n)
	got, want := make([]float64, n), make([]float64, n)
	for trial := 0; trial < 5; trial++ {
		g.RandPoint(x, rnd)
		g.RandPoint(y, rnd)
		g.RandTangent(u, x, rnd)
		for _, step := range []float64{0.3, 1, 2.5} {
			c, s := math.Cos(step), math.Sin(step)
			for i := range want {
				want[i] = c*x[i] + s*u[i] // ‖u‖ = 1
			}
			require.NoError(t, g.Exp(got, x, u, step))
			assert.LessOrEqual(t, dist2(got, want), 4*eps*n, "Exp, t = %v", step)
		}
		var xy float64
		for i := range x {
			xy += x[i] * y[i]
		}
		theta, sg := math.Acos(math.Abs(xy)), math.Copysign(1, xy)
		var wn float64
		for i := range want {
			want[i] = sg*y[i] - math.Abs(xy)*x[i]
			wn = math.Hypot(wn, want[i])
		}
		for i := range want {
			want[i] *= theta / wn
		}
		for _, sign := range []float64{1, -1} {
			ys := make([]float64, n)
			for i := range ys {
				ys[i] = sign * y[i]
			}
			d, err := g.Dist(x, ys)
			require.NoError(t, err)
			// arccos loses digits near |xᵀy| = 1: its error is ε/sin θ.
			assert.InDelta(t, theta, d, 8*eps/math.Sin(theta), "Dist")
			require.NoError(t, g.Log(got, x, ys))
			assert.LessOrEqual(t, dist2(got, want), 16*eps/math.Cos(theta), "Log of %+v·y", sign)
		}
	}
	e1, e2 := make([]float64, n), make([]float64, n)
	e1[0], e2[1] = 1, 1
	d, err := g.Dist(e1, e2)
	require.NoError(t, err)
	assert.Equal(t, math.Pi/2, d, "Dist of orthogonal lines")
	err = g.Log(got, e1, e2)
	assert.True(t, errors.Is(err, numerr.ErrSingular), "Log of orthogonal lines: %v", err)
}

// TestDistPrincipalAngles: Dist is the norm of the principal angles, as
// arccos of the singular values of XᵀY gives them (gonum's SVD; arccos's
// error is ε/sin θ), and the norm of Log (pymanopt's test_dist); it is
// symmetric. Orthogonal subspaces at n = 2p are √p·π/2 apart to
// rounding, which the cosines give and the sines alone would miss by
// √ε; and two bases that share one vector and are otherwise orthogonal
// are π/2 apart, where XᵀY is singular and Log is an error.
func TestDistPrincipalAngles(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 1))
	for _, np := range shapes {
		n, p := np[0], np[1]
		g := grassmann.New(n, p)
		x, y, l := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
		for trial := 0; trial < 5; trial++ {
			g.RandPoint(x, rnd)
			g.RandPoint(y, rnd)
			th := principalAngles(x, y, n, p)
			minSin := 1.0
			for _, a := range th {
				if a > 0 {
					minSin = math.Min(minSin, math.Sin(a))
				}
			}
			d, err := g.Dist(x, y)
			require.NoError(t, err)
			assert.InDelta(t, norm2(th), d, 64*eps/minSin, "Gr(%d, %d): Dist against arccos σ(XᵀY)", n, p)
			dyx, err := g.Dist(y, x)
			require.NoError(t, err)
			assert.InDelta(t, d, dyx, 64*eps, "Dist not symmetric")
			require.NoError(t, g.Log(l, x, y))
			assert.InDelta(t, d, norm2(l), 64*eps*cond(mulT(x, y, n, p, p), p), "Dist ≠ ‖Log‖")
		}
	}

	// Orthogonal subspaces: the two halves of a random orthogonal matrix.
	const p = 3
	q := orthogonal(2*p, rnd)
	x, y := make([]float64, 2*p*p), make([]float64, 2*p*p)
	for i := 0; i < 2*p; i++ {
		copy(x[i*p:(i+1)*p], q[i*2*p:i*2*p+p])
		copy(y[i*p:(i+1)*p], q[i*2*p+p:(i+1)*2*p])
	}
	g := grassmann.New(2*p, p)
	d, err := g.Dist(x, y)
	require.NoError(t, err)
	assert.InDelta(t, math.Sqrt(p)*math.Pi/2, d, 64*eps, "orthogonal subspaces")

	// All angles π/2 − δ: Y = X sin δ + W cos δ with W horizontal and
	// orthonormal. The sines, cos δ, give the angles to about ε/δ only;
	// the cosines, sin δ, to rounding.
	const delta = 1e-6
	g = grassmann.New(7, p)
	x, y = make([]float64, 7*p), make([]float64, 7*p)
	g.RandPoint(x, rnd)
	g.RandTangent(y, x, rnd) // horizontal, then orthonormalized:
	q = make([]float64, 7*p)
	g.Retraction = grassmann.Polar
	require.NoError(t, g.Retract(q, y, make([]float64, 7*p), 0)) // the polar factor of y
	for i := range y {
		y[i] = x[i]*math.Sin(delta) + q[i]*math.Cos(delta)
	}
	d, err = g.Dist(x, y)
	require.NoError(t, err)
	assert.InDelta(t, math.Sqrt(p)*(math.Pi/2-delta), d, 64*eps, "angles π/2 − δ")

	// span{e1, e2} and span{e2, e3}: angles 0 and π/2.
	x, y = make([]float64, 2*p*2), make([]float64, 2*p*2)
	x[0], x[3], y[2], y[5] = 1, 1, 1, 1 // columns e1, e2 and e2, e3
	g = grassmann.New(2*p, 2)
	d, err = g.Dist(x, y)
	require.NoError(t, err)
	assert.Equal(t, math.Pi/2, d)
	err = g.Log(make([]float64, len(x)), x, y)
	assert.True(t, errors.Is(err, numerr.ErrSingular), "Log at the cut locus: %v", err)
}

// TestDistSmallAngles: close subspaces, Y = Exp_X(δU) with ‖U‖ = 1, are
// δ apart; the sines give δ to about ε/δ relative, where arccos of
// σ(XᵀY) (the textbook formula, and pymanopt's) is off by about ε/δ²
// relative, which the test shows too so that it is not vacuous. Dist of
// two bases of one subspace is of the order of the rounding.
func TestDistSmallAngles(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 1))
	const n, p = 9, 2
	g := grassmann.New(n, p)
	x, u, y := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
	g.RandPoint(x, rnd)
	g.RandTangent(u, x, rnd)
	for _, delta := range []float64{1e-4, 1e-6} {
		require.NoError(t, g.Exp(y, x, u, delta))
		d, err := g.Dist(x, y)
		require.NoError(t, err)
		assert.InDelta(t, delta, d, 64*eps, "δ = %v", delta)
		if delta == 1e-6 {
			assert.Greater(t, math.Abs(norm2(principalAngles(x, y, n, p))-delta), 1000*64*eps,
				"arccos σ(XᵀY) as accurate as the sines: the test shows nothing")
		}
	}
	o := orthogonal(p, rnd)
	d, err := g.Dist(x, mul(x, o, n, p, p))
	require.NoError(t, err)
	assert.LessOrEqual(t, d, 16*eps*n, "Dist(X, XO)")
}
