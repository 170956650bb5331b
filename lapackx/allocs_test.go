package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/internal/race"
)

// TestZeroAllocs proves that steady-state workspace calls allocate nothing,
// under both backends (the pure-Go one through blas.GoBLAS, whose Dgemm
// does not allocate). One exception belongs to gonum: its Hessenberg QR,
// behind Sylvester on the pure-Go backend, allocates scratch on every call.
func TestZeroAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	forEachBackend(t, func(t *testing.T) {
		pure := Backend() == "gonum"
		rnd := newRand(13)
		for _, n := range []int{4, 40, 120, cholInverseCutoff + 1} {
			spd := withSpectrum(rnd, logSpaced(n, 0.1, 10))
			sym := randSym(rnd, n, 0.3)
			gen := randGeneral(rnd, n, n, 0.5)
			e := randSym(rnd, n, 1)
			dst, dst2 := make([]float64, n*n), make([]float64, n*n)
			es, sf, ly, ex := NewEigSym(n), NewSymFunc(n), NewLyapSym(n), NewExpm(n)
			lu, qr, sy := NewLU(n), NewQR(n, n/2), NewSylvester(n, n/2)
			user := UserFunc(func(x float64) float64 { return x * x }, func(x float64) float64 { return 2 * x }, false)
			half := make([]float64, n*(n/2))
			ops := map[string]func(){
				"EigSym.Factorize":       func() { require.NoError(t, es.Factorize(sym)) },
				"EigSym.FactorizeGraded": func() { require.NoError(t, es.FactorizeGraded(sym)) },
				"SymFunc.Exp":            func() { require.NoError(t, sf.Exp(dst, sym)) },
				"SymFunc.Log":            func() { require.NoError(t, sf.Log(dst, spd)) },
				"SymFunc.Sqrt":           func() { require.NoError(t, sf.Sqrt(dst, spd)) },
				"SymFunc.InvSqrt":        func() { require.NoError(t, sf.InvSqrt(dst, spd)) },
				"SymFunc.Pow":            func() { require.NoError(t, sf.Pow(dst, spd, 0.37)) },
				"SymFunc.SqrtInvSqrt":    func() { require.NoError(t, sf.SqrtInvSqrt(dst, dst2, spd)) },
				"SymFunc.Apply":          func() { require.NoError(t, sf.Apply(dst, sym, user)) },
				"SymFunc.Frechet": func() {
					require.NoError(t, sf.Factorize(spd))
					require.NoError(t, sf.Frechet(dst, e, LogFunc))
				},
				"LyapSym.Solve": func() { require.NoError(t, ly.Solve(dst, spd, e)) },
				"LyapSym.SolveMany": func() {
					require.NoError(t, ly.SolveMany([][]float64{dst, dst2}, spd, [][]float64{e, sym}))
				},
				"Expm.Exp": func() { require.NoError(t, ex.Exp(dst, gen)) },
				"LU": func() {
					require.NoError(t, lu.Factorize(spd))
					copy(dst, gen)
					lu.Solve(dst, n)
				},
				"QR": func() {
					require.NoError(t, qr.Factorize(gen[:n*(n/2)]))
					qr.QTo(half)
				},
			}
			chol := append([]float64(nil), spd...)
			require.True(t, Impl{}.Dpotrf(gblas.Lower, n, chol, n))
			ops["InvLower"] = func() { InvLower(dst, chol, n) }
			ops["CholInverse"] = func() { CholInverse(dst, dst2, chol, n) }
			b := withSpectrum(rnd, logSpaced(n/2, 0.1, 10))
			ops["Sylvester.Solve"] = func() { require.NoError(t, sy.Solve(half, spd, b, gen[:n*(n/2)])) }
			for name, op := range ops {
				if pure && name == "Sylvester.Solve" {
					continue
				}
				op() // warm up
				if a := allocsPerCall(op); a != 0 {
					t.Errorf("%s n=%d: %v allocs per call", name, n, a)
				}
			}
		}
	})
}

// allocsPerCall returns the fewest allocations per call of op over three
// measurements of ten calls. testing.AllocsPerRun counts every allocation
// in the process, and on a loaded machine the runtime allocates now and
// then on its own behalf (a new thread's M when a long cgo call loses its
// P); an allocation of op's shows in every measurement.
func allocsPerCall(op func()) float64 {
	best := testing.AllocsPerRun(10, op)
	for i := 0; i < 2 && best > 0; i++ {
		best = min(best, testing.AllocsPerRun(10, op))
	}
	return best
}
