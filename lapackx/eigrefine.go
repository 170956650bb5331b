package lapackx

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
	"github.com/rhgd/rhgd/numerr"
)

// RefinedEigSym computes the same eigendecomposition as EigSym, A =
// Vᵀ diag(λ) V with λ ascending and the eigenvectors in the rows of V, by
// LAPACK's float32 ssyevd refined to float64 accuracy with Ogita and
// Aishima's iterative refinement (T. Ogita, K. Aishima, "Iterative
// refinement for symmetric eigenvalue decomposition", Japan J. Indust.
// Appl. Math. 35, 2018, Algorithm 1). With X = Vᵀ, each step forms
//
//	R = I − XᵀX,  S = XᵀAX,  λ̃_i = s_ii / (1 − r_ii),
//	δ = 2(‖S − diag(λ̃)‖_F + ‖A‖‖R‖_F),
//	e_ij = (s_ij + λ̃_j r_ij) / (λ̃_j − λ̃_i) where |λ̃_i − λ̃_j| > δ, else r_ij/2,
//	X ← X + XE
//
// in float64 (a rank-k update and two products for R and S, one for the
// update: 7n³ flops), with Frobenius norms for the paper's 2-norms (a
// larger δ: more pairs taken for clusters, never fewer), ‖A‖ = max|λ̃_i|,
// A shifted by its mean eigenvalue first, and S's two triangles averaged
// (see refine). It converges quadratically where the eigenvalues
// are separated by more than δ; a cluster closer than δ gets only the
// orthogonalizing r_ij/2 until δ, which shrinks with the error, drops
// below its gaps.
//
// A step is the last when its correction leaves a second-order remainder
// below float64's level: ‖E‖_F²·max(1, ‖A‖/g) ≤ n·u (u = 2⁻⁵³, g the
// smallest gap |λ̃_i − λ̃_j| > δ), so that what is left is the rounding of
// the float64 products, the level of dsyevd's own backward error; and
// every pair treated as a cluster must lie within δ ≤ n·u·‖A‖, where
// leaving its rotation alone moves the residual by no more than
// dsyevd's rounding does. Where that does not happen within
// refineMaxSteps steps, or a step from the third on shrinks ‖E‖ by less
// than 4× (clusters the algorithm does not resolve), or ssyevd fails, or a value is not finite, or ‖A‖
// is outside float32's comfortable range, the workspace solves A with
// EigSym (dsyevd) instead: never a less accurate answer. FellBack says
// which ran.
//
// From float32's starting error (about 1e-7·‖A‖/gap) two to four steps
// reach float64 accuracy: 14–28n³ flops of float64 GEMM on top of
// ssyevd, against dsyevd's 4/3n³ of half-BLAS-2 tridiagonal reduction,
// divide and conquer and 2n³ of back-transformation. On the shared 2-core
// EPYC that is a loss: 2.2–4.4× dsyevd's one-thread time at n = 500,
// 1000 and 2000 (BenchmarkRefinedEigSym, 2026-11-27; at n = 1000 on
// the HINV-like spectrum, quiet: ssyevd 79 ms, 3 steps of 3.5 GEMMs of
// 20 ms, 326 ms in all, against dsyevd's 150 on one thread and 98 on
// two). It can win only where GEMM runs on several times more cores
// than dsyevd; nothing in rhgd uses it but a benchmark. In a pure-Go
// build, on the Gonum backend and below refineMinN it is EigSym.
//
// A RefinedEigSym owns its workspace (about 9n² float64s with its
// EigSym's, and 3n² float32s): Factorize allocates nothing. It is not safe for concurrent
// use.
type RefinedEigSym struct {
	n        int
	base     *EigSym   // the fallback, and the solver in pure-Go builds
	a        []float64 // A, both triangles; shifted while refining
	diag     []float64 // A's diagonal, unshifted
	w        []float64 // eigenvalues, ascending
	v        []float64 // n×n, row i is the eigenvector of w[i]
	r, s, t  []float64 // n×n scratch: R, S, then E's transpose; V A and a copy of V
	a32, w32 []float32 // ssyevd's matrix and eigenvalues
	work32   []float32
	iwork    []int32
	steps    int  // refinement steps of the last Factorize
	fell     bool // the last Factorize fell back to EigSym
	direct   bool // the last Factorize called EigSym without refining
	ok       bool
}

