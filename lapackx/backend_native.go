package lapackx

import (
	"fmt"
	"math"
	"sync/atomic"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
	"github.com/rhgd/rhgd/numerr"
)

// nativeLapack calls LAPACKE through cgo, on the column-major view of rhgd's
// row-major buffers, arranged so that LAPACKE never transposes: a symmetric
// matrix is its own transpose with the triangles swapped (flip), the QR of
// a row-major matrix is the LQ of the column-major one, and so on. lp
// selects it only in builds that link LAPACKE.
type nativeLapack struct{}

func (nativeLapack) name() string { return blas.Native.String() }
func (nativeLapack) eigDriver() string {
	return fmt.Sprintf("syevql below n = %d, dsyevd from there", eigQLCutoff())
}

// LAPACK's one-thread windows follow the rule of blas's (blas/hybrid.go):
// a call runs on all of OpenBLAS's threads only from the order its call
// kind has in blas's table in use (blas.ThreadsFrom: a profile `rhgd tune`
// measured on this machine, or the fallback); below, lapackx brackets it
// with blas.SerialBegin and blas.SerialEnd. OpenBLAS's threaded LAPACK
// synchronizes its threads many times a call (per block column, per step
// of a reduction), and beside busy processes each synchronization can
// cost a time slice: a threaded dpotrf at n = 1024 took 0.24 s there
// against 14 ms on one thread. bench/threads.sh calls (a benchmark of
// the probes `rhgd tune` times) measured the fallback's curves (blas/threadtable.go); on two threads
// only dgetrf and dsygst qualify, from n = 3072, and every other call
// runs on one thread at every order. A rectangular call counts as the
// square one of the same work, m·n·min(m, n). dpotrs and dgetrs with one
// right-hand side have no window: OpenBLAS runs them on one thread by
// itself.

// threaded reports whether a LAPACK call of the given order runs on all
// threads; the caller brackets it with blas.SerialBegin and SerialEnd
// otherwise.
func threaded(order, from int) bool { return order >= from }

// squareOrder is the order of the square matrix whose factorization costs
// as much as that of an m×n one: the cube root of m·n·min(m, n).
func squareOrder(m, n int) int {
	return int(math.Round(math.Cbrt(float64(m) * float64(n) * float64(min(m, n)))))
}

// eigQLVecCutoff and eigQLBaseCutoff are the orders below which the
// eigensolver with vectors is rhgd's own tridiagonal QL (lapacke.Syevql)
// rather than dsyevd, with and without its AVX2 code. BenchmarkEigDriver
// on the 2-core EPYC, medians, syevql against dsyevd (one thread): n=20
// 19 µs, 44 µs; n=50 87 µs, 167 µs; n=64 161 µs, 275 µs; n=100 458 µs,
// 595 µs; n=128 0.84 ms, 1.01 ms; n=160 1.52 ms, 1.46 ms; n=200 2.81 ms,
// 2.59 ms. Without AVX2: n=20 28 µs, n=32 101 µs (dsyevd 119 µs), n=50
// 195 µs. Those were with EISPACK's tql2 as the iteration; LAPACK's
// dsteqr, which replaced it for accuracy (issue 20), took 1.03–1.18× its
// time with AVX2 and 0.91–1.12× without (old and new test binaries
// alternated six times in one run on a loaded machine, medians: n=20
// 15.7 µs against 13.8, n=64 195 against 179, n=128 1.13 ms against 1.06,
// dsyevd 1.26 ms), which left both cutoffs where they were. The AVX2
// cutoff was 140 until issue 29, which set it to the base one for
// accuracy. On the conditioning sweep (TestReferenceSweep's matrices,
// errors in units of u·(κ_f + ρ), root mean square over the matrices of
// an order), syevql's f(A) errors are dsyevd's up to n = 32 (ratios
// 0.7–1.3), but from about 40 on its eigenvalues are less accurate
// (exp(A), whose error is that of λ_max: 3.7× dsyevd's at n = 48, back
// to dsyevd's level with syevql's vectors and dsyevd's eigenvalues) and
// from about 64 its eigenvectors too (log A: 1.5× at n = 64, 2–3.7× at
// n = 139, as LAPACK's own dsyev and gonum's Dsyev there: the QL/QR
// iteration's vectors collect rounding from about 4n plane rotations per
// row, divide and conquer's from a few merges). The eigenvalue loss is
// syevql's own: gonum's Dsyev (dsytrd with dsteqr) keeps dsyevd's level
// at n = 48 (λ_max off by 4.3 u·λ_max, root mean square, against 3.4
// for dsyevd and 8.4 for syevql), and tred2's tridiagonal alone has its
// λ_max within ±3 u·λ_max as dsytrd's does (tred2 emulated without FMA,
// the tridiagonal's eigenvalues in mpmath, 12 sweep matrices at n = 31
// and 48), which points at the iteration or at the AVX2 kernels' rounding
// (the base code: 5.9). Finding it would let the cutoff rise again. From
// 32 on dsyevd runs, at 1.2–1.9× syevql's time (above).
const (
	eigQLVecCutoff  = 32
	eigQLBaseCutoff = 32
)

