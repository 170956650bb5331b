package lapackx

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/internal/stagetime"
	"github.com/rhgd/rhgd/numerr"
)

// LyapSym solves the Lyapunov equation A X + X A = C for symmetric n×n A
// and C through the eigendecomposition A = Vᵀ diag(λ) V:
//
//	X = Vᵀ ((V C Vᵀ) ⊘ (λ_i + λ_j)) V,
//
// as Manopt's lyapunov_symmetric does, with the two congruences at 3n³
// flops each (two general products each below congruenceGemmCutoff,
// where GEMM is faster). X is symmetric. For SPD A (the Riemannian SPD Hessians) the
// equation is always solvable; in general it needs λ_i + λ_j ≠ 0.
//
// X's largest terms are those of the smallest eigenvalues, and a
// backward-stable eigensolver (dsyevd, rhgd's QL solver, numpy's eigh)
// leaves those with relative errors of order κ·u, κ = λ_max/λ_min: on
// SPD A with κ ≥ 10², X came out 2–4× less accurate (root mean square
// over many matrices) than from scipy's Schur-based
// solve_continuous_lyapunov, whatever the eigensolver. So for SPD A with
// κ ≥ lyapRefineFrom, Factorize refines the pairs with
// λ_i ≤ lyapRefineFactor·λ_min by one first-order step with residuals
// computed as in twice the working precision (refineSmallEig), which
// leaves X several times more accurate than scipy's on the conditioning
// sweep (TestReferenceSweep), at m·n² compensated multiply-adds for the m
// pairs refined.
//
// Factorize once per A and SolveFactorized for each C, or Solve for both.
// Steady-state calls allocate nothing. Not safe for concurrent use.
type LyapSym struct {
	eig  *EigSym
	m, p []float64
}

// NewLyapSym returns a workspace for n×n equations.
func NewLyapSym(n int) *LyapSym {
	return &LyapSym{eig: NewEigSym(n), m: make([]float64, n*n), p: make([]float64, n*n)}
}

// N returns the order of the equations the workspace takes.
func (l *LyapSym) N() int { return l.eig.n }

// Factorize computes and keeps the eigendecomposition of A. It returns an
// error wrapping numerr.ErrSingular when some λ_i + λ_j is zero to working
// precision (|λ_i + λ_j| ≤ n·ε·max|λ|), besides those of EigSym.Factorize.
func (l *LyapSym) Factorize(a []float64) error {
	if err := l.eig.Factorize(a); err != nil {
		return err
	}
	lam := l.eig.w
	n := len(lam)
	if n == 0 {
		return nil
	}
	// The pair sum nearest zero, by two pointers over the sorted λ.
	lmax := math.Max(math.Abs(lam[0]), math.Abs(lam[n-1]))
	best := math.Inf(1)
	for i, j := 0, n-1; i <= j; {
		s := lam[i] + lam[j]
		best = math.Min(best, math.Abs(s))
		if s < 0 {
			i++
		} else {
			j--
		}
	}
	if best <= float64(n)*eps*lmax {
		l.eig.ok, l.eig.vecs = false, false
		return fmt.Errorf("lapackx: %w: Lyapunov operator has eigenvalue λ_i + λ_j = %.3g (max |λ| = %.3g)", numerr.ErrSingular, best, lmax)
	}
	stagetime.Mark(stageLyapEig)
	if m := lyapRefineCount(lam); m > 0 {
		refineSmallEig(a, lam, l.eig.v, n, m, l.m, l.p)
		stagetime.Mark(stageLyapRefine)
	}
	return nil
}

// lyapRefineFactor, lyapRefineFrom and lyapRefineMax: see lyapRefineCount
// and LyapSym.
var (
	lyapRefineFactor = 4.0
	lyapRefineFrom   = 64.0
	lyapRefineMax    = 8
)

// lyapRefineCount is the number of smallest eigenpairs LyapSym refines:
// for SPD A with κ = λ_max/λ_min ≥ lyapRefineFrom, those with
// λ_i ≤ lyapRefineFactor·λ_min, at most lyapRefineMax of them, so that
// the refinement's m·n² compensated multiply-adds stay a few percent of
// the solve at every order.
func lyapRefineCount(lam []float64) int { return smallEigCount(lam, lyapRefineFactor) }

// smallEigCount is lyapRefineCount with the pairs λ_i ≤ within·λ_min.
func smallEigCount(lam []float64, within float64) int {
	n := len(lam)
	if n < 2 || !(lam[0] > 0) || lam[n-1] < lyapRefineFrom*lam[0] {
		return 0
	}
	m := 0
	for m < min(n, lyapRefineMax) && lam[m] <= within*lam[0] {
		m++
	}
	return m
}

