package karcher

import (
	"fmt"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
)

// ErrNotConverged signifies a Karcher mean iteration that did not reach
// its tolerance (numerr.ErrNotConverged).
var ErrNotConverged = numerr.New(numerr.ErrNotConverged, "karcher: mean iteration not converged")

// KarcherMean returns the weighted Karcher mean M of the B_i, the
// minimizer of ψ, by Riemannian gradient descent
//
//	M ← Exp_M(−t grad ψ(M)) = Exp_M(t Σ w_i Log_M B_i),
//
// with t = 1 (the classical fixed-point iteration of the mean) halved
// while ψ does not decrease, from the log-Euclidean mean exp(Σ w_i log B_i),
// until ‖grad ψ(M)‖_M ≤ tol·max(1, ‖grad ψ(M0)‖). ψ is 1-strongly convex,
// so ‖grad ψ(M)‖_M bounds d(M, M*). It returns ErrNotConverged after 1000
// steps.
func (p *Problem) KarcherMean(tol float64) ([]float64, error) {
	if !(tol > 0) {
		return nil, fmt.Errorf("%w: karcher: tolerance %v must be positive", numerr.ErrInvalid, tol)
	}
	n := p.n
	m, next, g := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	sf := lapackx.NewSymFunc(n)
	t := make([]float64, n*n)
	for k := 0; k < p.count; k++ {
		if err := sf.Log(t, p.b[k*n*n:(k+1)*n*n]); err != nil {
			return nil, fmt.Errorf("karcher: log B_%d: %w", k, err)
		}
		for i := range m {
			m[i] += p.w[k] * t[i]
		}
	}
	if err := sf.Exp(m, m); err != nil {
		return nil, fmt.Errorf("karcher: log-Euclidean mean: %w", err)
	}
	man := spd.New(n)
	man.Retraction = spd.Exponential
	val := func(y []float64) (float64, float64, error) {
		if err := p.ensureY(y); err != nil {
			return 0, 0, err
		}
		copy(g, p.gpsi)
		return p.psi, man.Norm(y, g), nil
	}
	f, gn, err := val(m)
	if err != nil {
		return nil, err
	}
	stop := tol * max(1, gn)
	for it := 0; it < 1000; it++ {
		if gn <= stop {
			return m, nil
		}
		step := 1.0
		for {
			if err := man.Exp(next, m, g, -step); err != nil {
				return nil, fmt.Errorf("karcher: mean step: %w", err)
			}
			fn, gnn, err := val(next)
			if err != nil {
				return nil, err
			}
			if fn <= f || step < 1e-3 {
				copy(m, next)
				f, gn = fn, gnn
				break
			}
			step /= 2
			if err := p.ensureY(m); err != nil { // g back at m
				return nil, err
			}
			copy(g, p.gpsi)
		}
	}
	return nil, fmt.Errorf("%w: ‖grad ψ‖ = %.3g after 1000 steps (tolerance %.3g)", ErrNotConverged, gn, stop)
}

// Solution returns the known answer: the Karcher mean M of the B_i (by
// KarcherMean to 1e−13), the minimizer x* = log(C^{−½} M C^{−½}) (n×n,
// symmetric) and F* = ψ(M).
func (p *Problem) Solution() (fstar float64, xs, mean []float64, err error) {
	mean, err = p.KarcherMean(1e-13)
	if err != nil {
		return 0, nil, nil, err
	}
	n := p.n
	t, s := append([]float64(nil), mean...), make([]float64, n*n)
	lapackx.Congruence(t, p.cihalf, t, s, n, false)
	sf := lapackx.NewSymFunc(n)
	xs = make([]float64, n*n)
	if err := sf.Log(xs, t); err != nil {
		return 0, nil, nil, fmt.Errorf("karcher: x*: %w", err)
	}
	if err := p.ensureY(mean); err != nil {
		return 0, nil, nil, err
	}
	return p.psi, xs, mean, nil
}
