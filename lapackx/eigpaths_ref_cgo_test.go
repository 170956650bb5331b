//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// eigWith sets e's eigenvalues and eigenvectors to those of the symmetric
// a by solver, whatever order a has, so that every size path of the
// eigensolvers runs on every matrix of the reference set:
//
//   - "ql": syevql (AVX2 code where the CPU has it), upper triangle: EigSym
//     below eigQLCutoff;
//   - "ql-base": syevql without AVX2: EigSym below eigQLBaseCutoff on
//     CPUs without AVX2;
//   - "ql-lower": syevql, lower triangle: EigSym.FactorizeLower below the
//     cutoff;
//   - "evd" and "evd-lower": LAPACK's dsyevd, upper and lower triangle:
//     EigSym and EigSym.FactorizeLower from the cutoff;
//   - "gonum" and "gonum-lower": gonum's Dsyev, the pure-Go backend's eig
//     (upper and lower triangle) at every order;
//   - "batch-ql" and "batch-evd": EigBatch's two native paths (below the
//     cutoff, from it), as the second matrix of a batch of two.
func eigWith(t *testing.T, e *EigSym, a []float64, solver string) {
	t.Helper()
	n := e.n
	copy(e.v, a)
	blas.SerialBegin() // as lapackx runs dsyevd on the 2-thread table
	defer blas.SerialEnd()
	switch solver {
	case "ql", "ql-base", "ql-lower":
		require.Zero(t, lapacke.Syevql(n, e.v, e.w, make([]float64, n), solver == "ql-lower", solver == "ql-base"))
	case "evd", "evd-lower":
		// Row-major upper is column-major lower.
		uplo := map[bool]byte{false: 'L', true: 'U'}[solver == "evd-lower"]
		_, liw := nativeLapack{}.eigWork(n)
		info, fellback := lapacke.DsyevdOrQL('V', uplo, n, e.v, e.w, make([]float64, evdWork(n)+8), make([]int32, liw), make([]float64, lapacke.DsyevdScratch(n)))
		require.Zero(t, info)
		require.False(t, fellback)
	case "gonum", "gonum-lower":
		require.NoError(t, gonumLapack{}.eig(true, solver == "gonum-lower", n, e.v, e.w, e.work, e.iwork))
	case "batch-ql", "batch-evd":
		// The first matrix is diag(1, …, n), so that a mix-up of blocks
		// shows.
		buf, w := make([]float64, 2*n*n), make([]float64, 2*n)
		for i := 0; i < n; i++ {
			buf[i*n+i] = float64(i + 1)
		}
		copy(buf[n*n:], a)
		if solver == "batch-ql" {
			info, _ := lapacke.SyevqlBatch(n, 2, buf, w, make([]float64, n))
			require.Zero(t, info)
		} else {
			_, liw := nativeLapack{}.eigWork(n)
			info, _, fellback := lapacke.DsyevdBatch(n, 2, buf, w, make([]float64, evdWork(n)+8), make([]int32, liw), make([]float64, lapacke.DsyevdScratch(n)))
			require.Zero(t, info)
			require.Zero(t, fellback)
		}
		for i := 0; i < n; i++ {
			require.Equal(t, float64(i+1), w[i], "%s: first block", solver)
		}
		copy(e.v, buf[n*n:])
		copy(e.w, w[n:])
	default:
		t.Fatalf("unknown solver %q", solver)
	}
}

// symRefCasesAll is symRefCases with the cases of reference_sizes.json
// (orders 64 to 140) appended.
func symRefCasesAll(t *testing.T) (cases []refCase, names [][]string) {
	cases, names = symRefCases(t)
	for _, c := range loadReferenceSizes(t) {
		cases, names = append(cases, c), append(names, slices.Sorted(maps.Keys(c.Results)))
	}
	return cases, names
}

// pathStats gathers one eigensolver path's errors on the reference set
// against dsyevd's on the same quantities: errors in units of
// √n·u·(κ + ρ) (TestReference's unit), the exponentials of wide spectra
// in units of u·‖A‖₂, and the ratio to dsyevd's error case by case.
type pathStats struct {
	sizes            []int
	worst, evdWorst  float64 // in units of √n·u·(κ + ρ)
	worstAt          string
	wide, evdWide    float64 // exp with ‖A‖₂ ≥ 100, in units of u·‖A‖₂
	logRatio         float64 // Σ log(err/err_dsyevd)
	nRatio           int
	maxRatio         float64
	maxRatioAt       string
	maxRatioUnits    float64 // the path's error at maxRatioAt, in units
	maxRatioEvdUnits float64
}