// Solve factorizes a and sets dst to the solution X of A X + X A = C.
// dst may be c or a.
func (l *LyapSym) Solve(dst, a, c []float64) error {
	if err := l.Factorize(a); err != nil {
		return err
	}
	return l.SolveFactorized(dst, c)
}

// SolveMany factorizes a once and sets each dst[i] to the solution X_i of
// A X_i + X_i A = c[i]: one eigendecomposition for all the right-hand
// sides, half to two thirds of a single solve's time: over k Solve
// calls, 2.1× at k = 4 and 2.8–3.0× at k = 16 for n = 200
// (BenchmarkLyapSolveMany).
// dst and c have the same length; dst[i] may be c[i], but no dst[i]
// may share memory with another c[j]. An error about a right-hand side
// names it as c[i]; the dst of those before it hold their solutions.
//
// The right-hand sides are solved one after another: stacking them into
// one larger GEMM would trade the triangular product and rank-2k update
// (3n³ flops per congruence) for general products (4n³), while from
// n = 200 those kernels already run at about GEMM's rate per flop (the
// two congruences take 3.2–3.6 GEMMs, BenchmarkLyapStages).
func (l *LyapSym) SolveMany(dst [][]float64, a []float64, c [][]float64) error {
	if len(dst) != len(c) {
		panic(errShape)
	}
	if err := l.Factorize(a); err != nil {
		return err
	}
	for i := range c {
		if err := l.SolveFactorized(dst[i], c[i]); err != nil {
			return fmt.Errorf("%w (c[%d])", err, i)
		}
	}
	return nil
}

// SolveFactorized sets dst to the solution X of A X + X A = C for the
// factorized A. c must be symmetric and finite; dst may be c. It returns
// an error wrapping numerr.ErrOverflow when X does not fit in float64.
func (l *LyapSym) SolveFactorized(dst, c []float64) error {
	n := l.N()
	if len(dst) != n*n {
		panic(errShape)
	}
	if err := checkSym("LyapSym", l.m, c, n); err != nil {
		return err
	}
	stagetime.Mark(stageLyapCheck)
	v, lam := l.eig.Vectors(), l.eig.Values()
	// Below congruenceGemmCutoff two general products beat the triangular
	// and rank-2k kernels, as in Congruence.
	small := n < congruenceGemmCutoff
	if small {
		congruenceGemm(l.m, v, l.m, l.p, n, false)
	} else {
		congruenceVMVt(l.m, v, l.m, l.p, n)
	}
	stagetime.Mark(stageLyapCongruence)
	var ymax float64
	for i := 0; i < n; i++ {
		row := l.m[i*n : (i+1)*n]
		for j := i; j < n; j++ {
			if d := lam[i] + lam[j]; !math.IsInf(d, 0) {
				row[j] /= d
			} else {
				// λ_i + λ_j beyond the float64 range: halved, so that a
				// representable X does not come out as zero.
				row[j] = row[j] / 2 / (lam[i]/2 + lam[j]/2)
			}
			if y := math.Abs(row[j]); !(y <= ymax) { // NaN sticks
				ymax = y
			}
		}
	}
	stagetime.Mark(stageLyapHadamard)
	if small {
		congruenceGemm(dst, v, l.m, l.p, n, true)
	} else {
		congruenceVtMV(dst, v, l.m, l.p, n)
		mirrorUpper(dst, n)
	}
	stagetime.Mark(stageLyapCongruence)
	// X = Vᵀ Y V with V orthogonal: every entry of X, and every partial
	// sum of the products that form it, is at most 2‖Y‖_F ≤ 2n·max|Y|
	// (Cauchy–Schwarz against V's unit columns). Below lyapFiniteBound
	// nothing can overflow, and the scan of X is skipped (0.04 ms of a
	// 3.7 ms solve at n = 200, 1 ms of 270 ms at n = 1000).
	if !(ymax*float64(n) <= lyapFiniteBound) {
		for _, x := range dst {
			if math.IsInf(x, 0) || math.IsNaN(x) {
				// The fuzz target found X = +Inf with a nil error (A = 1.4e−76,
				// C = 8e270).
				return fmt.Errorf("lapackx: %w: Lyapunov solution exceeds the float64 range", numerr.ErrOverflow)
			}
		}
	}
	stagetime.Mark(stageLyapCheck)
	return nil
}

// lyapFiniteBound bounds n·max|Y| below which X = Vᵀ Y V surely fits in
// float64: 2^1000 leaves a factor 2^23 for the factor 2 of the bound and
// for V's rounding away from orthogonality.
const lyapFiniteBound = 0x1p1000

// LyapSym's stages as the benchmark report's stage profile names them
// (internal/stagetime).
const (
	stageLyapEig        = "eigendecomposition"
	stageLyapRefine     = "eigenpair refinement"
	stageLyapCheck      = "checks"
	stageLyapCongruence = "congruences"
	stageLyapHadamard   = "Hadamard scaling"
)

const eps = 0x1p-52
