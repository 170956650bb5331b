package lapackx

import (
	"fmt"

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

// eigSerialCutoff is the order below which dsyevd runs OpenBLAS on one
// thread: up to n ≈ 500 the thread wake-ups of dsytrd's level-2 calls cost
// more than the second core gives. Set by BenchmarkEigThreads.
const eigSerialCutoff = 500

// eigQLVecCutoff and eigQLBaseCutoff are the orders below which the
// eigensolver with vectors is rhgd's own tridiagonal QL (lapacke.Syevql)
// rather than dsyevd, with and without its AVX2 code. BenchmarkEigDriver
// on the 2-core EPYC, medians, syevql against dsyevd (one thread): n=20
// 19 µs, 44 µs; n=50 87 µs, 167 µs; n=64 161 µs, 275 µs; n=100 458 µs,
// 595 µs; n=128 0.84 ms, 1.01 ms; n=160 1.52 ms, 1.46 ms; n=200 2.81 ms,
// 2.59 ms. Without AVX2: n=20 28 µs, n=32 101 µs (dsyevd 119 µs), n=50
// 195 µs.
const (
	eigQLVecCutoff  = 140
	eigQLBaseCutoff = 32
)

// eigQLCutoff is the cutoff for this CPU.
func eigQLCutoff() int {
	if lapacke.SyevqlVectorized {
		return eigQLVecCutoff
	}
	return eigQLBaseCutoff
}

func (nativeLapack) eig(vecs, lower bool, n int, a, w, work []float64, iwork []int32) error {
	if vecs && n < eigQLCutoff() {
		if info := lapacke.Syevql(n, a, w, work[:n], lower, false); info != 0 {
			return lapackErr("syevql", info)
		}
		return nil
	}
	if n < eigSerialCutoff {
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
	if info := lapacke.Dsyevd(job, uplo, n, a, n, w, work, iwork); info != 0 {
		return lapackErr("dsyevd", info)
	}
	return nil
}

func (nativeLapack) eigWork(n int) (lwork, liwork int) { return 1 + 6*n + 2*n*n, 3 + 5*n }

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
	if info, i := lapacke.DsyevdBatch(n, count, a, w, work, iwork); info != 0 {
		return i, lapackErr("dsyevd", info)
	}
	return 0, nil
}

func (nativeLapack) potrf(ul gblas.Uplo, n int, a []float64, lda int) bool {
	return lapacke.Dpotrf(flip(ul), n, a, lda) == 0
}

func (nativeLapack) potri(ul gblas.Uplo, n int, a []float64, lda int) bool {
	return lapacke.Dpotri(flip(ul), n, a, lda) == 0
}

// potrs: a row-major right-hand side is contiguous only as a single
// column, which LAPACK takes as it is.
func (nativeLapack) potrs(ul gblas.Uplo, n int, a []float64, lda int, b []float64) {
	lapacke.Dpotrs(flip(ul), n, 1, a, lda, b, n)
}

// The row-major QR of A is the column-major LQ of Aᵀ, and back.
func (nativeLapack) geqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	lapacke.Dgelqf(n, m, a, lda, tau, work, lwork)
}

func (nativeLapack) gelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	lapacke.Dgeqrf(n, m, a, lda, tau, work, lwork)
}

func (nativeLapack) orgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	lapacke.Dorglq(n, m, k, a, lda, tau, work, lwork)
}

func (nativeLapack) orglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	lapacke.Dorgqr(n, m, k, a, lda, tau, work, lwork)
}

// getrf factorizes the column-major view, Aᵀ = P L U, which is the
// layout the interface promises.
func (nativeLapack) getrf(n int, a []float64, ipiv []int32, _ []int) (bool, error) {
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

// svd runs the divide-and-conquer dgesdd on the column-major view
// Aᵀ = V σ Uᵀ, whose U and Vᵀ outputs land, row-major, as our Vᵀ and U.
func (nativeLapack) svd(m, n int, a, s, u, vt, work []float64, iwork []int32) error {
	k := min(m, n)
	if info := lapacke.Dgesdd('S', n, m, a, n, s, vt, n, u, k, work, len(work), iwork); info != 0 {
		return lapackErr("dgesdd", info)
	}
	return nil
}

func (nativeLapack) svdWork(m, n int) int {
	var q [1]float64
	lapacke.Dgesdd('S', n, m, nil, n, nil, nil, n, nil, min(m, n), q[:], -1, nil)
	return int(q[0])
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
	scale, info := lapacke.Dtrsyl('N', 'N', 1, n, m, s.sb.t, n, s.sa.t, m, s.f, n)
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

func (nativeLapack) schurWork(n int) int {
	var q [1]float64
	lapacke.Dgees(n, nil, n, nil, nil, nil, n, q[:], -1)
	return int(q[0])
}

// factorizeColMajor computes the real Schur form of the column-major m
// (which it does not modify) with LAPACK's dgees: T and Z column-major.
func (s *schur) factorizeColMajor(m []float64) error {
	n := s.n
	copy(s.t, m)
	if info := lapacke.Dgees(n, s.t, n, s.wr, s.wi, s.z, n, s.work, len(s.work)); info != 0 {
		return lapackErr("dgees", info)
	}
	return nil
}