// Add records the path's error e and dsyevd's evd on quantity name of c,
// with unit √n·u·(κ + ρ) and ‖A‖₂ = anorm.
func (p *pathStats) Add(c refCase, name string, e, evd, unit, anorm float64) {
	if !slices.Contains(p.sizes, c.N) {
		p.sizes = append(p.sizes, c.N)
	}
	where := fmt.Sprintf("%s %s (n=%d)", c.ID, name, c.N)
	if e/unit > p.worst {
		p.worst, p.worstAt = e/unit, where
	}
	p.evdWorst = math.Max(p.evdWorst, evd/unit)
	if name == "exp" && anorm >= 100 {
		p.wide = math.Max(p.wide, e/(u*anorm))
		p.evdWide = math.Max(p.evdWide, evd/(u*anorm))
	}
	if e > 0 && evd > 0 {
		r := e / evd
		p.logRatio += math.Log(r)
		p.nRatio++
		if r > p.maxRatio {
			p.maxRatio, p.maxRatioAt, p.maxRatioUnits, p.maxRatioEvdUnits = r, where, e/unit, evd/unit
		}
	}
}

func (p *pathStats) geoMean() float64 { return math.Exp(p.logRatio / float64(p.nRatio)) }

// Check applies the accuracy criterion of issue 20 (§2), "errors within
// 2× of dsyevd's on the mpmath set", as the reference tests state it:
// over the set, the path's worst error in units of √n·u·(κ + ρ) is at
// most twice dsyevd's worst, and so is its worst error on the
// exponentials of wide spectra in units of u·‖A‖₂; the geometric mean of
// its error over dsyevd's, case by case, is at most 2. (A per-case ratio
// is no criterion: where dsyevd happens to round λ_max exactly, its error
// is a hundredth of the unit and any other solver's is many times it, as
// on sym-large-300.) Every error is also within TestReference's bound of
// 4 units, checked by the caller.
func (p *pathStats) Check(t *testing.T, path string) {
	t.Helper()
	t.Logf("%-10s n=%v: worst %.2f units (%s; dsyevd %.2f), wide-spectrum exp %.2f u‖A‖ (dsyevd %.2f), err/err_dsyevd geometric mean %.2f, largest %.1f (%s: %.3f against %.3f units)",
		path, p.sizes, p.worst, p.worstAt, p.evdWorst, p.wide, p.evdWide, p.geoMean(), p.maxRatio, p.maxRatioAt, p.maxRatioUnits, p.maxRatioEvdUnits)
	require.LessOrEqual(t, p.worst, 2*p.evdWorst, "%s: worst error in units, at %s", path, p.worstAt)
	require.LessOrEqual(t, p.wide, 2*p.evdWide, "%s: exp of wide spectra", path)
	require.LessOrEqual(t, p.geoMean(), 2.0, "%s: geometric mean of err/err_dsyevd", path)
}

// refUnit is TestReference's unit √n·u·(κ + ρ) for quantity r of an n×n case.
func refUnit(n int, r refResult) float64 { return math.Sqrt(float64(n)) * u * (r.Cond + r.Recon) }

// refNorm2 is ‖A‖₂ of the symmetric case c, from its reference eigenvalues.
func refNorm2(c refCase) float64 { return math.Max(math.Abs(c.Eig[0]), math.Abs(c.Eig[c.N-1])) }

// TestEigPathsReference: the spectral functions and Fréchet derivatives of
// every symmetric matrix of the mpmath reference set (the 47-matrix set's
// 26 symmetric ones, n = 2 to 40, and reference_sizes.json's, n = 64 to
// 140), computed from the eigendecomposition of each of lapackx's size
// paths forced at every order (eigWith), meet pathStats.Check against
// dsyevd and TestReference's bound 4√n·u·(κ + ρ) case by case. The
// dispatch (EigSym and EigBatch) picks one of these paths by order, and
// the gonum one on the pure-Go backend; TestEigDispatch checks that each
// picks the one named here.
func TestEigPathsReference(t *testing.T) {
	cases, names := symRefCasesAll(t)
	solvers := []string{"ql", "ql-base", "ql-lower", "evd-lower", "gonum", "gonum-lower", "batch-ql", "batch-evd"}
	stats := make(map[string]*pathStats)
	for _, s := range append(solvers, "evd") {
		stats[s] = new(pathStats)
	}
	for ci, c := range cases {
		anorm := refNorm2(c)
		for _, name := range names[ci] {
			r := c.Results[name]
			unit := refUnit(c.N, r)
			evd := relErr(refEvalWith(t, c, name, "evd"), r.Value)
			stats["evd"].Add(c, name, evd, evd, unit, anorm)
			for _, s := range solvers {
				e := relErr(refEvalWith(t, c, name, s), r.Value)
				require.LessOrEqual(t, e, 4*unit, "%s %s %s (n=%d): err %.3g", s, c.ID, name, c.N, e)
				stats[s].Add(c, name, e, evd, unit, anorm)
			}
		}
	}
	for _, s := range append(solvers, "evd") {
		stats[s].Check(t, s)
	}
}

