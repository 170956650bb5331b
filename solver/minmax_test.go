package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// saddle is f(x, y) = ½xᵀPx + xᵀCy − ½yᵀQy + dᵀx, strongly concave in y,
// with max_y f = ½xᵀ(P + CQ⁻¹Cᵀ)x + dᵀx, y*(x) = Q⁻¹Cᵀx.
type saddle struct {
	P, C, Q *mat.Dense
	d       *mat.VecDense
}

func (s *saddle) problem() solver.Problem {
	return solver.Problem{
		F: func(pt *solver.Point) (float64, error) {
			x, y := pt.X, pt.Y
			var px, cy, qy mat.VecDense
			px.MulVec(s.P, vec(x))
			cy.MulVec(s.C, vec(y))
			qy.MulVec(s.Q, vec(y))
			return 0.5*mat.Dot(vec(x), &px) + mat.Dot(vec(x), &cy) - 0.5*mat.Dot(vec(y), &qy) + mat.Dot(s.d, vec(x)), nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error {
			var cy mat.VecDense
			cy.MulVec(s.C, vec(pt.Y))
			v := vec(dst)
			v.MulVec(s.P, vec(pt.X))
			v.AddVec(v, &cy)
			v.AddVec(v, s.d)
			return nil
		},
		GradFy: func(dst []float64, pt *solver.Point) error {
			var qy mat.VecDense
			qy.MulVec(s.Q, vec(pt.Y))
			v := vec(dst)
			v.MulVec(s.C.T(), vec(pt.X))
			v.SubVec(v, &qy)
			return nil
		},
	}
}

// TestMinMaxEuclidean: gradient descent–ascent reaches the saddle point
// x* = −(P + CQ⁻¹Cᵀ)⁻¹d, y* = Q⁻¹Cᵀx*.
func TestMinMaxEuclidean(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 21))
	const p, q = 4, 3
	c := mat.NewDense(p, q, nil)
	c.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() / 2 }, c)
	d := mat.NewVecDense(p, []float64{1, -2, 0.5, 1})
	s := &saddle{P: spdMat(rnd, p, 0.5, 1.5), C: c, Q: spdMat(rnd, q, 1, 2), d: d}
	var qc, h mat.Dense
	if err := qc.Solve(s.Q, c.T()); err != nil {
		t.Fatal(err)
	}
	h.Mul(c, &qc)
	h.Add(&h, s.P)
	var xs, ys mat.VecDense
	require.NoError(t, xs.SolveVec(&h, d))
	xs.ScaleVec(-1, &xs)
	ys.MulVec(&qc, &xs)

	r, err := solver.New(solver.MinMax(on(s.problem(), euclid.New(p, 1), euclid.New(q, 1))), &solver.Settings{Estimator: solver.GDA{}, Epochs: 400, InnerIters: 10, EtaX: 0.2, EtaY: 0.3, GradTol: 1e-10})
	require.NoError(t, err)
	res, err := r.Run(context.Background(), make([]float64, p), make([]float64, q))
	require.NoError(t, err)
	require.Equal(t, solver.GradientThreshold, res.Status)
	require.Less(t, relDiff(res.X, xs.RawVector().Data), 1e-9)
	require.Less(t, relDiff(res.Y, ys.RawVector().Data), 1e-8)
	require.Zero(t, res.Stats.HessVecs+res.Stats.CrossVecs, "GDA uses first-order oracles only")
}

