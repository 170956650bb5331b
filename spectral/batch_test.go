package spectral

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/allocs"
	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// TestReEigDivDiff checks ReEig's divided differences against their
// definition: the quotient (f(x) − f(y))/(x − y) where it does not cancel
// (evaluated in big steps), symmetry, the range [0, 1], the derivative off
// the kink and the subgradient 0 at it.
func TestReEigDivDiff(t *testing.T) {
	const eps = 1e-4
	f := ReEig(eps)
	e, ok := Threshold(f)
	require.True(t, ok)
	require.Equal(t, eps, e)
	_, ok = Threshold(lapackx.LogFunc)
	require.False(t, ok)
	rnd := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 2000; k++ {
		x := eps * math.Exp(4*rnd.NormFloat64())
		y := eps * math.Exp(4*rnd.NormFloat64())
		if rnd.IntN(4) == 0 {
			y = -y
		}
		d := f.DivDiff(x, y)
		require.Equal(t, d, f.DivDiff(y, x), "symmetry at %g, %g", x, y)
		require.True(t, d >= 0 && d <= 1, "range at %g, %g: %g", x, y, d)
		if x != y {
			q := (f.Eval(x) - f.Eval(y)) / (x - y)
			require.InDelta(t, q, d, 1e-9*math.Max(1, math.Abs(q)), "quotient at %g, %g", x, y)
		}
	}
	require.Equal(t, 1.0, f.DivDiff(2*eps, 2*eps), "f′ above the threshold")
	require.Equal(t, 0.0, f.DivDiff(eps/2, eps/2), "f′ below the threshold")
	require.Equal(t, 0.0, f.DivDiff(eps, eps), "the subgradient at the kink")
	require.Equal(t, 0.0, f.DivDiff(eps, eps/3), "both at or below the threshold")
	require.Equal(t, 1.0, f.DivDiff(eps*(1+0x1p-52), eps*(1+0x1p-51)), "both just above")
	// Just across the kink: exact, no cancellation (a power-of-two ε makes
	// x and y exact too).
	const eps2 = 0x1p-13
	x, y := eps2*(1+0x1p-50), eps2*(1-0x1p-50)
	require.Equal(t, 0.5, ReEig(eps2).DivDiff(x, y))
	require.Panics(t, func() { ReEig(math.NaN()) })
	require.False(t, f.Positive())
}

// withSpectrum returns Qᵀ diag(lam) Q for a Haar-random orthogonal Q, with
// Q.
func withSpectrumQ(rnd *rand.Rand, lam []float64) (a, q []float64) {
	n := len(lam)
	g := make([]float64, n*n)
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	qr := lapackx.NewQR(n, n)
	if err := qr.Factorize(g); err != nil {
		panic(err)
	}
	q = make([]float64, n*n)
	qr.QTo(q)
	a = fuzzing.FromEigen(q, lam)
	lapackx.Symmetrize(a, n)
	return a, q
}

// namedFunc is a spectral function under test, with its name.
type namedFunc struct {
	name string
	f    lapackx.Func
}

// funcsFor are the spectral functions checked on SPD matrices with
// eigenvalues lam: LogEig, ReEig with the threshold inside the spectrum (so
// both branches occur), exp and √. The threshold is the middle of the
// widest gap in the spectrum's middle half, so that a perturbation that
// keeps every eigenvalue on its side of it can still be large enough for a
// Taylor remainder to stand well above rounding. A slice, not a map: the
// tests draw random data per function, and a map's order would change it.
func funcsFor(lam []float64) []namedFunc {
	s := slices.Clone(lam)
	slices.Sort(s)
	mid := 0.5 * s[0]
	if n := len(s); n > 1 {
		best := -1.0
		for i := n / 4; i < max(3*n/4, 1) && i+1 < n; i++ {
			if gap := s[i+1] - s[i]; gap > best {
				best, mid = gap, 0.5*(s[i]+s[i+1])
			}
		}
	}
	return []namedFunc{{"log", lapackx.LogFunc}, {"reeig", ReEig(mid)}, {"exp", lapackx.ExpFunc}, {"sqrt", lapackx.SqrtFunc}}
}

var orders = []int{1, 2, 5, 10, 20, 24, 33, 50}