// TestEigValuesReference: the eigenvalues-only path (EigSym.FactorizeValues:
// dsyevd without vectors, that is dsterf, on the native backend, gonum's
// Dsyev on the pure-Go one) and each path with vectors give every
// eigenvalue of the reference set within 6√n·u·‖A‖₂ of the 60-digit one
// (the backward error of a stable solver, which Weyl's inequality turns
// into the eigenvalues' absolute error; measured: dsyevd 3.0, gonum's
// Dsyev without vectors 4.6 on sym-rand-40, the largest under any
// OpenBLAS kernel set). It is no ratio to dsyevd's: that worst case is a
// single eigenvalue of a small matrix, where dsyevd's error moves from 2.2
// to 3.0 units with the kernels.
func TestEigValuesReference(t *testing.T) {
	cases, _ := symRefCasesAll(t)
	worst, at := make(map[string]float64), make(map[string]string)
	solvers := []string{"evd", "ql", "ql-base", "ql-lower", "evd-lower", "gonum", "gonum-lower", "batch-ql", "batch-evd"}
	for _, c := range cases {
		n := c.N
		unit := math.Sqrt(float64(n)) * u * refNorm2(c)
		errOf := func(w []float64) float64 {
			var m float64
			for i, x := range w {
				m = math.Max(m, math.Abs(x-c.Eig[i]))
			}
			return m / unit
		}
		e := NewEigSym(n)
		forEachBackend(t, func(t *testing.T) {
			require.NoError(t, e.FactorizeValues(c.A))
			path := "values-" + Backend()
			if x := errOf(e.Values()); x > worst[path] {
				worst[path], at[path] = x, fmt.Sprintf("%s (n=%d)", c.ID, n)
			}
		})
		for _, s := range solvers {
			eigWith(t, e, c.A, s)
			if x := errOf(e.w); x > worst[s] {
				worst[s], at[s] = x, fmt.Sprintf("%s (n=%d)", c.ID, n)
			}
		}
	}
	paths := make([]string, 0, len(worst))
	for path := range worst {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		w := worst[path]
		t.Logf("%-16s worst eigenvalue error %.3f √n·u·‖A‖₂ %s (dsyevd %.3f)", path, w, at[path], worst["evd"])
		require.LessOrEqual(t, w, 6.0, path)
	}
}

// TestEigDispatch: EigSym, EigSym.FactorizeLower and EigBatch run the path
// TestEigPathsReference names for their order: bit for bit the same
// eigenvalues as that path, at orders on both sides of the cutoff.
func TestEigDispatch(t *testing.T) {
	cut := eigQLCutoff()
	for _, n := range []int{1, 2, 3, 20, 21, cut - 1, cut} {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				x := math.Sin(float64(7*i+3*j+1)) + float64(i+j)/float64(n)
				a[i*n+j], a[j*n+i] = x, x
			}
		}
		// Without AVX2, "ql" runs the base code itself.
		single, batch, lower := "evd", "batch-evd", "evd-lower"
		if n < cut {
			single, batch, lower = "ql", "batch-ql", "ql-lower"
		}
		ref := NewEigSym(n)
		forEachBackend(t, func(t *testing.T) {
			e := NewEigSym(n)
			want := func(path, gonumPath string) []float64 {
				if Backend() == "gonum" {
					path = gonumPath
				}
				eigWith(t, ref, a, path)
				return ref.w
			}
			require.NoError(t, e.Factorize(a))
			require.Equal(t, want(single, "gonum"), e.Values(), "n=%d Factorize", n)
			require.NoError(t, e.FactorizeLower(a))
			require.Equal(t, want(lower, "gonum-lower"), e.Values(), "n=%d FactorizeLower", n)
			lw, liw := EigBatchWork(n)
			v, w := append([]float64(nil), a...), make([]float64, n)
			_, err := EigBatch(n, 1, v, w, make([]float64, lw), make([]int32, liw))
			require.NoError(t, err)
			require.Equal(t, want(batch, "gonum-lower"), w, "n=%d EigBatch", n)
		})
	}
}
