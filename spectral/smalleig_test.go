package spectral

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// withSpectrum returns Qᵀ diag(lam) Q for a Haar-random orthogonal Q.
func withSpectrum(rnd *rand.Rand, lam []float64) []float64 {
	n := len(lam)
	g := make([]float64, n*n)
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	var qr mat.QR
	qr.Factorize(mat.NewDense(n, n, g))
	var q, t, a mat.Dense
	qr.QTo(&q)
	t.Apply(func(i, j int, v float64) float64 { return v * lam[i] }, &q)
	a.Mul(q.T(), &t)
	out := a.RawMatrix().Data
	lapackx.Symmetrize(out, n)
	return out
}

// smallEigCases are the matrices the eigensolver must handle: random
// indefinite and SPD matrices, known spectra with repeated and clustered
// eigenvalues, wide and graded spectra, extreme scales, matrices already
// diagonal or block diagonal (zero Householder columns), zero diagonals.
func smallEigCases(n int) map[string]struct {
	a    []float64
	want []float64 // the exact spectrum when known
} {
	rnd := rand.New(rand.NewPCG(uint64(n), 77))
	type c = struct {
		a    []float64
		want []float64
	}
	out := map[string]c{}
	sym := make([]float64, n*n)
	for i := range sym {
		sym[i] = rnd.NormFloat64()
	}
	lapackx.Symmetrize(sym, n)
	out["random symmetric"] = c{a: sym}
	out["random SPD (the paper's A_i)"] = c{a: randSPD(n, 0.5, rnd)}
	spectrum := func(name string, lam []float64) {
		sorted := slices.Clone(lam)
		slices.Sort(sorted)
		out[name] = c{a: withSpectrum(rnd, lam), want: sorted}
	}
	rep, clu, graded, wide := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range rep {
		rep[i] = float64(1 + i%3)             // three values, each repeated
		clu[i] = 1 + 1e-13*float64(i)         // one tight cluster
		graded[i] = math.Pow(10, -float64(i)) // 1 down to 10^{1−n}
		wide[i] = float64(i) - float64(n)/2   // indefinite, with zero for even n
	}
	spectrum("repeated", rep)
	spectrum("clustered", clu)
	spectrum("graded", graded)
	spectrum("indefinite", wide)
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	spectrum("identity in disguise", ones)
	rank1 := make([]float64, n)
	rank1[n-1] = 3
	spectrum("rank one", rank1)
	for _, s := range []float64{1e-310, 1e-300, 1e300} { // 1e-310: subnormal entries
		a := randSPD(n, 0.5, rnd)
		for i := range a {
			a[i] *= s
		}
		out[fmt.Sprintf("SPD scaled by %g", s)] = c{a: a}
	}
	diag := make([]float64, n*n)
	want := make([]float64, n)
	for i := 0; i < n; i++ {
		diag[i*n+i] = float64((i*7)%n) - 2 // unsorted, with repeats of nothing
		want[i] = diag[i*n+i]
	}
	slices.Sort(want)
	out["diagonal"] = c{a: diag, want: want}
	out["zero"] = c{a: make([]float64, n*n), want: make([]float64, n)}
	// Blocks [[0, 1], [1, 0]] on the diagonal: zero diagonal, eigenvalues ±1.
	blk := make([]float64, n*n)
	var bw []float64
	for i := 0; i+1 < n; i += 2 {
		blk[i*n+i+1], blk[(i+1)*n+i] = 1, 1
		bw = append(bw, -1, 1)
	}
	if n%2 == 1 {
		bw = append(bw, 0)
	}
	slices.Sort(bw)
	out["zero-diagonal blocks"] = c{a: blk, want: bw}
	return out
}

// TestSmallEig checks the small eigensolver against lapackx.EigSym on every
// case: eigenvalues (and the exact spectrum where known) to n·ε·‖A‖, the
// residual ‖A Vᵀ − Vᵀ Λ‖ to n·ε·‖A‖, ‖V Vᵀ − I‖ to n·ε, ascending order.
func TestSmallEig(t *testing.T) {
	const eps = 0x1p-52
	for _, n := range []int{1, 2, 3, 5, 10, 16, SmallEigCutoff} {
		ref := lapackx.NewEigSym(n)
		se := NewSmallEig(n)
		for name, c := range smallEigCases(n) {
			t.Run(fmt.Sprintf("n=%d/%s", n, name), func(t *testing.T) {
				require.NoError(t, se.Factorize(c.a))
				require.NoError(t, ref.Factorize(c.a))
				lam, v := se.Values(), se.Vectors()
				var anorm float64
				for _, x := range c.a {
					anorm = math.Max(anorm, math.Abs(x))
				}
				anorm *= float64(n) // ≥ ‖A‖₂
				// With subnormal entries the absolute spacing 2^−1074 bounds
				// the accuracy instead.
				tol := 8*float64(n)*eps*anorm + 64*float64(n*n)*math.SmallestNonzeroFloat64
				require.True(t, slices.IsSorted(lam), "ascending: %v", lam)
				for i, x := range ref.Values() {
					require.InDelta(t, x, lam[i], tol, "λ_%d against dsyevd", i)
					if c.want != nil {
						require.InDelta(t, c.want[i], lam[i], tol+8*float64(n)*eps*math.Abs(c.want[i]), "λ_%d against the spectrum", i)
					}
				}
				// Residuals and orthogonality, scaled to avoid overflow.
				var res, orth float64
				for i := 0; i < n; i++ {
					for r := 0; r < n; r++ {
						var av, vv float64
						for j := 0; j < n; j++ {
							av += (c.a[r*n+j] / anorm) * v[i*n+j]
							vv += v[i*n+j] * v[r*n+j]
						}
						if anorm > 0 {
							res = math.Max(res, math.Abs(av-lam[i]/anorm*v[i*n+r]))
						}
						if i == r {
							vv--
						}
						orth = math.Max(orth, math.Abs(vv))
					}
				}
				require.Less(t, res, 8*float64(n)*eps, "‖AV − VΛ‖/‖A‖")
				require.Less(t, orth, 8*float64(n)*eps, "‖VVᵀ − I‖")
			})
		}
	}
}

// TestSmallEigBadInput: a non-finite entry is an error wrapping
// numerr.ErrNotFinite, not a NaN decomposition.
func TestSmallEigBadInput(t *testing.T) {
	se := NewSmallEig(4)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		a := randSPD(4, 0.5, rand.New(rand.NewPCG(1, 1)))
		a[1*4+2], a[2*4+1] = bad, bad
		err := se.Factorize(a)
		require.True(t, errors.Is(err, numerr.ErrNotFinite), "%v: %v", bad, err)
	}
}
