package lapackx

// schur computes the real Schur form M = Z T Zᵀ of a square matrix, T
// upper quasi-triangular, Z orthogonal: factorizeColMajor on the native
// backend (LAPACK's dgees), factorizeRowMajor on the gonum one (Dgehrd,
// Dorghr, Dhseqr). Each backend's Sylvester core keeps to its layout.
type schur struct {
	n      int
	t, z   []float64
	wr, wi []float64
	tau    []float64
	work   []float64
}

func newSchur(n int) *schur {
	s := &schur{n: n, t: make([]float64, n*n), z: make([]float64, n*n),
		wr: make([]float64, n), wi: make([]float64, n), tau: make([]float64, max(n-1, 0))}
	lwork := max(1, 3*n)
	if n > 0 {
		for _, b := range backends() {
			lwork = max(lwork, b.schurWork(n))
		}
	}
	s.work = make([]float64, lwork)
	return s
}
