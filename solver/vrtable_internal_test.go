package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/spd"
)

// symFunc returns V f(Λ) Vᵀ for the symmetric matrix a.
func symFunc(a *mat.Dense, f func(float64) float64) *mat.Dense {
	n, _ := a.Dims()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, mat.DenseCopyOf(a).RawMatrix().Data), true) {
		panic("eigendecomposition failed")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	vals := es.Values(nil)
	out := mat.NewDense(n, n, nil)
	for k, l := range vals {
		col := mat.Col(nil, k, &v)
		for i := range n {
			for j := range n {
				out.Set(i, j, out.At(i, j)+f(l)*col[i]*col[j])
			}
		}
	}
	return out
}

// parallel is the affine-invariant parallel transport of u from T_xSPD to
// T_ySPD by hand: E u Eᵀ, E = (y x⁻¹)^½ = x^½ (x^-½ y x^-½)^½ x^-½.
func parallel(n int, x, y, u []float64) []float64 {
	X, Y, U := mat.NewDense(n, n, x), mat.NewDense(n, n, y), mat.NewDense(n, n, u)
	xh := symFunc(X, func(l float64) float64 { return math.Sqrt(l) })
	xih := symFunc(X, func(l float64) float64 { return 1 / math.Sqrt(l) })
	var m mat.Dense
	m.Product(xih, Y, xih)
	m.Add(&m, m.T()) // symmetrize
	m.Scale(0.5, &m)
	var e mat.Dense
	e.Product(xh, symFunc(&m, func(l float64) float64 { return math.Sqrt(l) }), xih)
	var out mat.Dense
	out.Product(&e, U, e.T())
	return out.RawMatrix().Data
}

// TestVRTableTransport: the SAGA table's directions and average on SPD
// with parallel transport, against transports computed by hand: a row is
// carried from the point where it was stored to the current one, and the
// refresh after a pass replaces the running average (carried from point
// to point, which differs on a curved manifold) by the average of the
// rows each transported from its own point.
func TestVRTableTransport(t *testing.T) {
	const n = 3
	m := spd.New(n)
	m.TransportMethod = spd.Parallel
	rnd := rand.New(rand.NewPCG(7, 7))
	var p [3][]float64
	for i := range p {
		p[i] = make([]float64, n*n)
		m.RandPoint(p[i], rnd)
	}
	var g [4][]float64
	for i := range g {
		g[i] = make([]float64, n*n)
		m.RandTangent(g[i], p[min(i, 2)], rnd)
	}
	T := func(from, to int, u []float64) []float64 { return parallel(n, p[from], p[to], u) }
	comb := func(terms ...any) []float64 { // pairs of coefficient, vector
		out := make([]float64, n*n)
		for k := 0; k < len(terms); k += 2 {
			c, v := terms[k].(float64), terms[k+1].([]float64)
			for i := range out {
				out[i] += c * v[i]
			}
		}
		return out
	}
	blocks := newVRBlocks(4, 2, false) // two blocks of weight ½
	require.Equal(t, []float64{0.5, 0.5}, blocks.w)
	tab := newVRTable(m, blocks)
	dir := make([]float64, n*n)
	const tol = 1e-12

	tab.step(dir, p[0], 0, g[0])
	require.InDeltaSlice(t, g[0], dir, tol, "an empty row: the value itself")
	tab.move(p[0], p[1])
	tab.step(dir, p[1], 1, g[1])
	require.InDeltaSlice(t, comb(1.0, g[1], 0.5, T(0, 1, g[0])), dir, tol)

	// The running average carried on to p3 is ½T₂₃(T₁₂g₁ + g₂); the
	// refresh makes it ½(T₁₃g₁ + T₂₃g₂), and these differ.
	tab.move(p[1], p[2])
	carried := append([]float64(nil), tab.avg...)
	require.InDeltaSlice(t, comb(0.5, T(1, 2, T(0, 1, g[0])), 0.5, T(1, 2, g[1])), carried, tol)
	exact := comb(0.5, T(0, 2, g[0]), 0.5, T(1, 2, g[1]))
	diff := 0.0
	for i := range exact {
		diff = max(diff, math.Abs(exact[i]-carried[i]))
	}
	require.Greater(t, diff, 1e-3, "parallel transport has holonomy here")

	tab.step(dir, p[2], 0, g[2]) // a pass is over: refresh first
	require.InDeltaSlice(t, comb(1.0, g[2], -0.5, T(0, 2, g[0]), 0.5, T(1, 2, g[1])), dir, tol)
	tab.step(dir, p[2], 1, g[3])
	require.InDeltaSlice(t, comb(1.0, g[3], 0.5, g[2], -0.5, T(1, 2, g[1])), dir, tol)
	require.InDeltaSlice(t, comb(0.5, g[2], 0.5, g[3]), tab.avg, tol, "every row now at p3: the plain average")
}