// paths are the eigensolvers a test runs, with worker counts.
var paths = []struct {
	p Path
	w int
}{{Auto, 0}, {Go, 1}, {Go, 0}, {LAPACK, 1}, {Batched, 1}, {Batched, 0}}

// TestAgainstSymFunc: every path's f(A_i) and Df(A_i)[E] match lapackx's
// SymFunc (its own eigendecomposition and Daleckii–Krein kernel) for each
// function, matrix by matrix, and FrechetAll matches Frechet.
func TestAgainstSymFunc(t *testing.T) {
	const count = 7
	for _, n := range orders {
		rnd := rand.New(rand.NewPCG(uint64(n), 5))
		a := make([]float64, count*n*n)
		e := make([]float64, count*n*n)
		for i := 0; i < count; i++ {
			// log λ spread over about ±3, whatever n: the errors of both
			// sides then stay near ε·κ(A) ≈ 1e−13.
			copy(a[i*n*n:], randSPD(n, 1.5/math.Sqrt(float64(n)), rnd))
			copy(e[i*n*n:], randSym(n, rnd))
		}
		sf := lapackx.NewSymFunc(n)
		if err := sf.Factorize(a[:n*n]); err != nil {
			t.Fatal(err)
		}
		for _, nf := range funcsFor(sf.Eig().Values()) {
			fname, f := nf.name, nf.f
			want, wantD := make([]float64, count*n*n), make([]float64, count*n*n)
			for i := 0; i < count; i++ {
				require.NoError(t, sf.Apply(want[i*n*n:(i+1)*n*n], a[i*n*n:(i+1)*n*n], f))
				require.NoError(t, sf.Frechet(wantD[i*n*n:(i+1)*n*n], e[i*n*n:(i+1)*n*n], f))
			}
			for _, pw := range paths {
				t.Run(fmt.Sprintf("n=%d/f=%s/path=%v/workers=%d", n, fname, pw.p, pw.w), func(t *testing.T) {
					b := NewBatch(n, count)
					b.Path, b.Workers = pw.p, pw.w
					require.NoError(t, b.Factorize(a, count))
					require.Equal(t, count, b.Len())
					got := make([]float64, count*n*n)
					require.NoError(t, b.Apply(got, f))
					d, dall := make([]float64, n*n), make([]float64, count*n*n)
					b.FrechetAll(dall, e, nil)
					for i := 0; i < count; i++ {
						blk := func(s []float64) []float64 { return s[i*n*n : (i+1)*n*n] }
						require.Less(t, relErr(blk(got), blk(want)), 1e-12, "f(A_%d)", i)
						b.Frechet(d, blk(e), i)
						require.Less(t, relErr(d, blk(wantD)), 1e-11, "Df(A_%d)[E]", i)
						require.Equal(t, d, blk(dall), "FrechetAll against Frechet, matrix %d", i)
						require.True(t, slices.IsSorted(b.Values(i)))
					}
				})
			}
		}
	}
}

// TestFrechetTaylor: ⟨G, f(A)⟩ has the Euclidean gradient Backward(G) along
// symmetric directions, by the t² slope of its Taylor remainder
// (solver.CheckGradient), for a non-symmetric G, at each order and
// function; and Df(A)[E] matches the central difference of f along E.
func TestFrechetTaylor(t *testing.T) {
	for _, n := range []int{2, 5, 20, 33} {
		rnd := rand.New(rand.NewPCG(uint64(n), 9))
		a := randSPD(n, 1.5/math.Sqrt(float64(n)), rnd)
		sf := lapackx.NewSymFunc(n)
		require.NoError(t, sf.Factorize(a))
		for _, nf := range funcsFor(sf.Eig().Values()) {
			fname, f := nf.name, nf.f
			g := make([]float64, n*n)
			for i := range g {
				g[i] = rnd.NormFloat64()
			}
			// E small enough that A + tE, t ≤ 0.1 (CheckGradient's
			// largest step), stays positive definite and no eigenvalue
			// crosses ReEig's threshold.
			e := randSym(n, rnd)
			lam := sf.Eig().Values()
			scale := lam[0]
			if eps, ok := Threshold(f); ok {
				for _, x := range lam {
					scale = math.Min(scale, math.Abs(x-eps))
				}
			}
			scale /= math.Sqrt(frob(e, e))
			for i := range e {
				e[i] *= scale
			}
			b := NewBatch(n, 1)
			require.NoError(t, b.Factorize(a, 1))
			require.NoError(t, b.Apply(nil, f))
			fa := make([]float64, n*n)
			phi := func(x []float64) float64 {
				if err := sf.Apply(fa, x, f); err != nil {
					t.Fatal(err)
				}
				return frob(g, fa)
			}
			grad := func(dst, x []float64) {
				require.Equal(t, a, x, "the gradient is asked at A")
				b.Backward(dst, g, 0)
			}
			r := solver.CheckGradient(euclid.New(n, n), phi, grad, a, e)
			require.True(t, r.OK, "n=%d f=%s: %v", n, fname, r)
			// The whole matrix against the central difference of f.
			d := make([]float64, n*n)
			b.Frechet(d, e, 0)
			fp, fm, x := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
			const h = 1e-3 // truncation O(h²‖E‖²) ≈ 1e−7 relative at most, rounding ≈ ε/h
			for i := range x {
				x[i] = a[i] + h*e[i]
			}
			require.NoError(t, sf.Apply(fp, x, f))
			for i := range x {
				x[i] = a[i] - h*e[i]
			}
			require.NoError(t, sf.Apply(fm, x, f))
			for i := range fp {
				fp[i] = (fp[i] - fm[i]) / (2 * h)
			}
			require.Less(t, relErr(d, fp), 1e-6, "n=%d f=%s: against the central difference", n, fname)
		}
	}
}

