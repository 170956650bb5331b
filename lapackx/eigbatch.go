package lapackx

import "fmt"

// EigBatchWork returns the workspace lengths EigBatch needs for n×n
// matrices on either backend this build contains (RHGD_BLAS or blas.Use
// may switch between them).
func EigBatchWork(n int) (lwork, liwork int) {
	for _, b := range backends() {
		lw, liw := b.eigWork(n)
		lwork, liwork = max(lwork, lw), max(liwork, liw)
	}
	return lwork, liwork
}

// EigBatch computes the eigendecompositions of count symmetric n×n
// matrices stored one after the other in a (row-major, lower triangle
// read), in place: each block receives its eigenvectors in its rows and w
// its n eigenvalues, ascending. With LAPACKE it crosses into C once for
// the batch. work and iwork have at least the lengths EigBatchWork gives.
// On failure it returns the index of the first matrix that failed. It
// does not check its input for NaN or symmetry: callers that take outside
// data do.
func EigBatch(n, count int, a, w, work []float64, iwork []int32) (int, error) {
	// The workspace lengths are checked by the routines themselves (the
	// gonum one's size query allocates, so it is not repeated here).
	if n <= 0 || count <= 0 || len(a) < count*n*n || len(w) < count*n || len(work) == 0 {
		panic(fmt.Sprintf("lapackx: EigBatch: n = %d, count = %d, len(a) = %d, len(w) = %d, len(work) = %d, len(iwork) = %d",
			n, count, len(a), len(w), len(work), len(iwork)))
	}
	return lp().eigBatch(n, count, a, w, work, iwork)
}