// refineMaxSteps bounds the refinement: from float32's error two or
// three steps suffice for separated eigenvalues, and the synthetic
// problem's HINV matrix, with relative gaps down to 1e-5, takes four; a
// variable so that tests can make the refinement fail.
var refineMaxSteps = 5

// refineMinN is the order below which RefinedEigSym calls EigSym
// directly: there dsyevd (or syevql) costs less than one refinement step.
const refineMinN = 64

// NewRefinedEigSym returns a workspace for n×n matrices.
func NewRefinedEigSym(n int) *RefinedEigSym { return newRefined(n, refineMinN) }

// newRefined is NewRefinedEigSym with the order from which ssyevd runs.
func newRefined(n, minN int) *RefinedEigSym {
	if n < 0 {
		panic(errNegative)
	}
	e := &RefinedEigSym{n: n, base: NewEigSym(n)}
	if n < minN || !lapacke.Available {
		return e
	}
	f64 := func() []float64 { return make([]float64, n*n) }
	e.a, e.w, e.v, e.r, e.s, e.t = f64(), make([]float64, n), f64(), f64(), f64(), f64()
	e.diag = make([]float64, n)
	e.a32, e.w32 = make([]float32, n*n), make([]float32, n)
	e.work32 = make([]float32, evdWork(n))
	e.iwork = make([]int32, 3+5*n)
	return e
}

// N returns the order of the matrices the workspace takes.
func (e *RefinedEigSym) N() int { return e.n }

// Factorize computes the eigendecomposition of the n×n row-major
// symmetric a, which it does not modify, reading its upper triangle as
// EigSym.Factorize does. Its errors are EigSym.Factorize's.
func (e *RefinedEigSym) Factorize(a []float64) error {
	e.ok, e.direct, e.steps, e.fell = false, false, 0, false
	if !e.refinable() {
		e.direct = true
		return e.base.Factorize(a)
	}
	if err := checkSym("RefinedEigSym", e.a, a, e.n); err != nil {
		return err
	}
	n := e.n
	for i := 0; i < n; i++ { // the upper triangle, mirrored
		for j := 0; j < i; j++ {
			e.a[i*n+j] = e.a[j*n+i]
		}
	}
	return e.solve(false)
}

// FactorizeLower computes the eigendecomposition of the symmetric matrix
// whose lower triangle a holds, as EigSym.FactorizeLower does.
func (e *RefinedEigSym) FactorizeLower(a []float64) error {
	n := e.n
	if len(a) != n*n {
		panic(errShape)
	}
	e.ok, e.direct, e.steps, e.fell = false, false, 0, false
	if !e.refinable() {
		e.direct = true
		return e.base.FactorizeLower(a)
	}
	for i := 0; i < n; i++ {
		for j, x := range a[i*n : i*n+i+1] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("lapackx: %w: RefinedEigSym: a[%d,%d] = %v", numerr.ErrNotFinite, i, j, x)
			}
			e.a[i*n+j], e.a[j*n+i] = x, x
		}
	}
	return e.solve(true)
}

// refinable reports whether Factorize runs the refinement: on the native
// backend from refineMinN.
func (e *RefinedEigSym) refinable() bool {
	return e.a != nil && lp().name() == (nativeLapack{}).name()
}