// TestAdjoint: ⟨G, Df(A)[E]⟩ = ⟨Backward(G), E⟩ for non-symmetric G and
// symmetric E, and Backward(G) = Backward(Gᵀ).
func TestAdjoint(t *testing.T) {
	for _, n := range []int{3, 10, 40} {
		rnd := rand.New(rand.NewPCG(uint64(n), 4))
		a := randSPD(n, 0.8, rnd)
		b := NewBatch(n, 1)
		require.NoError(t, b.Factorize(a, 1))
		require.NoError(t, b.Apply(nil, lapackx.LogFunc))
		g, gt := make([]float64, n*n), make([]float64, n*n)
		for i := range g {
			g[i] = rnd.NormFloat64()
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				gt[j*n+i] = g[i*n+j]
			}
		}
		e := randSym(n, rnd)
		de, bg, bgt := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		b.Frechet(de, e, 0)
		b.Backward(bg, g, 0)
		b.Backward(bgt, gt, 0)
		lhs, rhs := frob(g, de), frob(bg, e)
		require.InDelta(t, lhs, rhs, 1e-13*(math.Abs(lhs)+1), "n=%d", n)
		require.Less(t, relErr(bgt, bg), 1e-15)
	}
}

// logDivDiffRef is log[x, y] by log1p(t)/t with t = (x − y)/y, an
// independent formula that does not cancel for x ≈ y (log1p is accurate
// for small t), and 1/x for x = y.
func logDivDiffRef(x, y float64) float64 {
	if x == y {
		return 1 / x
	}
	t := (x - y) / y
	return math.Log1p(t) / t / y
}

