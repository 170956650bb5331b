package spectral

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/allocs"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// apiBatch returns count symmetric n×n matrices (SPD when spd) and as
// many general (non-symmetric) gradients.
func apiBatch(n, count int, spd bool, seed uint64) (a, g []float64) {
	rnd := rand.New(rand.NewPCG(seed, uint64(n)))
	a, g = make([]float64, count*n*n), make([]float64, count*n*n)
	for i := 0; i < count; i++ {
		if spd {
			copy(a[i*n*n:], randSPD(n, 0.5, rnd))
		} else {
			copy(a[i*n*n:], randSym(n, rnd))
		}
	}
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	return a, g
}

// TestEig: Eig's eigenpairs reconstruct each matrix (Vᵀ diag(λ) V = A to
// a few ε‖A‖), are orthonormal and ascending, on every order path and
// with the batch run in chunks smaller than it; chunks change nothing
// (bitwise), v may be a.
func TestEig(t *testing.T) {
	for _, n := range []int{1, 3, 10, 33, 40} {
		const count = 23
		a, _ := apiBatch(n, count, false, 1)
		w, v := make([]float64, count*n), make([]float64, count*n*n)
		require.NoError(t, NewBatch(n, count).Eig(w, v, a, count))
		for i := 0; i < count; i++ {
			lam, vi, ai := w[i*n:(i+1)*n], v[i*n*n:(i+1)*n*n], a[i*n*n:(i+1)*n*n]
			require.True(t, slices.IsSorted(lam))
			rec := make([]float64, n*n)
			for p := 0; p < n; p++ {
				for q := 0; q < n; q++ {
					var s, o float64
					for k := 0; k < n; k++ {
						s += vi[k*n+p] * lam[k] * vi[k*n+q]
						o += vi[p*n+k] * vi[q*n+k]
					}
					rec[p*n+q] = s
					if p == q {
						o--
					}
					require.Less(t, math.Abs(o), 100*float64(n)*0x1p-52, "n=%d orthogonality", n)
				}
			}
			require.Less(t, relErr(rec, ai), 100*float64(n)*0x1p-52, "n=%d matrix %d residual", n, i)
		}
		// In chunks of 5 (and the last of 3), and in place.
		w2 := make([]float64, count*n)
		v2 := slices.Clone(a)
		require.NoError(t, NewBatch(n, 5).Eig(w2, v2, v2, count))
		require.Equal(t, w, w2, "n=%d", n)
		require.Equal(t, v, v2, "n=%d", n)
	}
}

// TestMap: Map's outputs are those of Factorize, Apply and BackwardAll,
// in chunks too; BackwardAll is Backward for every matrix, and its map is
// the adjoint of the Fréchet derivative: ⟨G, Df[E]⟩ = ⟨Df*[G], E⟩.
func TestMap(t *testing.T) {
	for _, n := range []int{3, 10, 33} {
		const count = 17
		a, g := apiBatch(n, count, true, 2)
		for _, f := range []Func{lapackx.ExpFunc, lapackx.LogFunc, ReEig(1)} {
			b := NewBatch(n, count)
			require.NoError(t, b.Factorize(a, count))
			out, grad := make([]float64, count*n*n), make([]float64, count*n*n)
			require.NoError(t, b.Apply(out, f))
			b.BackwardAll(grad, g)
			one := make([]float64, n*n)
			for i := 0; i < count; i++ {
				b.Backward(one, g[i*n*n:(i+1)*n*n], i)
				require.Equal(t, one, grad[i*n*n:(i+1)*n*n])
			}
			// Adjointness against FrechetAll with a random symmetric E.
			e, _ := apiBatch(n, count, false, 3)
			de := make([]float64, count*n*n)
			b.FrechetAll(de, e, nil)
			for i := 0; i < count; i++ {
				s := i * n * n
				l, r := frob(g[s:s+n*n], de[s:s+n*n]), frob(grad[s:s+n*n], e[s:s+n*n])
				require.InDelta(t, l, r, 1e-10*(1+math.Abs(l)))
			}
			for _, c := range []int{count, 4} {
				o2, g2 := make([]float64, count*n*n), make([]float64, count*n*n)
				require.NoError(t, NewBatch(n, c).Map(o2, g2, a, g, count, f))
				require.Equal(t, out, o2, "n=%d cap %d", n, c)
				require.Equal(t, grad, g2, "n=%d cap %d", n, c)
				o3 := make([]float64, count*n*n)
				require.NoError(t, NewBatch(n, c).Map(o3, nil, a, nil, count, f))
				require.Equal(t, out, o3)
			}
		}
	}
}