// solve factors e.a, both of whose triangles hold A, and where it falls
// back calls EigSym's Factorize (FactorizeLower if lower is set), which
// reads the triangle the caller gave: the result is then EigSym's.
func (e *RefinedEigSym) solve(lower bool) error {
	if e.refine() {
		e.ok = true
		return nil
	}
	return e.fallback(lower)
}

// fallback solves A with EigSym, restoring e.a's diagonal first.
func (e *RefinedEigSym) fallback(lower bool) error {
	e.fell = true
	for i, x := range e.diag { // A's own diagonal, unshifted
		e.a[i*e.n+i] = x
	}
	var err error
	if lower {
		err = e.base.FactorizeLower(e.a)
	} else {
		err = e.base.Factorize(e.a)
	}
	if err != nil {
		return err
	}
	copy(e.w, e.base.Values())
	copy(e.v, e.base.Vectors())
	e.ok = true
	return nil
}

// refine runs ssyevd and the refinement steps into e.w and e.v and
// reports whether they met the acceptance test (see RefinedEigSym).
func (e *RefinedEigSym) refine() bool {
	sigma, ok := e.start()
	if !ok {
		return false
	}
	return e.iterate(sigma)
}

// start shifts e.a by σ = tr(A)/n (keeping A's diagonal in e.diag) and
// sets e.w and e.v to ssyevd's eigendecomposition of A − σI; it returns
// σ and whether ssyevd ran and succeeded.
func (e *RefinedEigSym) start() (sigma float64, ok bool) {
	n := e.n
	for i := range e.diag { // for the fallback, which solves A itself
		e.diag[i] = e.a[i*n+i]
	}
	amax := maxAbsCopy(nil, e.a)
	// float32 keeps 2⁻¹²⁶..2¹²⁸; products of entries must stay inside.
	if amax == 0 || amax < 0x1p-60 || amax > 0x1p60 {
		return 0, false
	}
	// A − σI with σ = tr(A)/n, the mean eigenvalue: its eigenvectors
	// are A's, and float32's error in them, u·‖A − σI‖/gap, and float64's
	// in S shrink with ‖A − σI‖ (by 5× on the synthetic problem's HINV
	// matrix, whose spectrum is [0.0093, 0.0149]).
	for _, x := range e.diag {
		sigma += x
	}
	sigma /= float64(n)
	for i := 0; i < n; i++ {
		e.a[i*n+i] -= sigma
	}
	for i, x := range e.a {
		e.a32[i] = float32(x)
	}
	// One thread: at n = 1000 ssyevd took 119 ms on one thread and 141 on
	// two (2-core EPYC, loaded, 2026-11-27).
	blas.SerialBegin()
	info := lapacke.Ssyevd('V', 'L', n, e.a32, n, e.w32, e.work32, e.iwork)
	blas.SerialEnd()
	if info != 0 {
		return 0, false
	}
	// The column-major eigenvectors are the rows of the row-major v.
	for i, x := range e.a32 {
		e.v[i] = float64(x)
	}
	for i, x := range e.w32 {
		e.w[i] = float64(x)
	}
	return sigma, true
}

