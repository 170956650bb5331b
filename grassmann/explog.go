package grassmann

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// Exp sets dst = Exp_X(tU) = X cos(t√S) + tU sinc(t√S), S = UᵀU, the
// geodesic through X with velocity U (pymanopt's X V cos(tΣ)Vᵀ +
// W sin(tΣ)Vᵀ for U = WΣVᵀ), re-orthonormalized by its polar factor, which
// moves it by its rounding only and so keeps the representative: for a
// horizontal U it is stiefel's Exp of the same U, horizontal geodesics of
// St(n, p) being the lifts of those of Gr. dst may be x or u.
func (g *Grassmann) Exp(dst, x, u []float64, t float64) error {
	g.check(dst, x, u)
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("grassmann: %w: exponential with t = %v", numerr.ErrNotFinite, t)
	}
	n, p := g.n, g.p
	g.gram(g.pp[0], u)
	if err := g.sf.Factorize(g.pp[0]); err != nil {
		return fmt.Errorf("grassmann: exponential: %w", err)
	}
	g.t = t
	c, s := g.pp[1], g.pp[2]
	if err := g.sf.Eval(c, g.cosF); err != nil {
		return fmt.Errorf("grassmann: exponential: %w", err)
	}
	if err := g.sf.Eval(s, g.sincF); err != nil {
		return fmt.Errorf("grassmann: exponential: %w", err)
	}
	impl := blas.Impl()
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, x, p, c, p, 0, g.a, p)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, u, p, s, p, 1, g.a, p)
	if err := g.polar(dst, g.a); err != nil {
		return fmt.Errorf("grassmann: exponential: %w", err)
	}
	return nil
}

// Log sets dst = Log_X(Y) = M g(MᵀM), g(s) = atan(√s)/√s, with
// M = (Y − X XᵀY)(XᵀY)⁻¹ (pymanopt's W atan(Σ)Vᵀ for M = WΣVᵀ): the
// horizontal lift at X of the shortest geodesic's velocity. It does not
// depend on Y's representative, and is zero for Y = XO. It returns an
// error wrapping numerr.ErrSingular when XᵀY is singular: a principal
// angle is π/2, Y is on the cut locus of X, and the shortest geodesics are
// several. dst may be x or y.
func (g *Grassmann) Log(dst, x, y []float64) error {
	g.check(dst, x, y)
	n, p := g.n, g.p
	impl := blas.Impl()
	// Mᵀ solves (XᵀY)ᵀ Mᵀ = Bᵀ with B = Y − X XᵀY: with YᵀX in pp[0],
	// B = Y − X (YᵀX)ᵀ.
	ytx := g.pp[0]
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, y, p, x, p, 0, ytx, p)
	copy(g.b, y)
	impl.Dgemm(gblas.NoTrans, gblas.Trans, n, p, p, -1, x, p, ytx, p, 1, g.b, p)
	if err := g.lu.Factorize(ytx); err != nil {
		return fmt.Errorf("grassmann: logarithm: XᵀY: %w (a principal angle is π/2: no unique logarithm)", err)
	}
	mt := g.a // p×n
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			mt[j*n+i] = g.b[i*p+j]
		}
	}
	g.lu.Solve(mt, n)
	mtm := g.pp[1]
	impl.Dsyrk(gblas.Upper, gblas.NoTrans, p, n, 1, mt, n, 0, mtm, p)
	lapackx.MirrorUpper(mtm, p)
	if err := g.sf.Factorize(mtm); err != nil {
		return fmt.Errorf("grassmann: logarithm: %w", err)
	}
	k := g.pp[2]
	if err := g.sf.Eval(k, g.atanF); err != nil {
		return fmt.Errorf("grassmann: logarithm: %w", err)
	}
	impl.Dgemm(gblas.Trans, gblas.NoTrans, n, p, p, 1, mt, n, k, p, 0, dst, p)
	return nil
}

// Dist returns the geodesic distance ‖θ‖₂, θ the principal angles between
// the column spaces of X and Y, each θ_i = atan2(sin θ_i, cos θ_i) with
// sin²θ the eigenvalues of BᵀB, B = Y − X XᵀY, and cos²θ those of AᵀA,
// A = XᵀY, paired in opposite orders (Knyazev and Argentati 2002 take
// sines below π/4 and cosines above; atan2 weighs them alike). Small
// angles come from the sines, to high relative accuracy, where arccos of
// the singular values of A (pymanopt's formula) loses half the digits:
// Dist(X, XO) is of the order of the rounding. Dist is defined at the cut
// locus too, where Log is not: orthogonal subspaces are √p·π/2 apart. An
// angle within √ε of π/2 with another near 0 (so that ‖A‖ ≈ 1) loses
// half its digits, as squaring the singular values must. It returns an
// error for non-finite input.
func (g *Grassmann) Dist(x, y []float64) (float64, error) {
	g.check(x, y)
	n, p := g.n, g.p
	impl := blas.Impl()
	a := g.pp[0]
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, y, p, 0, a, p)
	copy(g.b, y)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, -1, x, p, a, p, 1, g.b, p)
	eig := g.sf.Eig()
	sin2 := g.pp[2][:p]
	g.gram(g.pp[1], g.b)
	if err := eig.FactorizeValues(g.pp[1]); err != nil {
		return math.NaN(), fmt.Errorf("grassmann: distance: %w", err)
	}
	copy(sin2, eig.Values())
	ata := g.pp[1]
	impl.Dsyrk(gblas.Upper, gblas.Trans, p, p, 1, a, p, 0, ata, p)
	lapackx.MirrorUpper(ata, p)
	if err := eig.FactorizeValues(ata); err != nil {
		return math.NaN(), fmt.Errorf("grassmann: distance: %w", err)
	}
	cos2 := eig.Values()
	var d float64
	for i, s2 := range sin2 {
		d = math.Hypot(d, math.Atan2(math.Sqrt(math.Max(s2, 0)), math.Sqrt(math.Max(cos2[p-1-i], 0))))
	}
	return d, nil
}
