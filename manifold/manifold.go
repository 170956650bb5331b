// Package manifold is the small interface a new rhgd manifold writes, and
// the embeddable defaults that complete it into the wide one the solver
// calls (solver.Manifold: 14 methods, allocation-free).
//
// A manifold writes what is its own mathematics, Core: its size, metric,
// tangent projection, Hessian conversion, retraction, random point and
// Clone. It embeds one of two structs for the rest:
//
//   - Embedded, for a submanifold of R^Len with the induced (Euclidean)
//     metric: EGradToRGrad is Project, and the connection is the projected
//     derivative, so there is no solver.Connection to write;
//   - Defaults, for any other metric (the Fisher metric of package
//     simplex): the manifold writes EGradToRGrad and ConnectionTerm
//     (Metric), which Init requires at compile time, because the solver's
//     finite-difference Hessian (solver.FillFD) is wrong without the
//     connection.
//
// Both fill Norm = √Inner, Transport by projection onto the tangent space
// at the destination, RandTangent as a projected Gaussian normalized,
// CheckTangent as the projection residual, and CheckPoint as the length
// and finite entries.
//
// # Point checks
//
// The solver checks its starting points with CheckPoint, and no check of
// membership follows from Core. The default accepts every finite vector of
// the right length, which is right for an open subset of R^Len without
// constraints and nothing else: a manifold with equations or inequalities
// (Stiefel's XᵀX = I, the simplex's positive entries summing to one)
// writes its own CheckPoint, and manifoldtest.Options.BadPoint tests it.
//
// # Capabilities
//
// A method the manifold writes shadows the embedded one, so it may replace
// any default (a faster Transport, a closed-form RandTangent). Its optional
// capabilities (solver.Exper, Logger, Distancer, Connection, Whitener,
// Snapper, EuclideanSpace, RetractionChooser) are methods of its own type:
// the solver sees them, and its concrete type, with no forwarding. The
// embedded structs add none.
//
// # Use
//
//	type Sphere struct {
//		manifold.Embedded
//		n int
//	}
//
//	func New(n int) *Sphere { s := &Sphere{n: n}; s.Init(s); return s }
//
//	func (s *Sphere) Clone() any { return New(s.n) }
//
//	// Len, Dim, Inner, Project, EHessToRHess, Retract, RandPoint: the
//	// sphere's own, and CheckPoint (‖x‖ = 1).
//
// Init is called once the manifold's size is set: it keeps the manifold to
// call back and sizes the scratch. A copy made by value calls back the
// original and shares its scratch, so Clone builds a new value and calls
// Init on it, as New does.
package manifold

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"

	"github.com/rhgd/rhgd/numerr"
)

// Core is what every manifold writes: the methods of solver.Manifold that
// are its own mathematics. The comments there say what each computes.
type Core interface {
	Len() int
	Dim() int
	Inner(x, u, v []float64) float64
	Project(dst, x, v []float64)
	EHessToRHess(dst, x, egrad, ehess, u []float64)
	Retract(dst, x, u []float64, t float64) error
	RandPoint(dst []float64, rnd *rand.Rand)
	Clone() any
}

// Metric is a Core whose metric is not the one induced by R^Len: it
// converts Euclidean gradients itself (grad f = G(x)⁻¹∇f projected, for
// a metric matrix G(x)) and gives the term of its Levi-Civita connection
// that the projected derivative lacks (solver.Connection).
type Metric interface {
	Core
	EGradToRGrad(dst, x, egrad []float64)
	ConnectionTerm(dst, x, u, v []float64)
}

// DefaultTol bounds the default CheckTangent's residual ‖u − P_x(u)‖₂
// relative to ‖u‖₂: a projection computed in floating point leaves a few
// units of roundoff, a vector off the tangent space far more.
const DefaultTol = 1e-10

// ErrNotTangent signifies a vector that Project moves by more than
// DefaultTol relative; errors.Is also matches it to numerr.ErrInvalid.
var ErrNotTangent = numerr.New(numerr.ErrInvalid, "not a tangent vector")

