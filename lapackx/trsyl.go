package lapackx

import (
	"fmt"

	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/rhgd/rhgd/numerr"
)

// trsylRowMajor solves S Y + Y T = scale·F for row-major upper
// quasi-triangular S (m×m) and T (n×n) in real Schur form, overwriting the
// m×n row-major f with Y. It is the pure-Go twin of LAPACK's dtrsyl
// (TRANA = TRANB = 'N', ISGN = 1), which gonum lacks: blocks of S from the
// bottom up within blocks of T from the left, each 1×1, 1×2, 2×1 or 2×2
// system solved by gonum's Dlasy2. scale ≤ 1 is chosen to avoid overflow.
// It returns numerr.ErrSingular when S and −T have (numerically) common
// eigenvalues, in which case Dlasy2 perturbed the system.
func trsylRowMajor(m, n int, s, t, f []float64) (scale float64, err error) {
	impl := gonum.Implementation{}
	scale = 1
	singular := false
	var rhs, x [4]float64
	for l1 := 0; l1 < n; {
		nl := 1
		if l1+1 < n && t[(l1+1)*n+l1] != 0 {
			nl = 2
		}
		for k2 := m - 1; k2 >= 0; {
			nk, k1 := 1, k2
			if k2 > 0 && s[k2*m+k2-1] != 0 {
				nk, k1 = 2, k2-1
			}
			// rhs = F(k,l) − S(k, k2+1:) Y(k2+1:, l) − Y(k, :l1) T(:l1, l)
			for i := 0; i < nk; i++ {
				for j := 0; j < nl; j++ {
					r, c := k1+i, l1+j
					v := f[r*n+c]
					for p := k2 + 1; p < m; p++ {
						v -= s[r*m+p] * f[p*n+c]
					}
					for p := 0; p < l1; p++ {
						v -= f[r*n+p] * t[p*n+c]
					}
					rhs[i*2+j] = v
				}
			}
			sc, _, ok := impl.Dlasy2(false, false, 1, nk, nl, s[k1*m+k1:], m, t[l1*n+l1:], n, rhs[:], 2, x[:], 2)
			if !ok {
				singular = true
			}
			if sc != 1 {
				scale *= sc
				for i := range f {
					f[i] *= sc
				}
			}
			for i := 0; i < nk; i++ {
				for j := 0; j < nl; j++ {
					f[(k1+i)*n+l1+j] = x[i*2+j]
				}
			}
			k2 = k1 - 1
		}
		l1 += nl
	}
	if singular {
		return scale, fmt.Errorf("lapackx: %w: Sylvester coefficients A and −B share an eigenvalue", numerr.ErrSingular)
	}
	return scale, nil
}
