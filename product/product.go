// Package product is the product M₁ × M₂ × … × M_k of rhgd manifolds with
// the product metric ⟨(u₁,…,u_k), (v₁,…,v_k)⟩ = Σ ⟨u_i, v_i⟩_{M_i}: a point
// or tangent vector is the concatenation of the factors' slices, in order,
// so a problem on several matrices (two Stiefel factors and a Euclidean
// head, say) is one flat slice to the solver. Part views one factor's
// piece without copying.
//
// Every operation acts factor by factor. The exponential map, logarithm
// and distance are those of the product metric; the type has them always,
// and they return ErrUnsupported when a factor lacks one (Supports, and
// solver.AsExper and its siblings, say which work). The Levi-Civita
// connection term is each factor's, zero for a factor with the induced
// metric, so the product always implements solver.Connection.
//
// Unlike the base manifolds, this package imports solver, for the
// interfaces its factors satisfy. Slices of the wrong length panic, as in
// gonum; a Product is not safe for concurrent use (its factors are not).
package product

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// ErrUnsupported signifies an optional operation (Exp, Log, Dist) that a
// factor does not have.
var ErrUnsupported = numerr.New(numerr.ErrInvalid, "product: operation not supported by every factor")

// Product is M₁ × … × M_k.
type Product struct {
	ms  []solver.Manifold
	off []int // factor i occupies [off[i], off[i+1])
	dim int
}

var (
	_ solver.Manifold   = (*Product)(nil)
	_ solver.Connection = (*Product)(nil)
	_ solver.Exper      = (*Product)(nil)
	_ solver.Logger     = (*Product)(nil)
	_ solver.Distancer  = (*Product)(nil)
	_ solver.Partial    = (*Product)(nil)
	_ solver.Snapper    = (*Product)(nil)

	_ solver.EuclideanSpace = (*Product)(nil)
)

// New returns the product of the given manifolds, which it uses (not
// copies); it panics without factors or with a nil one.
func New(ms ...solver.Manifold) *Product {
	if len(ms) == 0 {
		panic("product: no factors")
	}
	p := &Product{ms: append([]solver.Manifold(nil), ms...), off: make([]int, len(ms)+1)}
	for i, m := range ms {
		if m == nil {
			panic(fmt.Sprintf("product: factor %d is nil", i))
		}
		p.off[i+1] = p.off[i] + m.Len()
		p.dim += m.Dim()
	}
	return p
}

// Factors returns the number of factors.
func (p *Product) Factors() int { return len(p.ms) }

// Factor returns factor i.
func (p *Product) Factor(i int) solver.Manifold { return p.ms[i] }

// Part returns factor i's piece of the point or tangent v (a view: writes
// go to v).
func (p *Product) Part(v []float64, i int) []float64 {
	p.check(v)
	return v[p.off[i]:p.off[i+1]:p.off[i+1]]
}

func (p *Product) check(v ...[]float64) {
	for _, x := range v {
		if len(x) != p.off[len(p.ms)] {
			panic(fmt.Sprintf("product: slice of length %d, want %d", len(x), p.off[len(p.ms)]))
		}
	}
}

// part is Part without the check.
func (p *Product) part(v []float64, i int) []float64 { return v[p.off[i]:p.off[i+1]] }

// Len returns the total length of the factors' slices.
func (p *Product) Len() int { return p.off[len(p.ms)] }

// Dim returns the sum of the factors' dimensions.
func (p *Product) Dim() int { return p.dim }

// Inner returns Σ ⟨u_i, v_i⟩.
func (p *Product) Inner(x, u, v []float64) float64 {
	p.check(x, u, v)
	var s float64
	for i, m := range p.ms {
		s += m.Inner(p.part(x, i), p.part(u, i), p.part(v, i))
	}
	return s
}

// Norm returns ‖u‖_x.
func (p *Product) Norm(x, u []float64) float64 { return math.Sqrt(p.Inner(x, u, u)) }

// Project projects each factor's piece.
func (p *Product) Project(dst, x, v []float64) {
	p.check(dst, x, v)
	for i, m := range p.ms {
		m.Project(p.part(dst, i), p.part(x, i), p.part(v, i))
	}
}

// EGradToRGrad converts each factor's piece.
func (p *Product) EGradToRGrad(dst, x, egrad []float64) {
	p.check(dst, x, egrad)
	for i, m := range p.ms {
		m.EGradToRGrad(p.part(dst, i), p.part(x, i), p.part(egrad, i))
	}
}

// EHessToRHess converts each factor's piece: the product's Hessian is
// block-diagonal in the metric's sense, its off-diagonal blocks being
// those of the Euclidean Hessian, which ehess carries.
func (p *Product) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	p.check(dst, x, egrad, ehess, u)
	for i, m := range p.ms {
		m.EHessToRHess(p.part(dst, i), p.part(x, i), p.part(egrad, i), p.part(ehess, i), p.part(u, i))
	}
}

// Retract retracts each factor with its own retraction; an error names
// the factor.
func (p *Product) Retract(dst, x, u []float64, t float64) error {
	p.check(dst, x, u)
	for i, m := range p.ms {
		if err := m.Retract(p.part(dst, i), p.part(x, i), p.part(u, i), t); err != nil {
			return fmt.Errorf("product: factor %d: %w", i, err)
		}
	}
	return nil
}

// Transport transports each factor's piece.
func (p *Product) Transport(dst, x, y, u []float64) {
	p.check(dst, x, y, u)
	for i, m := range p.ms {
		m.Transport(p.part(dst, i), p.part(x, i), p.part(y, i), p.part(u, i))
	}
}

