package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
)

// TestBackendsAgree runs each kernel under the native and pure-Go backends
// in one binary and requires the results to agree to about 1e-13 relative
// (well-conditioned inputs; eigen- and singular vectors compared through
// sign-free quantities).
func TestBackendsAgree(t *testing.T) {
	if len(blas.Available()) < 2 {
		t.Skip("pure-Go build: one backend")
	}
	prev := blas.Current()
	defer func() { require.NoError(t, blas.Use(prev)) }()
	both := func(f func() []float64) (native, gonum []float64) {
		require.NoError(t, blas.Use(blas.Native))
		native = f()
		require.NoError(t, blas.Use(blas.Gonum))
		gonum = f()
		return native, gonum
	}
	rnd := newRand(12)
	const tol = 1e-13
	n := 60
	spd := withSpectrum(rnd, logSpaced(n, 0.1, 10))
	sym := randSym(rnd, n, 0.2)
	gen := randGeneral(rnd, n, n, 0.2)
	e := randSym(rnd, n, 1)
	sq := func() []float64 { return make([]float64, n*n) }

	cases := map[string]func() []float64{
		"eigenvalues": func() []float64 {
			es := NewEigSym(n)
			require.NoError(t, es.Factorize(sym))
			return append([]float64(nil), es.Values()...)
		},
		"exp":  func() []float64 { d := sq(); require.NoError(t, NewSymFunc(n).Exp(d, sym)); return d },
		"log":  func() []float64 { d := sq(); require.NoError(t, NewSymFunc(n).Log(d, spd)); return d },
		"sqrt": func() []float64 { d := sq(); require.NoError(t, NewSymFunc(n).Sqrt(d, spd)); return d },
		"frechet-log": func() []float64 {
			s, d := NewSymFunc(n), sq()
			require.NoError(t, s.Factorize(spd))
			require.NoError(t, s.Frechet(d, e, LogFunc))
			return d
		},
		"lyapunov": func() []float64 { d := sq(); require.NoError(t, NewLyapSym(n).Solve(d, spd, e)); return d },
		"expm":     func() []float64 { d := sq(); require.NoError(t, NewExpm(n).Exp(d, gen)); return d },
		"sylvester": func() []float64 {
			d := sq()
			require.NoError(t, NewSylvester(n, n).Solve(d, spd, spd, gen))
			return d
		},
		"lu-solve": func() []float64 {
			lu := NewLU(n)
			require.NoError(t, lu.Factorize(spd))
			b := append([]float64(nil), gen...)
			lu.Solve(b, n)
			return b
		},
		"qr-q": func() []float64 {
			qr := NewQR(n, n/2)
			require.NoError(t, qr.Factorize(gen[:n*n/2]))
			q := make([]float64, n*n/2)
			qr.QTo(q)
			return q
		},
	}
	for name, f := range cases {
		a, b := both(f)
		d := relErr(a, b)
		t.Logf("%-12s %.2e", name, d)
		require.Less(t, d, tol, name)
	}
}
