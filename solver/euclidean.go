package solver

// EuclideanProblem gives a bilevel problem by Euclidean oracles, the
// gradients and derivatives of f and g as functions on the ambient spaces
// of Mx and My. Riemannian converts it; each field means what the field
// of the same name in Problem means, with Euclidean in place of
// Riemannian.
type EuclideanProblem struct {
	F func(x, y []float64) float64
	// GradFx and GradFy set dst to ∇_x f and ∇_y f.
	GradFx, GradFy func(dst, x, y []float64)
	G              func(x, y []float64) float64
	// GradGx and GradGy set dst to ∇_x g and ∇_y g.
	GradGx, GradGy func(dst, x, y []float64)
	// HessGyy sets dst to ∇²_yy g[v].
	HessGyy func(dst, x, y, v []float64)
	// CrossGxy sets dst to D_y ∇_x g[v] = ∇²_xy g[v].
	CrossGxy func(dst, x, y, v []float64)
	// CrossGyx sets dst to D_x ∇_y g[u] = ∇²_yx g[u].
	CrossGyx func(dst, x, y, u []float64)
}

// Riemannian returns the Riemannian problem on mx × my:
//
//	grad_x f = mx.EGradToRGrad(∇_x f), and likewise for the other gradients;
//	H_y g[v] = my.EHessToRHess(∇_y g, ∇²_yy g[v], v);
//	G_xy g[v] = mx.EGradToRGrad(D_y ∇_x g[v]):
//
// grad_x g(x, y) = Φ_x(∇_x g(x, y)) with Φ_x the linear map EGradToRGrad at
// x, which does not depend on y, so its derivative in y along v is
// Φ_x(D_y ∇_x g[v]). Likewise G_yx g[u] = D_x(Φ_y(∇_y g))[u] =
// Φ_y(D_x ∇_y g[u]) for u ∈ T_x. A nil Euclidean oracle leaves the
// Riemannian one nil. The returned functions share scratch space: use the
// problem from one goroutine.
func (e EuclideanProblem) Riemannian(mx, my Manifold) Problem {
	bx := make([]float64, mx.Len())
	by1, by2 := make([]float64, my.Len()), make([]float64, my.Len())
	p := Problem{F: e.F, G: e.G}
	if e.GradFx != nil {
		p.GradFx = func(dst, x, y []float64) { e.GradFx(bx, x, y); mx.EGradToRGrad(dst, x, bx) }
	}
	if e.GradFy != nil {
		p.GradFy = func(dst, x, y []float64) { e.GradFy(by1, x, y); my.EGradToRGrad(dst, y, by1) }
	}
	if e.GradGx != nil {
		p.GradGx = func(dst, x, y []float64) { e.GradGx(bx, x, y); mx.EGradToRGrad(dst, x, bx) }
	}
	if e.GradGy != nil {
		p.GradGy = func(dst, x, y []float64) { e.GradGy(by1, x, y); my.EGradToRGrad(dst, y, by1) }
	}
	if e.HessGyy != nil && e.GradGy != nil {
		p.HessGy = func(dst, x, y, v []float64) {
			e.GradGy(by1, x, y)
			e.HessGyy(by2, x, y, v)
			my.EHessToRHess(dst, y, by1, by2, v)
		}
	}
	if e.CrossGxy != nil {
		p.CrossGxy = func(dst, x, y, v []float64) { e.CrossGxy(bx, x, y, v); mx.EGradToRGrad(dst, x, bx) }
	}
	if e.CrossGyx != nil {
		p.CrossGyx = func(dst, x, y, u []float64) { e.CrossGyx(by1, x, y, u); my.EGradToRGrad(dst, y, by1) }
	}
	return p
}