// iterate refines e.w and e.v, the eigendecomposition of e.a = A − σI, and
// reports whether the acceptance test was met; then e.w is A's.
func (e *RefinedEigSym) iterate(sigma float64) bool {
	n := e.n
	impl := blas.Impl()
	unit := 0x1p-53 * float64(n)
	r, s, t, v, w := e.r, e.s, e.t, e.v, e.w
	prevE := math.Inf(1)
	for e.steps = 1; e.steps <= refineMaxSteps; e.steps++ {
		// R = I − V Vᵀ (upper triangle) and S = (V A) Vᵀ.
		impl.Dsyrk(gblas.Upper, gblas.NoTrans, n, n, -1, v, n, 0, r, n)
		for i := 0; i < n; i++ {
			r[i*n+i]++
		}
		impl.Dsymm(gblas.Right, gblas.Upper, n, n, 1, e.a, n, v, n, 0, t, n)
		impl.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, t, n, v, n, 0, s, n)
		var offS, normR float64
		for i := 0; i < n; i++ {
			w[i] = s[i*n+i] / (1 - r[i*n+i])
			normR += r[i*n+i] * r[i*n+i]
			for j := i + 1; j < n; j++ {
				x, y := s[i*n+j], s[j*n+i]
				offS += x*x + y*y
				normR += 2 * r[i*n+j] * r[i*n+j]
			}
		}
		for i := 0; i < n; i++ {
			d := s[i*n+i] - w[i]
			offS += d * d
		}
		anorm := math.Max(math.Abs(w[0]), math.Abs(w[n-1]))
		for _, x := range w {
			anorm = math.Max(anorm, math.Abs(x))
		}
		delta := 2 * (math.Sqrt(offS) + anorm*math.Sqrt(normR))
		if !(delta < math.Inf(1)) || anorm == 0 {
			return false
		}
		// Eᵀ into t (row j of t is column j of E), and ‖E‖_F, the
		// smallest separated gap and the widest cluster pair.
		var normE float64
		gap, cluster := math.Inf(1), 0.0
		for i := 0; i < n; i++ {
			rii := r[i*n+i]
			t[i*n+i] = rii / 2
			normE += rii * rii / 4
			for j := i + 1; j < n; j++ {
				rij := r[i*n+j]
				var eij, eji float64
				if d := w[j] - w[i]; math.Abs(d) > delta {
					// S's two triangles differ by rounding, n·u·‖A‖,
					// which divided by the gap would make E + Eᵀ ≠ R
					// and X + XE less orthogonal than X: both take
					// their mean.
					sij := 0.5 * (s[i*n+j] + s[j*n+i])
					eij = (sij + w[j]*rij) / d
					eji = (sij + w[i]*rij) / -d
					gap = math.Min(gap, math.Abs(d))
				} else {
					eij, eji = rij/2, rij/2
					cluster = math.Max(cluster, math.Abs(d))
				}
				t[j*n+i], t[i*n+j] = eij, eji
				normE += eij*eij + eji*eji
			}
		}
		if !(normE < math.Inf(1)) {
			return false
		}
		// Quadratic convergence shrinks ‖E‖ by far more than 4× a
		// step once the first step has left float32's error behind;
		// a sequence that does not is stuck on clusters (pairs that
		// swing between the two branches of e_ij), which dsyevd
		// solves for less than further steps would cost.
		if e.steps >= 3 && normE > prevE/16 {
			return false
		}
		prevE = normE
		// V ← V + Eᵀ V, from a copy of V in s (S is used up).
		copy(s, v)
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, t, n, s, n, 1, v, n)
		// Accept when the step's second-order remainder is below
		// float64's rounding and every cluster is within it too.
		rem := normE * math.Max(1, anorm/gap)
		if rem <= unit && (cluster == 0 || delta <= unit*anorm) {
			for i := range w {
				w[i] += sigma
			}
			return e.sorted()
		}
	}
	return false
}

// sorted puts the eigenpairs in ascending order of e.w, as the refined
// eigenvalues of a tight pair may have swapped, and reports whether every
// entry is finite.
func (e *RefinedEigSym) sorted() bool {
	n, w, v := e.n, e.w, e.v
	for i := 1; i < n; i++ {
		for j := i; j > 0 && w[j] < w[j-1]; j-- {
			w[j], w[j-1] = w[j-1], w[j]
			a, b := v[j*n:(j+1)*n], v[(j-1)*n:j*n]
			for k := range a {
				a[k], b[k] = b[k], a[k]
			}
		}
	}
	return allFinite(w) && allFinite(v)
}

