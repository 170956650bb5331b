package lapackx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
)

func withNaN(a []float64, i int) []float64 {
	b := append([]float64(nil), a...)
	b[i] = math.NaN()
	return b
}

func withInf(a []float64, i int) []float64 {
	b := append([]float64(nil), a...)
	b[i] = math.Inf(1)
	return b
}

// TestBadInput checks that every workspace turns bad data into an error
// wrapping the right sentinel, under each backend, and never hands back
// NaN.
func TestBadInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(14)
		n := 5
		spd := withSpectrum(rnd, logSpaced(n, 1, 2))
		gen := randGeneral(rnd, n, n, 1)
		dst := make([]float64, n*n)

		// LU: non-finite, singular.
		lu := NewLU(n)
		require.ErrorIs(t, lu.Factorize(withNaN(spd, 7)), numerr.ErrNotFinite)
		require.Panics(t, func() { lu.Solve(dst, n) }, "no factorization after an error")
		ex := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				ex[i*n+j] = float64(i + j) // rank 2
			}
		}
		require.ErrorIs(t, lu.Factorize(ex), numerr.ErrSingular)

		// Expm: non-finite, overflow.
		em := NewExpm(n)
		require.ErrorIs(t, em.Exp(dst, withInf(gen, 3)), numerr.ErrNotFinite)
		big := append([]float64(nil), gen...)
		for i := 0; i < n; i++ {
			big[i*n+i] += 1000
		}
		require.ErrorIs(t, em.Exp(dst, big), numerr.ErrOverflow)
		require.ErrorIs(t, NewExpm(2).Exp(make([]float64, 4), []float64{800, 1, 0, 1}), numerr.ErrOverflow)
		require.ErrorIs(t, NewExpm(1).Exp(make([]float64, 1), []float64{710}), numerr.ErrOverflow)

		// Lyapunov: non-symmetric or non-finite C, non-symmetric A.
		ly := NewLyapSym(n)
		asym := append([]float64(nil), spd...)
		asym[1] += 0.1
		require.ErrorIs(t, ly.Solve(dst, spd, asym), numerr.ErrNotSymmetric)
		require.ErrorIs(t, ly.Solve(dst, asym, spd), numerr.ErrNotSymmetric)
		require.ErrorIs(t, ly.Solve(dst, spd, withNaN(spd, 0)), numerr.ErrNotFinite)

		// Sylvester: non-finite in each argument.
		sy := NewSylvester(n, n)
		require.ErrorIs(t, sy.Solve(dst, withNaN(gen, 1), spd, gen), numerr.ErrNotFinite)
		require.ErrorIs(t, sy.Solve(dst, gen, withNaN(spd, 1), gen), numerr.ErrNotFinite)
		require.ErrorIs(t, sy.Solve(dst, gen, spd, withInf(gen, 1)), numerr.ErrNotFinite)

		// Fréchet: bad direction.
		sf := NewSymFunc(n)
		require.NoError(t, sf.Factorize(spd))
		require.ErrorIs(t, sf.Frechet(dst, withNaN(spd, 2), ExpFunc), numerr.ErrNotFinite)
		require.ErrorIs(t, sf.Frechet(dst, asym, ExpFunc), numerr.ErrNotSymmetric)

		// QR, EigSym: non-finite.
		require.ErrorIs(t, NewQR(n, 2).Factorize(withNaN(gen[:2*n], 0)), numerr.ErrNotFinite)
		require.ErrorIs(t, NewEigSym(n).Factorize(withNaN(spd, 4)), numerr.ErrNotFinite)
		require.ErrorIs(t, NewEigSym(n).Factorize(asym), numerr.ErrNotSymmetric)

		// Shape misuse panics, as in gonum.
		require.Panics(t, func() { _ = sf.Exp(make([]float64, 3), spd) })
		require.Panics(t, func() { _ = NewEigSym(n).Factorize(spd[:4]) })
		require.Panics(t, func() { NewQR(2, 3) })
		require.Panics(t, func() { NewEigSym(-1) })
	})
}

// TestImplPanics checks that the native routes validate before any C call,
// with gonum's messages.
func TestImplPanics(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		impl := Impl{}
		a := make([]float64, 9)
		require.PanicsWithValue(t, "lapack: bad leading dimension of A", func() { impl.Dpotrf('U', 3, a, 2) })
		require.PanicsWithValue(t, "lapack: insufficient length of a", func() { impl.Dpotrf('U', 3, a[:8], 3) })
		require.Panics(t, func() { impl.Dgeqrf(3, 3, a, 3, make([]float64, 2), make([]float64, 3), 3) })
		require.Panics(t, func() { impl.Dorgqr(2, 3, 2, a, 3, make([]float64, 2), make([]float64, 3), 3) })
	})
}

// TestErrorClasses: an error names what went wrong. A finite matrix whose
// powers overflow is ErrOverflow (it was ErrNotFinite, from a NaN deep in
// the Padé denominator), and a subnormal pivot is ErrSingular (its solve
// was Inf with no error).
func TestErrorClasses(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		e := NewExpm(3)
		dst := make([]float64, 9)
		for _, a := range [][]float64{
			{0, 1e200, 0, 0, 0, 1e200, 0, 0, 0},
			{0, 1e308, 1e308, 0, 0, 1e308, 0, 0, 0},
			{1, 1e200, 3, -2, 0, 1e200, 5, 0, 1},
		} {
			err := e.Exp(dst, a)
			require.ErrorIs(t, err, numerr.ErrOverflow, "%v", a)
			require.NotErrorIs(t, err, numerr.ErrNotFinite)
		}
		lu := NewLU(3)
		for _, a := range [][]float64{
			{1e-310, 0, 0, 0, 1, 0, 0, 0, 1},
			{2, 1, 0, 4, 2, 0, 0, 0, 1e-320},
		} {
			require.ErrorIs(t, lu.Factorize(a), numerr.ErrSingular, "%v", a)
		}
		// The smallest normal pivot still solves, finitely.
		require.NoError(t, lu.Factorize([]float64{0x1p-1022, 0, 0, 0, 1, 0, 0, 0, 1}))
		b := []float64{0x1p-1022, 1, 1}
		lu.Solve(b, 1)
		require.Equal(t, []float64{1, 1, 1}, b)
	})
}