// TestCloseEigenvalues: for spectra with a pair of eigenvalues δ apart
// (δ from 0 to 1e−4, relative), Dlog(A)[E] matches Qᵀ(Γ ∘ QEQᵀ)Q with the
// known Q and Γ from logDivDiffRef; the derivative is continuous across
// the cluster, however the eigensolver splits the invariant subspace.
// At A = cI, Dlog(A)[E] = E/c and DReEig(A)[E] = E (c above ε) or 0.
func TestCloseEigenvalues(t *testing.T) {
	const n = 6
	rnd := rand.New(rand.NewPCG(3, 3))
	e := randSym(n, rnd)
	for _, delta := range []float64{0, 1e-15, 1e-12, 1e-8, 1e-4} {
		lam := []float64{0.3, 1, 1 + delta, 2, 2 * (1 + delta), 7}
		a, q := withSpectrumQ(rnd, lam)
		for _, p := range []Path{Go, LAPACK} {
			b := NewBatch(n, 1)
			b.Path = p
			require.NoError(t, b.Factorize(a, 1))
			require.NoError(t, b.Apply(nil, lapackx.LogFunc))
			got := make([]float64, n*n)
			b.Frechet(got, e, 0)
			// Reference: Qᵀ (Γ ∘ (Q E Qᵀ)) Q.
			m := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					var s float64
					for k := 0; k < n; k++ {
						for l := 0; l < n; l++ {
							s += q[i*n+k] * e[k*n+l] * q[j*n+l]
						}
					}
					m[i*n+j] = s * logDivDiffRef(lam[i], lam[j])
				}
			}
			want := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					var s float64
					for k := 0; k < n; k++ {
						for l := 0; l < n; l++ {
							s += q[k*n+i] * m[k*n+l] * q[l*n+j]
						}
					}
					want[i*n+j] = s
				}
			}
			require.Less(t, relErr(got, want), 1e-12, "δ = %g, path %v", delta, p)
		}
	}
	// Exactly repeated: A = cI.
	for _, c := range []float64{0.5, 3} {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			a[i*n+i] = c
		}
		b := NewBatch(n, 1)
		require.NoError(t, b.Factorize(a, 1))
		got := make([]float64, n*n)
		require.NoError(t, b.Apply(nil, lapackx.LogFunc))
		b.Frechet(got, e, 0)
		for i := range got {
			require.InDelta(t, e[i]/c, got[i], 1e-15*math.Abs(e[i]/c)+1e-16, "Dlog(cI)[E] = E/c")
		}
		require.NoError(t, b.Apply(nil, ReEig(1)))
		b.Frechet(got, e, 0)
		for i := range got {
			if c > 1 {
				require.Equal(t, e[i], got[i], "DReEig(cI) is the identity above ε")
			} else {
				require.Equal(t, 0.0, got[i], "DReEig(cI) is zero below ε")
			}
		}
	}
}

// TestReEigKink: for a diagonal A with eigenvalues below, at and above ε
// (the eigensolvers return them exactly, with V a permutation),
// DReEig(A)[E]_ab = Γ_ab E_ab with the stated rule, which at the kink is
// the one-sided derivative from below (t → 0⁻) along e_k e_kᵀ, and
// f(A) keeps the eigenvalues above ε and lifts the others to ε.
func TestReEigKink(t *testing.T) {
	const eps = 0.25
	diag := []float64{1, eps, 0.1, 3, eps, -2}
	n := len(diag)
	a := make([]float64, n*n)
	for i, x := range diag {
		a[i*n+i] = x
	}
	rnd := rand.New(rand.NewPCG(8, 8))
	e := randSym(n, rnd)
	f := ReEig(eps)
	for _, p := range []Path{Go, LAPACK} {
		b := NewBatch(n, 1)
		b.Path = p
		require.NoError(t, b.Factorize(a, 1))
		fa := make([]float64, n*n)
		require.NoError(t, b.Apply(fa, f))
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := 0.0
				if i == j {
					want = math.Max(eps, diag[i])
				}
				require.Equal(t, want, fa[i*n+j], "path %v: f(A)[%d,%d]", p, i, j)
			}
		}
		got := make([]float64, n*n)
		b.Frechet(got, e, 0)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := f.DivDiff(diag[i], diag[j]) * e[i*n+j]
				require.InDelta(t, want, got[i*n+j], 1e-15, "path %v: [%d,%d]", p, i, j)
			}
		}
		// Along e_k e_kᵀ at the kink k = 1: from below f does not move.
		ek := make([]float64, n*n)
		ek[1*n+1] = 1
		b.Frechet(got, ek, 0)
		require.Equal(t, 0.0, got[1*n+1], "path %v: the subgradient at the kink", p)
		x := slices.Clone(a)
		x[1*n+1] -= 1e-3
		require.NoError(t, b.Factorize(x, 1))
		require.NoError(t, b.Apply(fa, f))
		require.Equal(t, eps, fa[1*n+1], "path %v: from below, f stays at ε", p)
	}
}

// splitAll makes every call with more than one matrix run in parallel
// chunks (one per worker) and returns the function that undoes it.
func splitAll() func() {
	old := parMinWork
	parMinWork = 1
	return func() { parMinWork = old }
}

