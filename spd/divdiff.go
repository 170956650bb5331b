package spd

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// secondDD sets and returns dst = T with T_ij = Σ_k exp[ℓ_i, ℓ_k, ℓ_j]
// (A_ik B_kj + B_ik A_kj) for symmetric A and B in the eigenbasis of p,
// D² exp(log X)[A, B] there. For |ℓ_i − ℓ_j| ≥ pairSep the recurrence
// exp[ℓ_i, ℓ_k, ℓ_j] = (E_ik − E_kj)/(ℓ_i − ℓ_j) turns the sum into
// (M_ij − M_ji)/(ℓ_i − ℓ_j) with M = (E∘A)B + (E∘B)A, two products; the
// other pairs (the diagonal among them) sum over k with dd2, n terms
// each. dst must be none of a, b, sc[3], sc[4].
//
// The products' rounding, ε·Σ_k E_ik |A_ik B_kj + B_ik A_kj|, divided by
// |ℓ_i − ℓ_j| ≥ pairSep, is about 2ε/pairSep relative to the sum's terms
// for k near i and j, where E_ik ≈ 2 exp[ℓ_i, ℓ_k, ℓ_j], and |ℓ_k − ℓ_i|
// times that for k far away (TestSecondDDPaths measures it). A larger
// pairSep buys digits at n terms for each pair it moves to the sum.
func (s *SPD) secondDD(dst []float64, p *eigPoint, a, b []float64) []float64 {
	n, w := s.n, s.mw
	ea, eb := w.sc[3], w.sc[4]
	for i, e := range p.d {
		ea[i], eb[i] = e*a[i], e*b[i]
	}
	impl := blas.Impl()
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, ea, n, b, n, 0, dst, n)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, eb, n, a, n, 1, dst, n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var t float64
			if dl := p.ell[i] - p.ell[j]; math.Abs(dl) >= pairSep {
				t = (dst[i*n+j] - dst[j*n+i]) / dl
			} else {
				for k := 0; k < n; k++ {
					t += dd2(p, n, i, k, j) * (a[i*n+k]*b[k*n+j] + b[i*n+k]*a[k*n+j])
				}
			}
			dst[i*n+j], dst[j*n+i] = t, t
		}
	}
	return dst
}

// dd2 returns the second divided difference exp[ℓ_i, ℓ_k, ℓ_j]. With the
// three sorted, a ≤ b ≤ c: for c − a ≥ 1, (E_bc − E_ab)/(c − a), where
// E_bc ≥ E_ab (exp is convex) differ by at least a third of E_bc, so
// nothing cancels; closer, e^b Σ_m h_m(a − b, c − b)/(m + 2)!, the
// divided difference of the Taylor series (h_m the complete homogeneous
// polynomial of degree m in two variables of modulus < 1), whose terms
// after m = 18 are below 2⁻⁵⁵ of the sum.
func dd2(p *eigPoint, n, i, k, j int) float64 {
	ell := p.ell
	a, b, c := i, k, j
	if ell[a] > ell[b] {
		a, b = b, a
	}
	if ell[b] > ell[c] {
		b, c = c, b
	}
	if ell[a] > ell[b] {
		a, b = b, a
	}
	if g := ell[c] - ell[a]; g >= 1 {
		return (p.d[b*n+c] - p.d[a*n+b]) / g
	}
	al, ga := ell[a]-ell[b], ell[c]-ell[b]
	h, ap, sum := 1.0, 1.0, 0.5
	for m := 1; m < len(invFact2); m++ {
		ap *= al
		h = ga*h + ap
		sum += h * invFact2[m]
	}
	return p.lam[b] * sum
}

// invFact2[m] = 1/(m + 2)!.
var invFact2 = func() (f [19]float64) {
	d := 2.0
	for m := range f {
		if m > 0 {
			d *= float64(m + 2)
		}
		f[m] = 1 / d
	}
	return f
}()

// pairSep is the separation |ℓ_i − ℓ_j| from which secondDD computes a
// pair by products.
var pairSep = 1.0 / 8
