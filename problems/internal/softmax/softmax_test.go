package softmax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

const q, c = 4, 3

func randVec(rnd *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rnd.NormFloat64()
	}
	return v
}

// ce returns the cross-entropy of label y at head w and features phi,
// computed from its definition.
func ce(w, phi []float64, y int) float64 {
	var sum, zy float64
	for k := 0; k < c; k++ {
		var z float64
		for a, f := range phi {
			z += f * w[a*c+k]
		}
		sum += math.Exp(z)
		if k == y {
			zy = z
		}
	}
	return math.Log(sum) - zy
}

// probsAt returns softmax(Wᵀφ) by Probs, and the cross-entropy.
func probsAt(w, phi []float64, y int) ([]float64, float64) {
	wt, p := make([]float64, q*c), make([]float64, c)
	Transpose(wt, w, q, c)
	return p, Probs(p, phi, wt, y)
}

// diff returns the central difference of f along t at step h.
func diff(f func(t float64) []float64, h float64) []float64 {
	a, b := f(h), f(-h)
	for i := range a {
		a[i] = (a[i] - b[i]) / (2 * h)
	}
	return a
}

// TestDerivatives checks each function against central differences of
// the cross-entropy written from its definition.
func TestDerivatives(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 7))
	const y, scale, h, tol = 1, 0.7, 1e-5, 1e-7
	w, phi, v, dphi := randVec(rnd, q*c), randVec(rnd, q), randVec(rnd, q*c), randVec(rnd, q)
	u, r := make([]float64, c), make([]float64, c)
	along := func(x, d []float64, t float64) []float64 {
		z := append([]float64(nil), x...)
		for i := range d {
			z[i] += t * d[i]
		}
		return z
	}
	p, l := probsAt(w, phi, y)
	require.InDelta(t, ce(w, phi, y), l, 1e-14)
	var sum float64
	for _, pk := range p {
		sum += pk
	}
	require.InDelta(t, 1, sum, 1e-15)

	// AddGrad: the gradient in W; ⟨∇, V⟩ against the difference along V.
	grad := make([]float64, q*c)
	AddGrad(grad, phi, p, y, scale)
	fd := diff(func(t float64) []float64 { return []float64{scale * ce(along(w, v, t), phi, y)} }, h)
	var gv float64
	for i := range v {
		gv += grad[i] * v[i]
	}
	require.InDelta(t, fd[0], gv, tol)

	gradAt := func(w, phi []float64) []float64 {
		p, _ := probsAt(w, phi, y)
		g := make([]float64, q*c)
		AddGrad(g, phi, p, y, scale)
		return g
	}
	// AddHess: the difference of the gradient along V.
	hv := make([]float64, q*c)
	AddHess(hv, phi, p, v, scale, u, r)
	require.InDeltaSlice(t, diff(func(t float64) []float64 { return gradAt(along(w, v, t), phi) }, h), hv, tol)

	// AddHessBlocks and FinishHess: the same Hessian as a matrix, plus λI.
	const lambda = 0.3
	hm := make([]float64, q*c*q*c)
	AddHessBlocks(hm, phi, p, scale)
	FinishHess(hm, q*c, lambda)
	for i := 0; i < q*c; i++ {
		var x float64
		for j := 0; j < q*c; j++ {
			x += hm[i*q*c+j] * v[j]
		}
		require.InDelta(t, hv[i]+lambda*v[i], x, 1e-14)
	}

	// Upstream: the gradient in φ, on the first q−1 features.
	upAt := func(w, phi []float64) []float64 {
		p, _ := probsAt(w, phi, y)
		g := make([]float64, q-1)
		Upstream(g, w, p, y, scale)
		return g
	}
	up := upAt(w, phi)
	for a := 0; a < q-1; a++ {
		e := make([]float64, q)
		e[a] = 1
		require.InDelta(t, diff(func(t float64) []float64 { return []float64{scale * ce(w, along(phi, e, t), y)} }, h)[0], up[a], tol)
	}

	// CrossUpstream: Upstream's difference along V, added to what g holds.
	g := []float64{1, 2, 3}
	CrossUpstream(g, phi, w, v, p, y, scale, u, r)
	want := diff(func(t float64) []float64 { return upAt(along(w, v, t), phi) }, h)
	for a := range want {
		want[a] += float64(a + 1)
	}
	require.InDeltaSlice(t, want, g, tol)

	// AddCross: the gradient's difference along dφ, with dφ's last entry
	// (missing) zero.
	cross := make([]float64, q*c)
	AddCross(cross, w, dphi[:q-1], phi, p, y, scale, u, r)
	dz := append(dphi[:q-1:q-1], 0)
	require.InDeltaSlice(t, diff(func(t float64) []float64 { return gradAt(w, along(phi, dz, t)) }, h), cross, tol)
}

// TestProbsOverflow checks that large logits neither overflow nor lose
// the cross-entropy.
func TestProbsOverflow(t *testing.T) {
	w := make([]float64, q*c)
	w[0], w[1] = 1000, 999 // logits 1000, 999, 0 for φ = e_0
	p, l := probsAt(w, []float64{1, 0, 0, 0}, 1)
	require.InDelta(t, 1+math.Log1p(math.Exp(-1)+math.Exp(-1000)), l, 1e-12) // zmax + log Σ − z_y rounds at 1000
	require.InDelta(t, 1/(1+math.Exp(-1)), p[0], 1e-15)
}

// TestAllocs checks that the per-sample functions allocate nothing.
func TestAllocs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 8))
	w, phi, v := randVec(rnd, q*c), randVec(rnd, q), randVec(rnd, q*c)
	wt, p, u, r, dst, g := make([]float64, q*c), make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, q*c), make([]float64, q)
	hm := make([]float64, q*c*q*c)
	require.Zero(t, testing.AllocsPerRun(10, func() {
		Transpose(wt, w, q, c)
		Probs(p, phi, wt, 0)
		AddGrad(dst, phi, p, 0, 1)
		AddHess(dst, phi, p, v, 1, u, r)
		AddHessBlocks(hm, phi, p, 1)
		FinishHess(hm, q*c, 1)
		Upstream(g, w, p, 0, 1)
		CrossUpstream(g, phi, w, v, p, 0, 1, u, r)
		AddCross(dst, w, phi, phi, p, 0, 1, u, r)
	}))
}
