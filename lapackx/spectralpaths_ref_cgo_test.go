//go:build cgo && !purego

package lapackx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/spectral"
)

// TestSpectralPathsReference: the spectral package's batched paths against
// the mpmath references and dsyevd, as TestEigPathsReference checks
// lapackx's. Each symmetric case of the reference set (n = 2 to 140) is
// the second matrix of a batch of two (the first is diagonal); f(A) comes
// from Batch.Apply and Df(A)[E] from Batch.Frechet, with the Batch's Path
// forced: Go (SmallEig, Auto's path up to n = 20 on OpenBLAS and up to 128
// on gonum), LAPACK (lapackx.EigSym per matrix), Batched (lapackx.EigBatch
// on the chunk: Auto's path from n = 21 on OpenBLAS) and Auto, on each
// backend. Every error is within TestReference's bound 4√n·u·(κ + ρ), and
// each path meets pathStats.Check against dsyevd's errors (through
// lapackx.SymFunc) on the same quantities.
func TestSpectralPathsReference(t *testing.T) {
	cases, names := lapackx.SymRefCasesAll(t)
	funcs := map[string]lapackx.Func{"exp": lapackx.ExpFunc, "log": lapackx.LogFunc, "sqrt": lapackx.SqrtFunc, "invsqrt": lapackx.InvSqrtFunc}
	evd := make([]map[string]float64, len(cases))
	for ci, c := range cases {
		evd[ci] = make(map[string]float64)
		for _, name := range names[ci] {
			evd[ci][name] = lapackx.RefErrEVD(t, c, name)
		}
	}
	prev := blas.Current()
	defer func() { require.NoError(t, blas.Use(prev)) }()
	for _, be := range blas.Available() {
		require.NoError(t, blas.Use(be))
		for _, path := range []spectral.Path{spectral.Go, spectral.LAPACK, spectral.Batched, spectral.Auto} {
			label := fmt.Sprintf("%s/%s", be, path)
			stats := new(lapackx.RefPathStats)
			for ci, c := range cases {
				n := c.N
				a := make([]float64, 2*n*n)
				for i := 0; i < n; i++ {
					a[i*n+i] = float64(i + 1)
				}
				copy(a[n*n:], c.A)
				b := spectral.NewBatch(n, 2)
				b.Path = path
				require.NoError(t, b.Factorize(a, 2), "%s %s", label, c.ID)
				dst, fa := make([]float64, n*n), make([]float64, 2*n*n)
				for _, name := range names[ci] {
					r := c.Results[name]
					f, frechet := strings.CutPrefix(name, "frechet_")
					require.NoError(t, b.Apply(fa, funcs[f]), "%s %s", label, c.ID)
					got := fa[n*n:]
					if frechet {
						b.Frechet(dst, c.E, 1)
						got = dst
					}
					e := lapackx.RelErr(got, r.Value)
					unit := lapackx.RefUnit(n, r)
					require.LessOrEqual(t, e, 4*unit, "%s %s %s (n=%d): err %.3g", label, c.ID, name, n, e)
					stats.Add(c, name, e, evd[ci][name], unit, lapackx.RefNorm2(c))
				}
			}
			stats.Check(t, label)
		}
	}
}
