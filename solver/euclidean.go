package solver

// EuclideanProblem gives a bilevel problem by Euclidean oracles, the
// gradients and derivatives of f and g as functions on the ambient spaces
// of Mx and My. Euclidean converts it; each field means what the field
// of the same name in Problem means, with Euclidean in place of
// Riemannian.
type EuclideanProblem struct {
	Mx, My Manifold
	NF, NG int
	F      func(pt *Point) (float64, error)
	// GradFx and GradFy set dst to ∇_x f and ∇_y f.
	GradFx, GradFy func(dst []float64, pt *Point) error
	G              func(pt *Point) (float64, error)
	// GradGx and GradGy set dst to ∇_x g and ∇_y g.
	GradGx, GradGy func(dst []float64, pt *Point) error
	// HessGy sets dst to ∇²_yy g[v].
	HessGy func(dst []float64, pt *Point, v []float64) error
	// HessGyBatch sets the k rows of dst to ∇²_yy g applied to the k rows
	// of v (both k×My.Len(), row-major): HessGy on k vectors in one call.
	HessGyBatch func(dst []float64, pt *Point, v []float64, k int) error
	// CrossGxy sets dst to D_y ∇_x g[v] = ∇²_xy g[v].
	CrossGxy func(dst []float64, pt *Point, v []float64) error
	// CrossGyx sets dst to D_x ∇_y g[u] = ∇²_yx g[u].
	CrossGyx func(dst []float64, pt *Point, u []float64) error
	// HessGyInv sets dst to the inverse of the lower Hessian applied to
	// v, for the HINV estimator. It is Problem.HessGyInv, passed through
	// unchanged: the inverse of the Riemannian Hessian that Euclidean
	// makes of HessGy. On a Euclidean space My (IsEuclideanSpace, as for
	// a ridge head's weights) that is (∇²_yy g)⁻¹[v]; on a curved My it
	// is not the conversion of the Euclidean inverse, which has none.
	HessGyInv func(dst []float64, pt *Point, v []float64) error
	// LowerSolve sets dst to y*(x), as Problem.LowerSolve (a point, the
	// same in either geometry), passed through unchanged.
	LowerSolve func(dst []float64, pt *Point) error
}

// Euclidean returns the Riemannian problem on e.Mx × e.My that e
// describes:
//
//	grad_x f = Mx.EGradToRGrad(∇_x f), and likewise for the other gradients;
//	H_y g[v] = My.EHessToRHess(∇_y g, ∇²_yy g[v], v);
//	G_xy g[v] = Mx.EGradToRGrad(D_y ∇_x g[v]):
//
// grad_x g(x, y) = Φ_x(∇_x g(x, y)) with Φ_x the linear map EGradToRGrad at
// x, which does not depend on y, so its derivative in y along v is
// Φ_x(D_y ∇_x g[v]). Likewise G_yx g[u] = D_x(Φ_y(∇_y g))[u] =
// Φ_y(D_x ∇_y g[u]) for u ∈ T_x. HessGyBatch converts each of its k
// products as HessGy's. HessGyInv and LowerSolve pass through
// unchanged. A nil Euclidean oracle leaves the Riemannian one nil.
//
// The Hessian needs ∇_y g at the point (but on a EuclideanSpace My, where
// it is ∇²_yy g itself); it is kept from the last GradGy or HessGy call at
// the same point (and batch), so the products of one estimate evaluate it
// once. The returned functions share scratch space:
// use the problem from one goroutine.
func Euclidean(e EuclideanProblem) Problem {
	mx, my := e.Mx, e.My
	p := Problem{Mx: mx, My: my, NF: e.NF, NG: e.NG, F: e.F, G: e.G, HessGyInv: e.HessGyInv, LowerSolve: e.LowerSolve}
	if mx == nil || my == nil {
		return p // New reports the missing manifolds
	}
	bx, by, hv := make([]float64, mx.Len()), make([]float64, my.Len()), make([]float64, my.Len())
	gy, gyMemo := make([]float64, my.Len()), Memo{On: OnX | OnY | OnBatch}
	egradY := func(pt *Point) error { // gy = ∇_y g at pt
		if gyMemo.Valid(pt) {
			return nil
		}
		gyMemo.Reset()
		if err := e.GradGy(gy, pt); err != nil {
			return err
		}
		gyMemo.Store(pt)
		return nil
	}
	toX := func(f func([]float64, *Point) error) func([]float64, *Point) error {
		return func(dst []float64, pt *Point) error {
			if err := f(bx, pt); err != nil {
				return err
			}
			mx.EGradToRGrad(dst, pt.X, bx)
			return nil
		}
	}
	if e.GradFx != nil {
		p.GradFx = toX(e.GradFx)
	}
	if e.GradGx != nil {
		p.GradGx = toX(e.GradGx)
	}
	if e.GradFy != nil {
		p.GradFy = func(dst []float64, pt *Point) error {
			if err := e.GradFy(by, pt); err != nil {
				return err
			}
			my.EGradToRGrad(dst, pt.Y, by)
			return nil
		}
	}
	if e.GradGy != nil {
		p.GradGy = func(dst []float64, pt *Point) error {
			if err := egradY(pt); err != nil {
				return err
			}
			my.EGradToRGrad(dst, pt.Y, gy)
			return nil
		}
	}
	if e.HessGy != nil && IsEuclideanSpace(my) {
		// The conversion is the identity there, with no Weingarten term:
		// no ∇_y g to evaluate first (a crossing, for a callback problem).
		p.HessGy = e.HessGy
	} else if e.HessGy != nil && e.GradGy != nil {
		p.HessGy = func(dst []float64, pt *Point, v []float64) error {
			if err := egradY(pt); err != nil {
				return err
			}
			if err := e.HessGy(hv, pt, v); err != nil {
				return err
			}
			my.EHessToRHess(dst, pt.Y, gy, hv, v)
			return nil
		}
	}
	if e.HessGyBatch != nil && IsEuclideanSpace(my) {
		p.HessGyBatch = e.HessGyBatch
	} else if e.HessGyBatch != nil && e.GradGy != nil {
		n := my.Len()
		p.HessGyBatch = func(dst []float64, pt *Point, v []float64, k int) error {
			if err := egradY(pt); err != nil {
				return err
			}
			if err := e.HessGyBatch(dst, pt, v, k); err != nil {
				return err
			}
			for i := range k { // row i: dst as the Euclidean product, then the Riemannian one
				row := dst[i*n : (i+1)*n]
				copy(hv, row)
				my.EHessToRHess(row, pt.Y, gy, hv, v[i*n:(i+1)*n])
			}
			return nil
		}
	}
	if e.CrossGxy != nil {
		p.CrossGxy = func(dst []float64, pt *Point, v []float64) error {
			if err := e.CrossGxy(bx, pt, v); err != nil {
				return err
			}
			mx.EGradToRGrad(dst, pt.X, bx)
			return nil
		}
	}
	if e.CrossGyx != nil {
		p.CrossGyx = func(dst []float64, pt *Point, u []float64) error {
			if err := e.CrossGyx(by, pt, u); err != nil {
				return err
			}
			my.EGradToRGrad(dst, pt.Y, by)
			return nil
		}
	}
	return p
}