// TestPathsBitwise: a path gives the same bits whatever the number of
// workers (the matrices are independent, the chunks run in parallel), and
// FrechetAll skips the matrices of weight zero, leaving zeros.
func TestPathsBitwise(t *testing.T) {
	defer splitAll()()
	const n, count = 12, 40
	rnd := rand.New(rand.NewPCG(2, 7))
	a, e := make([]float64, count*n*n), make([]float64, count*n*n)
	for i := 0; i < count; i++ {
		copy(a[i*n*n:], randSPD(n, 0.5, rnd))
		copy(e[i*n*n:], randSym(n, rnd))
	}
	w := make([]float64, count)
	for i := range w {
		if i%3 != 0 {
			w[i] = 1
		}
	}
	for _, p := range []Path{Go, LAPACK, Batched} {
		var ref [2][]float64
		for _, workers := range []int{1, 2, 3} {
			b := NewBatch(n, count)
			b.Path, b.Workers = p, workers
			require.NoError(t, b.Factorize(a, count))
			fa, d := make([]float64, count*n*n), make([]float64, count*n*n)
			require.NoError(t, b.Apply(fa, lapackx.LogFunc))
			b.FrechetAll(d, e, w)
			for i := 0; i < count; i++ {
				if w[i] == 0 {
					require.Equal(t, make([]float64, n*n), d[i*n*n:(i+1)*n*n])
				}
			}
			if ref[0] == nil {
				ref = [2][]float64{fa, d}
				continue
			}
			require.Equal(t, ref[0], fa, "path %v, %d workers: f(A)", p, workers)
			require.Equal(t, ref[1], d, "path %v, %d workers: Df", p, workers)
		}
	}
}

// TestErrors: bad data is an error wrapping the numerr sentinels, naming
// the first bad matrix, on every path and worker count (with parallel
// chunks, the lowest failing chunk's); a failed Factorize leaves no
// factorization.
func TestErrors(t *testing.T) {
	defer splitAll()()
	const n, count = 4, 30
	rnd := rand.New(rand.NewPCG(1, 1))
	a := make([]float64, count*n*n)
	for i := 0; i < count; i++ {
		copy(a[i*n*n:], randSPD(n, 0.5, rnd))
	}
	for _, pw := range paths {
		b := NewBatch(n, count)
		b.Path, b.Workers = pw.p, pw.w
		bad := slices.Clone(a)
		bad[17*n*n+1], bad[25*n*n+2] = math.NaN(), math.Inf(1)
		err := b.Factorize(bad, count)
		require.ErrorIs(t, err, numerr.ErrNotFinite, "%v", pw)
		require.Contains(t, err.Error(), "matrix 17")
		require.Equal(t, 0, b.Len())
		require.Panics(t, func() { b.Values(0) })
		// Indefinite: log refuses, ReEig takes it.
		ind := slices.Clone(a)
		ind[9*n*n] = -10
		require.NoError(t, b.Factorize(ind, count))
		err = b.Apply(nil, lapackx.LogFunc)
		require.True(t, errors.Is(err, numerr.ErrNotPosDef), "%v: %v", pw, err)
		require.Contains(t, err.Error(), "matrix 9")
		require.NoError(t, b.Apply(nil, ReEig(1e-4)))
		big := slices.Clone(a)
		big[3*n*n] = 1e3
		require.NoError(t, b.Factorize(big, count))
		require.ErrorIs(t, b.Apply(nil, lapackx.ExpFunc), numerr.ErrOverflow, "%v", pw)
		require.Panics(t, func() { b.Frechet(make([]float64, n*n), make([]float64, n*n), 0) }, "Frechet after a failed Apply")
	}
}

// TestAllocs: a steady-state Factorize, Apply and FrechetAll allocate
// nothing, in parallel too.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, n := range []int{5, 20, 40} {
		const count = 40
		rnd := rand.New(rand.NewPCG(1, uint64(n)))
		a, e, d := make([]float64, count*n*n), make([]float64, count*n*n), make([]float64, count*n*n)
		for i := 0; i < count; i++ {
			copy(a[i*n*n:], randSPD(n, 0.5, rnd))
			copy(e[i*n*n:], randSym(n, rnd))
		}
		for _, p := range []Path{Auto, LAPACK, Batched} {
			b := NewBatch(n, count)
			b.Path = p
			run := func() {
				if err := b.Factorize(a, count); err != nil {
					t.Fatal(err)
				}
				if err := b.Apply(d, lapackx.LogFunc); err != nil {
					t.Fatal(err)
				}
				b.FrechetAll(d, e, nil)
			}
			run()
			require.Zero(t, allocs.Steady(5, run), "n=%d path %v", n, p)
		}
	}
}