// allFinite reports whether every entry of a is finite.
func allFinite(a []float64) bool {
	for _, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Steps returns the refinement steps the last Factorize ran (0 where it
// called EigSym directly).
func (e *RefinedEigSym) Steps() int { return e.steps }

// FellBack reports whether the last Factorize's refinement did not meet
// its acceptance test, so that EigSym (dsyevd) solved the matrix instead.
func (e *RefinedEigSym) FellBack() bool { return e.fell }

// Values returns the eigenvalues in ascending order. The slice is the
// workspace's own: it changes with the next Factorize.
func (e *RefinedEigSym) Values() []float64 {
	if e.direct {
		return e.base.Values()
	}
	e.mustOK()
	return e.w
}

// Vectors returns the n×n row-major matrix whose row i is the unit
// eigenvector for Values()[i]. The slice is the workspace's own.
func (e *RefinedEigSym) Vectors() []float64 {
	if e.direct {
		return e.base.Vectors()
	}
	e.mustOK()
	return e.v
}

func (e *RefinedEigSym) mustOK() {
	if !e.ok {
		panic("lapackx: RefinedEigSym used without a successful Factorize")
	}
}

// EigSym32 is EigSym at float32's accuracy, for opt-in mixed-precision
// paths that judge it by its effect on their result (the synthetic
// problem's float32 lower steps): LAPACK's ssyevd on A − σI rounded to
// float32 (σ = tr(A)/n, the mean eigenvalue, which shrinks float32's
// error with ‖A − σI‖), its eigenpairs returned in float64 with σ added
// back. Its eigenvectors are orthonormal and its residual
// ‖AVᵀ − VᵀΛ‖/‖A‖ small to float32's level, about n·2⁻²⁴, not
// float64's; where ssyevd fails or ‖A‖ is outside [2⁻⁶⁰, 2⁶⁰], and in
// pure-Go builds and on the Gonum backend, it is EigSym (float64).
// RefinedEigSym refines the same start to float64 accuracy, at a cost
// that exceeded dsyevd's on the machines measured.
//
// An EigSym32 owns its workspace: FactorizeLower allocates nothing. It is
// not safe for concurrent use.
type EigSym32 struct{ r *RefinedEigSym }

// NewEigSym32 returns a workspace for n×n matrices.
func NewEigSym32(n int) *EigSym32 { return &EigSym32{newRefined(n, 1)} }

// N returns the order of the matrices the workspace takes.
func (e *EigSym32) N() int { return e.r.n }

// FactorizeLower computes the eigendecomposition of the symmetric matrix
// whose lower triangle a holds, as EigSym.FactorizeLower does, to
// float32's accuracy.
func (e *EigSym32) FactorizeLower(a []float64) error {
	r, n := e.r, e.r.n
	if len(a) != n*n {
		panic(errShape)
	}
	r.ok, r.direct, r.steps, r.fell = false, false, 0, false
	if !r.refinable() {
		r.direct = true
		return r.base.FactorizeLower(a)
	}
	for i := 0; i < n; i++ {
		for j, x := range a[i*n : i*n+i+1] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("lapackx: %w: EigSym32: a[%d,%d] = %v", numerr.ErrNotFinite, i, j, x)
			}
			r.a[i*n+j], r.a[j*n+i] = x, x
		}
	}
	sigma, ok := r.start()
	if !ok {
		return r.fallback(true)
	}
	for i := range r.w {
		r.w[i] += sigma
	}
	r.ok = true
	return nil
}

// FellBack reports whether the last FactorizeLower ran EigSym (float64)
// instead of ssyevd.
func (e *EigSym32) FellBack() bool { return e.r.direct || e.r.fell }

// Values returns the eigenvalues in ascending order. The slice is the
// workspace's own: it changes with the next FactorizeLower.
func (e *EigSym32) Values() []float64 { return e.r.Values() }

// Vectors returns the n×n row-major matrix whose row i is the unit
// eigenvector for Values()[i]. The slice is the workspace's own.
func (e *EigSym32) Vectors() []float64 { return e.r.Vectors() }
