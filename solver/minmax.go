package solver

import (
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
)

// MinMax returns the bilevel form of the min-max problem
//
//	min_{x ∈ Mx} max_{y ∈ My} f(x, y)
//
// (paper, Appendix: min-max), f geodesically strongly concave in y: the
// lower objective is g = −f, so G, GradGy and GradGx are p's F, GradFy and
// GradFx negated, and NG = NF. Only p's manifolds, NF, F, GradFx and
// GradFy are used: its g-fields describe a different g. New fills the
// second-order oracles by differences if an estimator needs them.
func MinMax(p Problem) Problem {
	q := Problem{Mx: p.Mx, My: p.My, NF: p.NF, NG: p.NF, ZeroSum: true, F: p.F, GradFx: p.GradFx, GradFy: p.GradFy}
	if p.F != nil {
		q.G = func(pt *Point) (float64, error) {
			f, err := p.F(pt)
			return -f, err
		}
	}
	q.GradGy = negated(p.GradFy)
	q.GradGx = negated(p.GradFx)
	return q
}

// negated returns the oracle −o, or nil.
func negated(o func([]float64, *Point) error) func([]float64, *Point) error {
	if o == nil {
		return nil
	}
	return func(dst []float64, pt *Point) error {
		if err := o(dst, pt); err != nil {
			return err
		}
		floats.Scale(-1, dst)
		return nil
	}
}

// GDA is the estimator of min-max problems: ĝrad F(x) = grad_x f(x, y),
// exact at y = y*(x) because grad_y f vanishes there (Danskin). With it
// RHGD is the paper's Algorithm 3, Riemannian gradient descent–ascent: S
// ascent steps in y, then one descent step in x:
//
//	r, err := New(MinMax(p), &Settings{Estimator: GDA{}, EtaY: ...})
type GDA struct{}

// Name returns "gda".
func (GDA) Name() string { return "gda" }

// String returns the spec ParseEstimator reads: "gda".
func (GDA) String() string { return "gda" }

// Needs returns GradFx.
func (GDA) Needs() Oracles { return NewOracles(OracleGradFx) }

// Bind returns GDA's instance, or an error wrapping ErrBadSetting when the
// problem is not a min-max one (Problem.ZeroSum): elsewhere grad_x f alone
// is not the hypergradient, and a run would stop where it vanishes.
func (GDA) Bind(env *Env) (Hypergrad, error) {
	if !env.p.ZeroSum {
		return nil, numerr.Errorf("%w: the gda estimator is for min-max problems (%v); use hinv, cg, ns or ad", ErrBadSetting, termMinMax)
	}
	return gda{env}, nil
}

type gda struct{ env *Env }

func (gda) Reset() {}

func (g gda) Estimate(dst []float64, at *Point) error { return g.env.GradFx(dst, at) }