// Defaults completes a Metric into a solver.Manifold: embed it, and call
// Init from the constructor and from Clone. Not safe for concurrent use:
// it owns scratch, as the manifold does.
type Defaults struct {
	m   Core
	tmp []float64 // RandTangent's Gaussian, CheckTangent's projection
	pkg string    // the manifold's package name, which errors start with
}

// Init makes d call back m, the manifold that embeds it, and sizes its
// scratch to m.Len().
func (d *Defaults) Init(m Metric) { d.init(m) }

func (d *Defaults) init(m Core) {
	d.m, d.tmp, d.pkg = m, make([]float64, m.Len()), "manifold"
	t := reflect.TypeOf(m)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p := t.PkgPath(); p != "" {
		d.pkg = p[strings.LastIndex(p, "/")+1:]
	}
}

// core returns the manifold, or panics with the fix when Init was not
// called (a nil-pointer panic would not say which).
func (d *Defaults) core() Core {
	if d.m == nil {
		panic("manifold: Defaults used before Init: call Init from the manifold's constructor and Clone")
	}
	return d.m
}

// Norm returns √Inner(x, u, u).
func (d *Defaults) Norm(x, u []float64) float64 { return math.Sqrt(d.core().Inner(x, u, u)) }

// Transport sets dst = Project(y, u), the transport by projection onto the
// tangent space at y (not isometric in general). dst may be u when the
// manifold's Project allows dst = v.
func (d *Defaults) Transport(dst, x, y, u []float64) { d.core().Project(dst, y, u) }

// RandTangent sets dst to the projection at x of a standard Gaussian
// vector, normalized to unit norm.
func (d *Defaults) RandTangent(dst, x []float64, rnd *rand.Rand) {
	m := d.core()
	for i := range d.tmp {
		d.tmp[i] = rnd.NormFloat64()
	}
	m.Project(dst, x, d.tmp)
	if nrm := d.Norm(x, dst); nrm > 0 {
		for i := range dst {
			dst[i] /= nrm
		}
	}
}

// CheckPoint returns an error unless x has length Len and finite entries:
// see the package documentation for the manifolds that need more.
func (d *Defaults) CheckPoint(x []float64) error { return d.finite("point", x) }

// CheckTangent returns an error unless x and u have length Len, u is
// finite, and ‖u − P_x(u)‖₂ ≤ DefaultTol·‖u‖₂.
func (d *Defaults) CheckTangent(x, u []float64) error {
	if err := d.finite("tangent vector", u); err != nil {
		return err
	}
	if n := d.m.Len(); len(x) != n {
		return fmt.Errorf("%s: point has length %d, want %d", d.pkg, len(x), n)
	}
	d.m.Project(d.tmp, x, u)
	var r, nu float64
	for i, v := range u {
		r = math.Hypot(r, v-d.tmp[i])
		nu = math.Hypot(nu, v)
	}
	if !(r <= DefaultTol*nu) { // a NaN residual (x not finite) fails too
		return fmt.Errorf("%s: %w: ‖u − P_x(u)‖₂ = %.3g with ‖u‖₂ = %.3g", d.pkg, ErrNotTangent, r, nu)
	}
	return nil
}

// finite returns an error unless v has length Len and finite entries.
func (d *Defaults) finite(what string, v []float64) error {
	if n := d.core().Len(); len(v) != n {
		return fmt.Errorf("%s: %s has length %d, want %d", d.pkg, what, len(v), n)
	}
	for i, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("%s: %w: %s[%d] = %v", d.pkg, numerr.ErrNotFinite, what, i, a)
		}
	}
	return nil
}

// Embedded is Defaults for a submanifold of R^Len with the induced
// metric, where the Riemannian gradient is the projected Euclidean one.
type Embedded struct{ Defaults }

// Init makes e call back m, the manifold that embeds it, and sizes its
// scratch to m.Len(). m need write no EGradToRGrad or ConnectionTerm.
func (e *Embedded) Init(m Core) { e.init(m) }

// EGradToRGrad sets dst = Project(x, egrad), the gradient in the induced
// metric. dst may be egrad when the manifold's Project allows dst = v.
func (e *Embedded) EGradToRGrad(dst, x, egrad []float64) { e.core().Project(dst, x, egrad) }