// TestMinMaxSphere: min over the unit sphere of max_y xᵀCy − ½‖y‖² is
// min ½ xᵀCCᵀx, reached at the eigenvector of CCᵀ's least eigenvalue.
func TestMinMaxSphere(t *testing.T) {
	rnd := rand.New(rand.NewPCG(22, 22))
	const n, q = 5, 5          // q = n: C square
	cm := spdMat(rnd, n, 1, 3) // CCᵀ has eigenvalues 1, 2.25, …, 9
	s := &saddle{P: mat.NewDense(n, n, nil), C: cm, Q: eye(q), d: mat.NewVecDense(n, nil)}
	var cct mat.SymDense
	cct.SymOuterK(1, cm)
	var eig mat.EigenSym
	require.True(t, eig.Factorize(&cct, true))
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)

	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = 1 / math.Sqrt(n)
	}
	sphere := stiefel.New(n, 1)
	pr := s.problem()
	egrad := pr.GradFx
	pr.GradFx = func(dst []float64, pt *solver.Point) error {
		if err := egrad(dst, pt); err != nil {
			return err
		}
		sphere.EGradToRGrad(dst, pt.X, dst)
		return nil
	}
	r, err := solver.New(solver.MinMax(on(pr, sphere, euclid.New(q, 1))), &solver.Settings{Estimator: solver.GDA{}, Epochs: 3000, InnerIters: 5, EtaX: 0.5 / vals[n-1], EtaY: 0.5, GradTol: 1e-9})
	require.NoError(t, err)
	res, err := r.Run(context.Background(), x0, make([]float64, q))
	require.NoError(t, err)
	require.Equal(t, solver.GradientThreshold, res.Status, "%v after %d epochs", res.Status, res.Stats.Epochs)
	require.InDelta(t, 0.5*vals[0], res.F, 1e-9)
	align := math.Abs(mat.Dot(vec(res.X), vecs.ColView(0)))
	require.InDelta(t, 1, align, 1e-8)
}

// TestMinMaxSecondOrder: MinMax(p) is an ordinary bilevel problem; at
// y = y*(x) the CG estimator (finite-difference Hessians of −f) and GDA
// give the same hypergradient, the derivative of max_y f.
func TestMinMaxSecondOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 23))
	const p, q = 3, 4
	c := mat.NewDense(p, q, nil)
	c.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, c)
	s := &saddle{P: spdMat(rnd, p, 1, 2), C: c, Q: spdMat(rnd, q, 1, 3), d: mat.NewVecDense(p, []float64{1, 0, -1})}
	x := []float64{0.3, -0.7, 0.2}
	var cx, y mat.VecDense
	cx.MulVec(c.T(), vec(x))
	require.NoError(t, y.SolveVec(s.Q, &cx))
	mx, my := euclid.New(p, 1), euclid.New(q, 1)
	gda := estimateAt(t, solver.MinMax(s.problem()), mx, my, solver.GDA{}, x, y.RawVector().Data, nil)
	cg := estimateAt(t, solver.MinMax(s.problem()), mx, my, &solver.CG{}, x, y.RawVector().Data, nil)
	require.Less(t, relDiff(cg, gda), 1e-8)
	// Away from y*, CG's correction term is what makes it exact.
	y.ScaleVec(0.5, &y)
	gda = estimateAt(t, solver.MinMax(s.problem()), mx, my, solver.GDA{}, x, y.RawVector().Data, nil)
	cg = estimateAt(t, solver.MinMax(s.problem()), mx, my, &solver.CG{}, x, y.RawVector().Data, nil)
	require.Greater(t, relDiff(cg, gda), 1e-3)
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// TestMinMaxMissing: a min-max problem without grad_x f or grad_y f is an
// error at construction, not a panic later.
func TestMinMaxMissing(t *testing.T) {
	s := &saddle{P: eye(2), C: eye(2), Q: eye(2), d: mat.NewVecDense(2, nil)}
	for _, drop := range []string{"GradFx", "GradFy"} {
		p := s.problem()
		if drop == "GradFx" {
			p.GradFx = nil
		} else {
			p.GradFy = nil
		}
		_, err := solver.New(solver.MinMax(on(p, euclid.New(2, 1), euclid.New(2, 1))), &solver.Settings{Estimator: solver.GDA{}})
		require.ErrorIs(t, err, solver.ErrMissing, drop)
	}
}

// TestGDANeedsMinMax: GDA's grad_x f is the hypergradient only where
// g = −f; on any other problem New refuses it (a run would report
// convergence wherever grad_x f vanishes), and on MinMax(p) it runs.
func TestGDANeedsMinMax(t *testing.T) {
	_, p, _, _, _, _ := quadSetup(45)
	_, err := solver.New(p, &solver.Settings{Estimator: solver.GDA{}})
	require.ErrorIs(t, err, solver.ErrBadSetting)
	require.ErrorContains(t, err, "min-max")
	_, err = solver.New(solver.MinMax(p), &solver.Settings{Estimator: solver.GDA{}})
	require.NoError(t, err)
}