// TestAPIErrors: outside data is checked and the errors name the
// argument and the matrix, counted over the whole array (not the chunk).
func TestAPIErrors(t *testing.T) {
	const n, count = 4, 12
	a, g := apiBatch(n, count, true, 4)
	w, v, out := make([]float64, count*n), make([]float64, count*n*n), make([]float64, count*n*n)
	b := NewBatch(n, 5)
	require.ErrorIs(t, b.Eig(w[1:], v, a, count), numerr.ErrInvalid)
	require.ErrorContains(t, b.Eig(w[1:], v, a, count), "len(w)")
	require.ErrorContains(t, b.Eig(w, v, a[1:], count), "len(a)")
	require.ErrorContains(t, b.Eig(w, v[1:], a, count), "len(v)")
	require.ErrorIs(t, b.Eig(w, v, a, -1), numerr.ErrInvalid)
	require.ErrorIs(t, NewBatch(n, 0).Eig(w, v, a, count), numerr.ErrInvalid)
	require.ErrorIs(t, b.Map(out, nil, a, nil, count, nil), numerr.ErrInvalid)
	require.ErrorContains(t, b.Map(out, out, a, nil, count, lapackx.ExpFunc), "g, which is nil")
	require.ErrorContains(t, b.Map(out, out, a, g[1:], count, lapackx.ExpFunc), "len(g)")

	asym := slices.Clone(a)
	asym[7*n*n+1*n+2] += 1e-6 // a[2,1] of matrix 7
	err := b.Eig(w, v, asym, count)
	require.ErrorIs(t, err, numerr.ErrNotSymmetric)
	require.ErrorContains(t, err, "matrix 7")
	require.ErrorContains(t, err, "argument a")
	require.ErrorIs(t, b.Map(out, nil, asym, nil, count, lapackx.LogFunc), numerr.ErrNotSymmetric)
	// Rounding-level asymmetry passes.
	near := slices.Clone(a)
	near[7*n*n+1*n+2] *= 1 + 1e-14
	require.NoError(t, b.Eig(w, v, near, count))

	for _, k := range []int{11*n*n + 2*n + 1, 11*n*n + 1*n + 2} { // lower and upper
		bad := slices.Clone(a)
		bad[k] = math.NaN()
		err = b.Eig(w, v, bad, count)
		require.ErrorIs(t, err, numerr.ErrNotFinite)
		require.ErrorContains(t, err, "matrix 11")
	}
	badg := slices.Clone(g)
	badg[6*n*n+3] = math.Inf(-1)
	err = b.Map(out, out, a, badg, count, lapackx.LogFunc)
	require.ErrorIs(t, err, numerr.ErrNotFinite)
	require.ErrorContains(t, err, "argument g: matrix 6")

	ind := slices.Clone(a)
	ind[8*n*n] = -50
	err = b.Map(out, nil, ind, nil, count, lapackx.LogFunc)
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	require.ErrorContains(t, err, "matrix 8")
	require.NoError(t, b.Map(out, nil, ind, nil, count, ReEig(1e-4)))
	big := slices.Clone(a)
	big[9*n*n] = 1e3
	require.ErrorIs(t, b.Map(out, nil, big, nil, count, lapackx.ExpFunc), numerr.ErrOverflow)
}

// TestAPIAllocs: steady-state Eig and Map allocate nothing, in chunks and
// in parallel.
func TestAPIAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, n := range []int{3, 20, 40} {
		const count = 40
		a, g := apiBatch(n, count, true, 5)
		w, v, out, grad := make([]float64, count*n), make([]float64, count*n*n), make([]float64, count*n*n), make([]float64, count*n*n)
		b := NewBatch(n, 16)
		run := func() {
			if err := b.Eig(w, v, a, count); err != nil {
				t.Fatal(err)
			}
			if err := b.Map(out, grad, a, g, count, lapackx.LogFunc); err != nil {
				t.Fatal(err)
			}
		}
		run()
		require.Zero(t, allocs.Steady(5, run), "n=%d", n)
	}
}
