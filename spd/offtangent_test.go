package spd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/spd"
)

// TestInnerAliasing: ⟨U, U⟩ is the same whether u and v are one slice or
// a slice and its copy. With U = [[0, 1], [0, 0]] at X = I the two used
// to be tr(U U) = 0 and tr(U Uᵀ) = 1; both are now ‖sym(U)‖² = ½. A skew
// U has norm 0, where Norm used to return √(tr(U U)) = √−2 = NaN.
func TestInnerAliasing(t *testing.T) {
	m := spd.New(2)
	eye := []float64{1, 0, 0, 1}
	u := []float64{0, 1, 0, 0}
	same, copied := m.Inner(eye, u, u), m.Inner(eye, u, append([]float64(nil), u...))
	require.Equal(t, 0.5, same)
	require.Equal(t, 0.5, copied)
	require.Equal(t, math.Sqrt(0.5), m.Norm(eye, u))
	require.Equal(t, 0.0, m.Norm(eye, []float64{0, 1, -1, 0}))
}

// TestOffTangent: every operation reads the symmetric part of a matrix
// given where a tangent vector belongs, as the package documentation
// says: U off the tangent space gives what Project(U) gives, at
// ill-conditioned points too, and the results do not depend on aliasing.
func TestOffTangent(t *testing.T) {
	for _, n := range []int{2, 7, 40} {
		m := spd.New(n)
		rnd := rand.New(rand.NewPCG(9, uint64(n)))
		x, y := make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		m.RandPoint(y, rnd)
		u, v := general(rnd, n), general(rnd, n)
		su, sv := make([]float64, n*n), make([]float64, n*n)
		m.Project(su, x, u)
		m.Project(sv, x, v)
		close := func(what string, got, want float64) {
			t.Helper()
			require.InDelta(t, want, got, 1e-13*math.Abs(want), "n=%d %s", n, what)
		}

		// Against gonum's whitened form, the two computations differ by
		// rounding amplified by κ(X): Inner forms X⁻¹ explicitly. The
		// bound is a first-order one, cn·κ(X)·u·‖U‖_X‖V‖_X, with c = 8
		// (Cauchy–Schwarz scale, since ⟨U, V⟩ itself may cancel).
		bound := 8 * float64(n) * condition(x, n) * 0x1p-53 * m.Norm(x, su) * m.Norm(x, sv)
		require.InDelta(t, whitenedInner(x, su, sv, n), m.Inner(x, su, sv), bound, "n=%d ⟨sym U, sym V⟩ against gonum", n)
		close("⟨U, V⟩", m.Inner(x, u, v), m.Inner(x, su, sv))
		close("⟨V, U⟩", m.Inner(x, v, u), m.Inner(x, su, sv))
		close("‖U‖", m.Norm(x, u), m.Norm(x, su))
		close("⟨U, U⟩ one slice", m.Inner(x, u, u), m.Inner(x, u, append([]float64(nil), u...)))
		close("⟨U, U⟩ tangent", m.Inner(x, su, su), m.Inner(x, su, append([]float64(nil), su...)))

		// A point with condition number 1e12: the norm of any matrix is
		// still a number, ≥ 0.
		ill := illConditioned(rnd, n, 1e12)
		for k := 0; k < 20; k++ {
			w := general(rnd, n)
			nw := m.Norm(ill, w)
			require.False(t, math.IsNaN(nw) || nw < 0, "n=%d: ‖W‖ = %v at κ = 1e12", n, nw)
		}

		want, got := make([]float64, n*n), make([]float64, n*n)
		for _, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
			m.Retraction = r
			require.NoError(t, m.Retract(want, x, su, 0.7))
			require.NoError(t, m.Retract(got, x, u, 0.7))
			requireClose(t, got, want, 1e-13, "retraction %d of U against sym(U)", r)
			inPlace := append([]float64(nil), u...)
			require.NoError(t, m.Retract(inPlace, x, inPlace, 0.7))
			requireClose(t, inPlace, want, 1e-13, "retraction %d into u", r)
		}
		m.ConnectionTerm(want, x, su, sv)
		m.ConnectionTerm(got, x, u, v)
		requireClose(t, got, want, 1e-13, "connection term of U, V against sym(U), sym(V)")
		for _, into := range []string{"u", "v"} {
			uu, vv := append([]float64(nil), u...), append([]float64(nil), v...)
			dst := uu
			if into == "v" {
				dst = vv
			}
			m.ConnectionTerm(dst, x, uu, vv)
			requireClose(t, dst, want, 1e-13, "connection term into %s", into)
		}
		for _, tr := range []spd.TransportMethod{spd.Identity, spd.Parallel} {
			m.TransportMethod = tr
			m.Transport(want, x, y, su)
			m.Transport(got, x, y, u)
			requireClose(t, got, want, 1e-13, "transport %d of U against sym(U)", tr)
			inPlace := append([]float64(nil), u...)
			m.Transport(inPlace, x, y, inPlace)
			requireClose(t, inPlace, want, 1e-13, "transport %d into u", tr)
		}
		d, err := m.Dist(x, x)
		require.NoError(t, err)
		require.Less(t, d, 1e-10, "d(X, X), one slice")
	}
}