// eigQLCutoff is the cutoff for this CPU.
func eigQLCutoff() int {
	if lapacke.SyevqlVectorized {
		return eigQLVecCutoff
	}
	return eigQLBaseCutoff
}

// eigGraded runs syevql at every order: tred2 reduces from the last row
// and its dsteqr chases towards the end of each block with the smaller
// diagonal entry, which is how a matrix graded down the diagonal keeps
// its small eigenvalues; dsyevd's dsytrd (from the first column, as eig
// calls it) and divide and conquer keep them only normwise.
func (nativeLapack) eigGraded(n int, a, w, work []float64) error {
	if info := lapacke.Syevql(n, a, w, work[:n], false, false); info != 0 {
		return lapackErr("syevql", info)
	}
	return nil
}

func (nativeLapack) eig(vecs, lower bool, n int, a, w, work []float64, iwork []int32) error {
	if vecs && n < eigQLCutoff() {
		if info := lapacke.Syevql(n, a, w, work[:n], lower, false); info != 0 {
			return lapackErr("syevql", info)
		}
		return nil
	}
	if !threaded(n, blas.ThreadsFrom(blas.CallSyevd)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	// The eigenvectors come back in LAPACK's columns, our rows.
	job, uplo := byte('N'), byte('L')
	if vecs {
		job = 'V'
	}
	if lower {
		uplo = 'U'
	}
	lw := evdWork(n) + 8
	info, fellback := lapacke.DsyevdOrQL(job, uplo, n, a, w, work[:lw], iwork, work[lw:lw+lapacke.DsyevdScratch(n)])
	if fellback {
		eigFallbacks.Add(1)
	}
	if info != 0 {
		if fellback {
			return lapackErr("dsyevd failed and syevql", info)
		}
		return lapackErr("dsyevd", info)
	}
	return nil
}

// evdWork is the workspace dsyevd needs with vectors.
func evdWork(n int) int { return 1 + 6*n + 2*n*n }

// eigWork: dsyevd's workspace with 8 doubles to align it, then the scratch
// in which lapacke.DsyevdOrQL runs dsyevd on an aligned copy of the input
// (the eigenvectors then do not depend on a matrix's place in a batch
// under any kernel set) and which leaves the input in place for the
// fallback: some OpenBLAS builds' dsyevd fails on valid input (its divide
// and conquer reports no convergence; Julia's default symmetric
// eigensolver moved off it for that reason), and there the native backend
// runs syevql, rhgd's own solver, which needs nothing from OpenBLAS's
// LAPACK (TestEigDsyevdFallback). The copies cost about 1% of dsyevd's
// time at n = 32 and less above.
func (nativeLapack) eigWork(n int) (lwork, liwork int) {
	return evdWork(n) + 8 + lapacke.DsyevdScratch(n), 3 + 5*n
}

// eigFallbacks counts the dsyevd calls that failed and were replaced by
// syevql, for tests.
var eigFallbacks atomic.Int64

// eigBatch crosses into C once for the whole batch (5–10% faster than a
// call per matrix for 64 matrices of order 5 to 100), with the solver eig
// would choose, so that a batch and single calls agree bit for bit.
func (nativeLapack) eigBatch(n, count int, a, w, work []float64, iwork []int32) (int, error) {
	if n < eigQLCutoff() {
		if info, i := lapacke.SyevqlBatch(n, count, a, w, work[:n]); info != 0 {
			return i, lapackErr("syevql", info)
		}
		return 0, nil
	}
	blas.SerialBegin()
	defer blas.SerialEnd()
	lw := evdWork(n) + 8
	info, i, fellback := lapacke.DsyevdBatch(n, count, a, w, work[:lw], iwork, work[lw:lw+lapacke.DsyevdScratch(n)])
	eigFallbacks.Add(int64(fellback))
	if info != 0 {
		return i, lapackErr("dsyevd (or syevql where it failed)", info)
	}
	return 0, nil
}

// resid runs the C kernel beside syevql (AVX2 where the CPU has it): 3–4×
// faster than the Go one.
func (nativeLapack) resid(n, m int, a, v, w, r []float64) { lapacke.Resid(n, m, a, v, w, r) }

func (nativeLapack) potrf(ul gblas.Uplo, n int, a []float64, lda int) bool {
	if !threaded(n, blas.ThreadsFrom(blas.CallPotrf)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	return lapacke.Dpotrf(flip(ul), n, a, lda) == 0
}

func (nativeLapack) potri(ul gblas.Uplo, n int, a []float64, lda int) bool {
	if !threaded(n, blas.ThreadsFrom(blas.CallPotri)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	return lapacke.Dpotri(flip(ul), n, a, lda) == 0
}

func (nativeLapack) trtri(ul gblas.Uplo, n int, a []float64, lda int) bool {
	blas.SerialBegin()
	defer blas.SerialEnd()
	return lapacke.Dtrtri(flip(ul), 'N', n, a, lda) == 0
}

// potrs: a row-major right-hand side is contiguous only as a single
// column, which LAPACK takes as it is.
func (nativeLapack) potrs(ul gblas.Uplo, n int, a []float64, lda int, b []float64) {
	lapacke.Dpotrs(flip(ul), n, 1, a, lda, b, n)
}

// The row-major QR of A is the column-major LQ of Aᵀ, and back.
func (nativeLapack) geqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	if !threaded(squareOrder(m, n), blas.ThreadsFrom(blas.CallQR)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	lapacke.Dgelqf(n, m, a, lda, tau, work, lwork)
}

func (nativeLapack) gelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	if !threaded(squareOrder(m, n), blas.ThreadsFrom(blas.CallQR)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	lapacke.Dgeqrf(n, m, a, lda, tau, work, lwork)
}

func (nativeLapack) orgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	if !threaded(squareOrder(m, n), blas.ThreadsFrom(blas.CallQR)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	lapacke.Dorglq(n, m, k, a, lda, tau, work, lwork)
}

func (nativeLapack) orglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	if !threaded(squareOrder(m, n), blas.ThreadsFrom(blas.CallQR)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	lapacke.Dorgqr(n, m, k, a, lda, tau, work, lwork)
}

// getrf factorizes the column-major view, Aᵀ = P L U, which is the
// layout the interface promises.
func (nativeLapack) getrf(n int, a []float64, ipiv []int32, _ []int) (bool, error) {
	if !threaded(n, blas.ThreadsFrom(blas.CallGetrf)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	info := lapacke.Dgetrf(n, n, a, n, ipiv)
	if info < 0 {
		return false, lapackErr("dgetrf", info)
	}
	return info > 0, nil
}

// getrs1 solves (Aᵀ)ᵀ x = b with the factors of Aᵀ: one contiguous column.
func (nativeLapack) getrs1(n int, lu []float64, ipiv []int32, b []float64) bool {
	if info := lapacke.Dgetrs('T', n, 1, lu, n, ipiv, b, n); info != 0 {
		panic(lapackErr("dgetrs", info)) // only on invalid arguments
	}
	return true
}

// sygstCutoff is the order from which ReduceSym calls dsygst rather than
// two triangular solves (BenchmarkReduceSym: at n=200 the solves take
// 0.65 ms against dsygst's 0.89 ms, at n=400 4.2 ms against 3.2 ms).
const sygstCutoff = 300

func (nativeLapack) reduceSym(a, l []float64, n int) {
	if n < sygstCutoff {
		reduceSymSolves(a, l, n)
		return
	}
	if !threaded(n, blas.ThreadsFrom(blas.CallSygst)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	// Row-major lower triangles are column-major upper ones, and L = Uᵀ
	// with U the column-major upper factor: dsygst('U') computes
	// U⁻ᵀ A U⁻¹ = L⁻¹ A L⁻ᵀ.
	if info := lapacke.Dsygst(1, 'U', n, a, n, l, n); info != 0 {
		panic(lapackErr("dsygst", info)) // only on invalid arguments
	}
}

// cholInverseCutoff is the order up to which CholInverse prefers a
// triangular solve and a Gram product to OpenBLAS's dpotri, which is slow
// at small sizes. BenchmarkCholInverse, medians: n = 50 14 µs against
// 44 µs, n = 100 93 µs against 168 µs, n = 150 276 µs against 270 µs,
// n = 1000 24 ms against 10 ms.
const cholInverseCutoff = 150

func (b nativeLapack) cholInverse(dst, work, l []float64, n int) {
	if n >= cholInverseCutoff {
		cholInversePotri(b, dst, l, n)
		return
	}
	InvLower(work, l, n)
	gramUpper(dst, work, n, n)
	mirrorUpper(dst, n)
}

// sylvester works on the column-major views, in which the equation reads
// Bᵀ Xᵀ + Xᵀ Aᵀ = Cᵀ: the roles of A and B swap and nothing is
// transposed. With P = Bᵀ = U S Uᵀ (s.sb), Q = Aᵀ = W T Wᵀ (s.sa),
// R = Cᵀ and Y = Xᵀ it solves S Ỹ + Ỹ T = Uᵀ R W and sets Y = U Ỹ Wᵀ.
func (nativeLapack) sylvester(s *Sylvester, dst, a, b, c []float64) (float64, error) {
	m, n := s.m, s.n
	if err := s.sa.factorizeColMajor(a); err != nil {
		return 0, err
	}
	if err := s.sb.factorizeColMajor(b); err != nil {
		return 0, err
	}
	u, w := s.sb.z, s.sa.z
	gemmCol(gblas.Trans, gblas.NoTrans, n, m, n, 1, u, n, c, n, 0, s.tmp, n)     // Uᵀ R
	gemmCol(gblas.NoTrans, gblas.NoTrans, n, m, m, 1, s.tmp, n, w, m, 0, s.f, n) // (Uᵀ R) W
	scale, info := trsyl(n, m, s.sb.t, s.sa.t, s.f)
	switch {
	case info == 1:
		return 0, fmt.Errorf("lapackx: %w: Sylvester coefficients A and −B share an eigenvalue", numerr.ErrSingular)
	case info != 0:
		return 0, lapackErr("dtrsyl", info)
	}
	gemmCol(gblas.NoTrans, gblas.NoTrans, n, m, n, 1, u, n, s.f, n, 0, s.tmp, n) // U Ỹ
	gemmCol(gblas.NoTrans, gblas.Trans, n, m, m, 1, s.tmp, n, w, m, 0, dst, n)   // (U Ỹ) Wᵀ
	return scale, nil
}

// trsyl solves S Ỹ + Ỹ T = F for the n×n and m×m quasi-triangular S and T,
// column-major, in place of f, with dtrsyl.
func trsyl(n, m int, sb, sa, f []float64) (scale float64, info int) {
	if !threaded(max(n, m), blas.ThreadsFrom(blas.CallGees)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	return lapacke.Dtrsyl('N', 'N', 1, n, m, sb, n, sa, m, f, n)
}

func (nativeLapack) schurWork(n int) int {
	var q [1]float64
	lapacke.Dgees(n, nil, n, nil, nil, nil, n, q[:], -1)
	return int(q[0])
}

// factorizeColMajor computes the real Schur form of the column-major m
// (which it does not modify) with LAPACK's dgees: T and Z column-major.
func (s *schur) factorizeColMajor(m []float64) error {
	n := s.n
	if !threaded(n, blas.ThreadsFrom(blas.CallGees)) {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	copy(s.t, m)
	if info := lapacke.Dgees(n, s.t, n, s.wr, s.wi, s.z, n, s.work, len(s.work)); info != 0 {
		return lapackErr("dgees", info)
	}
	return nil
}