// ConnectionTerm is each factor's term, zero for a factor that is not a
// solver.Connection (induced metric).
func (p *Product) ConnectionTerm(dst, x, u, v []float64) {
	p.check(dst, x, u, v)
	for i, m := range p.ms {
		if c, ok := m.(solver.Connection); ok {
			c.ConnectionTerm(p.part(dst, i), p.part(x, i), p.part(u, i), p.part(v, i))
		} else {
			clear(p.part(dst, i))
		}
	}
}

// RandPoint draws each factor's point.
func (p *Product) RandPoint(dst []float64, rnd *rand.Rand) {
	p.check(dst)
	for i, m := range p.ms {
		m.RandPoint(p.part(dst, i), rnd)
	}
}

// RandTangent draws a unit tangent in each factor and scales the whole to
// unit norm.
func (p *Product) RandTangent(dst, x []float64, rnd *rand.Rand) {
	p.check(dst, x)
	for i, m := range p.ms {
		m.RandTangent(p.part(dst, i), p.part(x, i), rnd)
	}
	s := 1 / p.Norm(x, dst)
	for i := range dst {
		dst[i] *= s
	}
}

// CheckPoint checks each factor's piece; an error names the factor.
func (p *Product) CheckPoint(x []float64) error {
	if len(x) != p.Len() {
		return fmt.Errorf("product: %w: point of length %d, want %d", numerr.ErrInvalid, len(x), p.Len())
	}
	for i, m := range p.ms {
		if err := m.CheckPoint(p.part(x, i)); err != nil {
			return fmt.Errorf("product: factor %d: %w", i, err)
		}
	}
	return nil
}

// SnapPoint implements solver.Snapper factor by factor (solver.SnapPoint):
// a factor's piece within float32 rounding of that factor is projected
// onto it. The note joins the factors' notes, each naming its factor; an
// error names the factor. dst may be x.
func (p *Product) SnapPoint(dst, x []float64) (string, error) {
	if len(x) != p.Len() {
		return "", fmt.Errorf("product: %w: point of length %d, want %d", numerr.ErrInvalid, len(x), p.Len())
	}
	p.check(dst)
	copy(dst, x)
	var notes []string
	for i, m := range p.ms {
		note, err := solver.SnapPoint(m, p.part(dst, i))
		if err != nil {
			return "", fmt.Errorf("product: factor %d: %w", i, err)
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("factor %d: %s", i, note))
		}
	}
	return strings.Join(notes, "; "), nil
}

// CheckTangent checks each factor's piece; an error names the factor.
func (p *Product) CheckTangent(x, u []float64) error {
	if len(x) != p.Len() || len(u) != p.Len() {
		return fmt.Errorf("product: %w: slices of length %d and %d, want %d", numerr.ErrInvalid, len(x), len(u), p.Len())
	}
	for i, m := range p.ms {
		if err := m.CheckTangent(p.part(x, i), p.part(u, i)); err != nil {
			return fmt.Errorf("product: factor %d: %w", i, err)
		}
	}
	return nil
}

// Clone returns a product of clones of the factors.
func (p *Product) Clone() any {
	ms := make([]solver.Manifold, len(p.ms))
	for i, m := range p.ms {
		ms[i] = solver.Clone(m)
	}
	return New(ms...)
}

// Supports reports whether every factor has the optional method.
func (p *Product) Supports(method solver.Method) bool {
	for _, m := range p.ms {
		if !solver.HasMethod(m, method) {
			return false
		}
	}
	return true
}

// IsEuclideanSpace reports whether every factor is a Euclidean space
// (solver.IsEuclideanSpace): the product of such spaces is one, with the
// concatenated coordinates (its Inner sums the factors' inner products, a
// Frobenius product up to the order of the additions).
func (p *Product) IsEuclideanSpace() bool {
	for _, m := range p.ms {
		if !solver.IsEuclideanSpace(m) {
			return false
		}
	}
	return true
}

// unsupported names the factors lacking method.
func (p *Product) unsupported(method solver.Method) error {
	var lack []string
	for i, m := range p.ms {
		if !New(m).Supports(method) {
			lack = append(lack, fmt.Sprintf("%d (%T)", i, m))
		}
	}
	return fmt.Errorf("%w: %s: factor %s", ErrUnsupported, method, strings.Join(lack, ", "))
}

// Exp sets dst = Exp_x(t·u), the product of the factors' exponential maps.
func (p *Product) Exp(dst, x, u []float64, t float64) error {
	p.check(dst, x, u)
	for i, m := range p.ms {
		e, ok := solver.AsExper(m)
		if !ok {
			return p.unsupported(solver.MethodExp)
		}
		if err := e.Exp(p.part(dst, i), p.part(x, i), p.part(u, i), t); err != nil {
			return fmt.Errorf("product: factor %d: %w", i, err)
		}
	}
	return nil
}

// Log sets dst = Log_x(y), factor by factor.
func (p *Product) Log(dst, x, y []float64) error {
	p.check(dst, x, y)
	for i, m := range p.ms {
		l, ok := solver.AsLogger(m)
		if !ok {
			return p.unsupported(solver.MethodLog)
		}
		if err := l.Log(p.part(dst, i), p.part(x, i), p.part(y, i)); err != nil {
			return fmt.Errorf("product: factor %d: %w", i, err)
		}
	}
	return nil
}

// Dist returns (Σ d_i(x_i, y_i)²)^½, the product metric's distance.
func (p *Product) Dist(x, y []float64) (float64, error) {
	p.check(x, y)
	var s float64
	for i, m := range p.ms {
		d, ok := solver.AsDistancer(m)
		if !ok {
			return 0, p.unsupported(solver.MethodDist)
		}
		di, err := d.Dist(p.part(x, i), p.part(y, i))
		if err != nil {
			return 0, fmt.Errorf("product: factor %d: %w", i, err)
		}
		s += di * di
	}
	return math.Sqrt(s), nil
}
