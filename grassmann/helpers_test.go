package grassmann_test

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/grassmann"
)

// vertical returns XΩ for a fixed skew p×p Ω with entries 1, 2, 3, …
// above the diagonal: tangent to Stiefel, normal to Gr's horizontal
// space. For p = 1, where Ω = 0, it returns X.
func vertical(x []float64, p int) []float64 {
	n := len(x) / p
	if p == 1 {
		return append([]float64(nil), x...)
	}
	om := make([]float64, p*p)
	k := 1.0
	for i := 0; i < p; i++ {
		for j := i + 1; j < p; j++ {
			om[i*p+j], om[j*p+i] = k, -k
			k++
		}
	}
	return mul(x, om, n, p, p)
}

// mul returns the r×c product of the r×k a and the k×c b.
func mul(a, b []float64, r, k, c int) []float64 {
	var d mat.Dense
	d.Mul(mat.NewDense(r, k, a), mat.NewDense(k, c, b))
	return d.RawMatrix().Data
}

// mulT returns aᵀb for the k×r a and the k×c b.
func mulT(a, b []float64, k, r, c int) []float64 {
	var d mat.Dense
	d.Mul(mat.NewDense(k, r, a).T(), mat.NewDense(k, c, b))
	return d.RawMatrix().Data
}

// draw returns two random points x and y of g and a random unit tangent u
// at x, drawn in that order from rnd.
func draw(g *grassmann.Grassmann, rnd *rand.Rand) (x, y, u []float64) {
	x, y, u = make([]float64, g.Len()), make([]float64, g.Len()), make([]float64, g.Len())
	g.RandPoint(x, rnd)
	g.RandPoint(y, rnd)
	g.RandTangent(u, x, rnd)
	return x, y, u
}

// topEigenvectors returns the eigenvectors of the p largest eigenvalues
// of the symmetric n×n a as the columns of an n×p matrix, largest first
// (gonum's EigenSym).
func topEigenvectors(a []float64, n, p int) []float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, a), true) {
		panic("eigendecomposition failed")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	y := make([]float64, n*p)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			y[i*p+j] = v.At(i, n-1-j)
		}
	}
	return y
}

// orthogonal returns a random p×p orthogonal matrix (the Q of a Gaussian).
func orthogonal(p int, rnd *rand.Rand) []float64 {
	a := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			a.Set(i, j, rnd.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return append([]float64(nil), q.RawMatrix().Data...)
}

// projector returns XXᵀ (n×n), which stands for the subspace itself.
func projector(x []float64, n, p int) []float64 {
	var d mat.Dense
	xm := mat.NewDense(n, p, x)
	d.Mul(xm, xm.T())
	return d.RawMatrix().Data
}

// dist2 returns ‖a − b‖₂ (Frobenius for matrices).
func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// norm2 returns ‖a‖₂.
func norm2(a []float64) float64 {
	var s float64
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

// principalAngles returns the principal angles between the column spaces
// of the n×p x and y as arccos of the singular values of XᵀY (gonum's SVD):
// the textbook definition (Björck and Golub 1973), independent of Dist's
// sines.
func principalAngles(x, y []float64, n, p int) []float64 {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(p, p, mulT(x, y, n, p, p)), mat.SVDNone) {
		panic("SVD failed")
	}
	s := svd.Values(nil)
	for i, v := range s {
		s[i] = math.Acos(math.Min(v, 1))
	}
	return s
}

// singularValues returns the singular values of the p×p a, descending.
func singularValues(a []float64, p int) []float64 {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(p, p, a), mat.SVDNone) {
		panic("SVD failed")
	}
	return svd.Values(nil)
}
