// Package bimap holds the pieces that the problems hyperrep and spdnet
// share for their layers Z_i = WᵀA_iW on a set of n symmetric d×d
// matrices A_i (a BiMap layer, W ∈ St(d, k)) and for the features
// vec(S) of the symmetric k×k outputs: the set's products in two general
// products, and the vectorization and its adjoint.
package bimap

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// Products sets awv (n·d × k) to the A_iW stacked vertically, awh (d ×
// n·k) to the same side by side, and zh (k × n·k) to Wᵀ[A_1W | … |
// A_nW], whose k×k blocks are the WᵀA_iW (see Block), for the n d×d
// matrices a (row-major, one after the other) and the d×k w: two general
// products instead of 2n small ones. They run on one OpenBLAS thread: at
// these shapes a second thread costs more to wake than it saves
// (hyperrep's BenchmarkFeatureProducts).
func Products(awv, awh, zh, a, w []float64, n, d, k int) {
	nk := n * k
	impl := blas.Impl()
	blas.SerialBegin()
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n*d, k, d, 1, a, d, w, k, 0, awv, k)
	for i := 0; i < n; i++ { // the vertical stack to the horizontal one
		for r := 0; r < d; r++ {
			copy(awh[r*nk+i*k:r*nk+i*k+k], awv[(i*d+r)*k:(i*d+r+1)*k])
		}
	}
	impl.Dgemm(gblas.Trans, gblas.NoTrans, k, nk, d, 1, w, k, awh, nk, 0, zh, nk)
	blas.SerialEnd()
}

// Block sets the k×k z to the i-th k×k block of the k × n·k zh (of
// Products), made exactly symmetric by averaging it with its transpose.
func Block(z, zh []float64, i, n, k int) {
	nk := n * k
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			v := 0.5 * (zh[a*nk+i*k+b] + zh[b*nk+i*k+a])
			z[a*k+b], z[b*k+a] = v, v
		}
	}
}

// VecUpper sets v (k(k+1)/2 entries) to the upper triangle of the k×k s,
// row by row: the features vec(S).
func VecUpper(v, s []float64, k int) {
	j := 0
	for a := 0; a < k; a++ {
		j += copy(v[j:], s[a*k+a:(a+1)*k])
	}
}

// SymOf sets the k×k s to B(g), the adjoint of VecUpper on symmetric
// matrices: s_aa = g_aa, s_ab = s_ba = g_ab/2, so that ⟨S, B(g)⟩ =
// vec(S)ᵀg for symmetric S. B(g) is the gradient with respect to the
// symmetric matrix whose vec has the gradient g.
func SymOf(s, g []float64, k int) {
	j := 0
	for a := 0; a < k; a++ {
		s[a*k+a] = g[j]
		j++
		for b := a + 1; b < k; b++ {
			v := 0.5 * g[j]
			s[a*k+b], s[b*k+a] = v, v
			j++
		}
	}
}
