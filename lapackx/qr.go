package lapackx

import "math"

// QR computes the thin QR factorization A = Q R of a row-major m×n matrix
// with m ≥ n. Q (m×n) has orthonormal columns and R (n×n) is upper
// triangular with a non-negative diagonal: the sign convention makes Q
// unique for full-rank A, so that qf(A), the Stiefel QR retraction, is a
// function of A.
//
// The factorization runs on T = Aᵀ stored row-major (n×m), which is A in
// column-major order: the row-major LQ of T, which is LAPACK's dgeqrf and
// dorgqr on the native backend and gonum's Dgelqf and Dorglq on the
// pure-Go one. Both then walk
// contiguous memory. The transposition-free alternative, an LQ of the
// column-major view, is 3 to 5 times slower for tall matrices because the
// Householder panels run along strided rows (BenchmarkQRLayout); the two
// blocked transpositions cost O(mn) against the O(mn²) factorization.
//
// Steady-state calls allocate nothing; a QR is not safe for concurrent use.
type QR struct {
	m, n int
	t    []float64 // Aᵀ row-major (n×m), then the factored form
	q    []float64 // Qᵀ row-major, generated from t
	tau  []float64
	work []float64
	ok   bool
}

// NewQR returns a workspace for m×n matrices, m ≥ n.
func NewQR(m, n int) *QR {
	if m < 0 || n < 0 {
		panic(errNegative)
	}
	if n > m {
		panic("lapackx: QR needs m ≥ n; factor the transpose")
	}
	q := &QR{m: m, n: n, t: make([]float64, m*n), q: make([]float64, m*n), tau: make([]float64, n)}
	lwork := max(1, m)
	if n > 0 {
		var w [1]float64
		for _, b := range backends() {
			b.gelqf(n, m, q.t, m, q.tau, w[:], -1)
			lwork = max(lwork, int(w[0]))
			b.orglq(n, m, n, q.t, m, q.tau, w[:], -1)
			lwork = max(lwork, int(w[0]))
		}
	}
	q.work = make([]float64, lwork)
	return q
}

// Dims returns m and n.
func (q *QR) Dims() (m, n int) { return q.m, q.n }

// Factorize computes the factorization of a, which it does not modify. It
// returns an error wrapping numerr.ErrNotFinite for a non-finite entry.
func (q *QR) Factorize(a []float64) error {
	m, n := q.m, q.n
	if len(a) != m*n {
		panic(errShape)
	}
	q.ok = false
	if err := checkFinite("QR", a, n); err != nil {
		return err
	}
	if n == 0 {
		q.ok = true
		return nil
	}
	transposeTo(q.t, a, m, n)
	lp().gelqf(n, m, q.t, m, q.tau, q.work, len(q.work))
	q.ok = true
	return nil
}

// MinRDiag returns min_j |R_jj|, which is zero exactly when A's columns
// are linearly dependent (and Q is then not determined by A).
func (q *QR) MinRDiag() float64 {
	q.mustOK()
	m := math.Inf(1)
	for j := 0; j < q.n; j++ {
		m = math.Min(m, math.Abs(q.rDiag(j)))
	}
	return m
}

// rDiag returns R's diagonal entry i before the sign fix.
func (q *QR) rDiag(i int) float64 { return q.t[i*q.m+i] }

// QTo sets the m×n dst to Q.
func (q *QR) QTo(dst []float64) {
	m, n := q.m, q.n
	q.mustOK()
	if len(dst) != m*n {
		panic(errShape)
	}
	if n == 0 {
		return
	}
	copy(q.q, q.t)
	lp().orglq(n, m, n, q.q, m, q.tau, q.work, len(q.work))
	// Row j of q.q is column j of Q; flip it where R_jj < 0.
	for j := 0; j < n; j++ {
		if q.rDiag(j) < 0 {
			row := q.q[j*m : (j+1)*m]
			for i := range row {
				row[i] = -row[i]
			}
		}
	}
	transposeTo(dst, q.q, n, m)
}

// RTo sets the n×n dst to R.
func (q *QR) RTo(dst []float64) {
	n, m := q.n, q.m
	q.mustOK()
	if len(dst) != n*n {
		panic(errShape)
	}
	// R_ij (i ≤ j) sits at t[j·m + i].
	for i := 0; i < n; i++ {
		sign := 1.0
		if q.rDiag(i) < 0 {
			sign = -1
		}
		row := dst[i*n : (i+1)*n]
		clear(row[:i])
		for j := i; j < n; j++ {
			row[j] = sign * q.t[j*m+i]
		}
	}
}

func (q *QR) mustOK() {
	if !q.ok {
		panic("lapackx: QR used without a successful Factorize")
	}
}

// transposeTo sets the c×r row-major dst to the transpose of the r×c
// row-major src, in cache tiles.
func transposeTo(dst, src []float64, r, c int) {
	const tile = 32
	for ib := 0; ib < r; ib += tile {
		ie := min(ib+tile, r)
		for jb := 0; jb < c; jb += tile {
			je := min(jb+tile, c)
			for i := ib; i < ie; i++ {
				row := src[i*c+jb : i*c+je]
				for j, v := range row {
					dst[(jb+j)*r+i] = v
				}
			}
		}
	}
}