// whitenedInner returns ⟨L⁻¹UL⁻ᵀ, L⁻¹VL⁻ᵀ⟩_F = tr(X⁻¹UX⁻¹V) for
// symmetric U, V, with X = LLᵀ, by gonum.
func whitenedInner(x, u, v []float64, n int) float64 {
	var c mat.Cholesky
	if !c.Factorize(mat.NewSymDense(n, append([]float64(nil), x...))) {
		panic("not SPD")
	}
	var l mat.TriDense
	c.LTo(&l)
	white := func(a []float64) *mat.Dense {
		var w, z mat.Dense
		if err := w.Solve(&l, mat.NewDense(n, n, a)); err != nil {
			panic(err)
		}
		if err := z.Solve(&l, w.T()); err != nil { // L⁻¹ (L⁻¹A)ᵀ = L⁻¹ A L⁻ᵀ for symmetric A
			panic(err)
		}
		return &z
	}
	wu, wv := white(u), white(v)
	var s float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += wu.At(i, j) * wv.At(i, j)
		}
	}
	return s
}

// condition returns κ₂(X) = λmax/λmin of an SPD matrix, by gonum.
func condition(x []float64, n int) float64 {
	var e mat.EigenSym
	if !e.Factorize(mat.NewSymDense(n, append([]float64(nil), x...)), false) {
		panic("eigendecomposition failed")
	}
	v := e.Values(nil)
	return v[n-1] / v[0]
}

// general returns an n×n matrix of standard normal entries, not symmetric.
func general(rnd *rand.Rand, n int) []float64 {
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	return a
}

// illConditioned returns Q diag(λ) Qᵀ, λ from 1 to 1/kappa geometrically,
// with Q from a Gram–Schmidt of a Gaussian matrix.
func illConditioned(rnd *rand.Rand, n int, kappa float64) []float64 {
	q := general(rnd, n)
	for i := 0; i < n; i++ {
		row := q[i*n : (i+1)*n]
		for k := 0; k < i; k++ {
			prev := q[k*n : (k+1)*n]
			var d float64
			for j := range row {
				d += row[j] * prev[j]
			}
			for j := range row {
				row[j] -= d * prev[j]
			}
		}
		var s float64
		for _, v := range row {
			s += v * v
		}
		for j := range row {
			row[j] /= math.Sqrt(s)
		}
	}
	x := make([]float64, n*n)
	for k := 0; k < n; k++ {
		lam := math.Pow(kappa, -float64(k)/float64(max(n-1, 1)))
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				x[i*n+j] += q[k*n+i] * lam * q[k*n+j]
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a := 0.5 * (x[i*n+j] + x[j*n+i])
			x[i*n+j], x[j*n+i] = a, a
		}
	}
	return x
}

// requireClose fails unless ‖got − want‖ ≤ tol·‖want‖ (Frobenius).
func requireClose(t *testing.T, got, want []float64, tol float64, msg string, args ...any) {
	t.Helper()
	var d, w float64
	for i := range want {
		d += (got[i] - want[i]) * (got[i] - want[i])
		w += want[i] * want[i]
	}
	if !(math.Sqrt(d) <= tol*math.Sqrt(w)) {
		t.Fatalf("%s: ‖got − want‖ = %.3g, ‖want‖ = %.3g", fmt.Sprintf(msg, args...), math.Sqrt(d), math.Sqrt(w))
	}
}
