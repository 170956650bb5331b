package lapackx

// SVD computes the thin singular value decomposition A = U diag(σ) Vᵀ of a
// row-major m×n matrix, k = min(m, n): U is m×k, Vᵀ is k×n, σ descends.
// The native backend calls LAPACK's divide-and-conquer dgesdd on the
// column-major view Aᵀ = V σ Uᵀ, so its U and Vᵀ outputs land, row-major,
// as our Vᵀ and U with no transposition; the pure-Go backend calls gonum's
// Dgesvd.
//
// Steady-state calls allocate nothing; an SVD is not safe for concurrent
// use.
type SVD struct {
	m, n, k int
	a       []float64
	s       []float64
	u, vt   []float64
	work    []float64
	iwork   []int32
	ok      bool
}

// NewSVD returns a workspace for m×n matrices.
func NewSVD(m, n int) *SVD {
	if m < 0 || n < 0 {
		panic(errNegative)
	}
	k := min(m, n)
	lwork := 1
	if k > 0 {
		for _, b := range backends() {
			lwork = max(lwork, b.svdWork(m, n))
		}
	}
	return &SVD{m: m, n: n, k: k, a: make([]float64, m*n), s: make([]float64, k),
		u: make([]float64, m*k), vt: make([]float64, k*n), work: make([]float64, lwork), iwork: make([]int32, 8*k)}
}

// Factorize computes the decomposition of a, which it does not modify. It
// returns an error wrapping numerr.ErrNotFinite for bad input and ErrLapack if the
// iteration fails to converge.
func (d *SVD) Factorize(a []float64) error {
	m, n, k := d.m, d.n, d.k
	if len(a) != m*n {
		panic(errShape)
	}
	d.ok = false
	if err := checkFinite("SVD", a, n); err != nil {
		return err
	}
	copy(d.a, a)
	if k > 0 {
		if err := lp().svd(m, n, d.a, d.s, d.u, d.vt, d.work, d.iwork); err != nil {
			return err
		}
	}
	d.ok = true
	return nil
}

// Values returns σ, descending; the slice is the workspace's own.
func (d *SVD) Values() []float64 { d.mustOK(); return d.s }

// U returns the m×k row-major U; the slice is the workspace's own.
func (d *SVD) U() []float64 { d.mustOK(); return d.u }

// VT returns the k×n row-major Vᵀ; the slice is the workspace's own.
func (d *SVD) VT() []float64 { d.mustOK(); return d.vt }

func (d *SVD) mustOK() {
	if !d.ok {
		panic("lapackx: SVD used without a successful Factorize")
	}
}
