package solver

import (
	"fmt"
	"math/rand/v2"
)

// Manifold is a Riemannian manifold embedded in (or an open subset of) a
// Euclidean space of Len coordinates. Points and tangent vectors are
// []float64 of length Len: a matrix manifold stores its matrices
// row-major, a product (package product) concatenates its factors'.
// Every method writes its result into dst, which must not alias an input
// unless the implementation says so, and allocates nothing. A Manifold owns
// scratch space and is not safe for concurrent use: Clone gives each
// goroutine its own.
//
// Manifold is the contract the solver calls, wide so that no call is
// derived on the fly. A new manifold writes the smaller interface of
// package manifold (manifold.Core: its size, metric, projection, Hessian
// conversion, retraction, random point and Clone) and embeds
// manifold.Defaults or manifold.Embedded, which fill in Norm, Transport,
// RandTangent, CheckPoint, CheckTangent and, for the induced metric,
// EGradToRGrad.
type Manifold interface {
	// Len returns the length of the slices holding a point or a tangent
	// vector.
	Len() int
	// Dim returns the dimension of the manifold.
	Dim() int

	// Inner returns the Riemannian inner product ⟨u, v⟩_x of tangent
	// vectors u and v at x.
	Inner(x, u, v []float64) float64
	// Norm returns ‖u‖_x.
	Norm(x, u []float64) float64
	// Project sets dst to the orthogonal projection (in the metric at x) of
	// the ambient vector v onto the tangent space at x.
	Project(dst, x, v []float64)
	// EGradToRGrad sets dst to the Riemannian gradient at x of a function
	// whose Euclidean gradient there is egrad.
	EGradToRGrad(dst, x, egrad []float64)
	// EHessToRHess sets dst to the Riemannian Hessian at x applied to the
	// tangent u, for a function with Euclidean gradient egrad and Euclidean
	// Hessian-vector product ehess = ∇²f(x)[u].
	EHessToRHess(dst, x, egrad, ehess, u []float64)
	// Retract sets dst to R_x(t·u), the manifold's current retraction. It
	// returns an error, leaving dst unspecified, when the retraction cannot
	// be computed (non-finite input, no convergence).
	Retract(dst, x, u []float64, t float64) error
	// Transport sets dst to the vector transport of the tangent u at x to
	// the tangent space at y.
	Transport(dst, x, y, u []float64)

	// RandPoint sets dst to a random point.
	RandPoint(dst []float64, rnd *rand.Rand)
	// RandTangent sets dst to a random unit-norm tangent vector at x.
	RandTangent(dst, x []float64, rnd *rand.Rand)
	// CheckPoint returns nil if x is a point of the manifold and otherwise
	// an error saying what is wrong and by how much.
	CheckPoint(x []float64) error
	// CheckTangent returns nil if u is a tangent vector at x and otherwise
	// an error saying what is wrong and by how much.
	CheckTangent(x, u []float64) error

	// Clone returns an independent copy with its own scratch space, of the
	// same concrete type. It returns any so that manifold packages need not
	// import this one; the value implements Manifold.
	Clone() any
}

// Exper is a Manifold with a closed-form exponential map.
type Exper interface {
	// Exp sets dst = Exp_x(t·u).
	Exp(dst, x, u []float64, t float64) error
}

// Logger is a Manifold with a closed-form logarithm, the inverse of Exp.
type Logger interface {
	// Log sets dst = Log_x(y), the tangent at x with Exp_x(Log_x(y)) = y.
	Log(dst, x, y []float64) error
}

// Distancer is a Manifold with a closed-form geodesic distance.
type Distancer interface {
	// Dist returns the geodesic distance between x and y.
	Dist(x, y []float64) (float64, error)
}

// Method names an optional Manifold method that a composite manifold may
// have only in part (Partial).
type Method uint8

// The optional methods Partial reports on.
const (
	MethodExp  Method = iota // Exper.Exp
	MethodLog                // Logger.Log
	MethodDist               // Distancer.Dist
)

// String returns the method's name: Exp, Log or Dist.
func (m Method) String() string {
	switch m {
	case MethodExp:
		return "Exp"
	case MethodLog:
		return "Log"
	case MethodDist:
		return "Dist"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Partial is implemented by a composite manifold (a product) whose type
// has every optional method but whose parts may lack some: those methods
// then return an error. Supports reports whether the method works;
// AsExper, AsLogger and AsDistancer consult it, so use them rather than a
// bare type assertion.
type Partial interface {
	Supports(method Method) bool
}

// AsExper returns m as an Exper when it has a working exponential map.
func AsExper(m Manifold) (Exper, bool) {
	e, ok := m.(Exper)
	return e, ok && supports(m, MethodExp)
}

// AsLogger returns m as a Logger when it has a working logarithm.
func AsLogger(m Manifold) (Logger, bool) {
	l, ok := m.(Logger)
	return l, ok && supports(m, MethodLog)
}

// AsDistancer returns m as a Distancer when it has a working distance.
func AsDistancer(m Manifold) (Distancer, bool) {
	d, ok := m.(Distancer)
	return d, ok && supports(m, MethodDist)
}

// HasMethod reports whether m has the optional method working, as
// AsExper, AsLogger and AsDistancer decide.
func HasMethod(m Manifold, method Method) bool {
	var ok bool
	switch method {
	case MethodExp:
		_, ok = AsExper(m)
	case MethodLog:
		_, ok = AsLogger(m)
	case MethodDist:
		_, ok = AsDistancer(m)
	}
	return ok
}

func supports(m Manifold, method Method) bool {
	p, ok := m.(Partial)
	return !ok || p.Supports(method)
}

// RetractionChooser is a Manifold with several retractions chosen by name
// (stiefel's qr, polar, cayley and exp; spd's second-order and exp), so
// that a front end (the CLI's -retr-x and -retr-y) chooses one without
// knowing the manifold's type. The choice is made in place, as a setting
// of the manifold (stiefel.Stiefel.Retraction), not by a copy: the
// problem's oracles and a product's factors hold the manifold itself.
// Use AsRetractionChooser rather than a bare type assertion.
type RetractionChooser interface {
	// Retractions returns the names SetRetraction takes, in the
	// manifold's order: none when the type has the methods but the value
	// has one retraction only (a wrapper that embeds a chooser).
	Retractions() []string
	// RetractionName returns the name of the retraction Retract uses.
	RetractionName() string
	// SetRetraction makes the named retraction (case-insensitive) the one
	// Retract uses. An unknown name is an error that lists the names,
	// and leaves the retraction as it was.
	SetRetraction(name string) error
}

// AsRetractionChooser returns m as a RetractionChooser when it offers a
// choice of retractions.
func AsRetractionChooser(m Manifold) (RetractionChooser, bool) {
	c, ok := m.(RetractionChooser)
	return c, ok && len(c.Retractions()) > 0
}

// EuclideanSpace is a Manifold that is its whole ambient space R^Len with
// the Frobenius inner product: Project, EGradToRGrad and EHessToRHess
// return their vector argument unchanged, Inner and Norm are the
// Frobenius ones (to the order of the additions), and Retract sets dst[i] = x[i] + t·u[i] entry by entry,
// which is also the exponential map. euclid.Euclidean is one, and so is a
// product whose factors all are. On such a lower manifold the Euclidean
// gradient step y − η·∇_y g is the paper's Riemannian lower step, which is
// what lets the solver run Problem.LowerSteps there (and only there).
type EuclideanSpace interface {
	// IsEuclideanSpace reports whether the manifold is such a space: a
	// composite answers for all its parts.
	IsEuclideanSpace() bool
}

// IsEuclideanSpace reports whether m is a EuclideanSpace that says it is
// one. A wrapper that embeds a Manifold interface hides the method and so
// is not one, which errs on the safe side.
func IsEuclideanSpace(m Manifold) bool {
	e, ok := m.(EuclideanSpace)
	return ok && e.IsEuclideanSpace()
}

// Clone returns m.Clone() as a Manifold.
func Clone(m Manifold) Manifold { return m.Clone().(Manifold) }

// Connection is a Manifold that gives its Levi-Civita connection in
// ambient coordinates: for a tangent field V and u ∈ T_x,
//
//	∇_u V = Project(x, DV(x)[u]) + ConnectionTerm(x, u, V(x)).
//
// Submanifolds with the induced (Euclidean) metric need not implement it:
// their term is zero. The finite-difference Hessian uses it.
type Connection interface {
	// ConnectionTerm sets dst to the term above for tangents u and v at x.
	ConnectionTerm(dst, x, u, v []float64)
}

// Whitener is a Manifold whose metric at x is the Euclidean inner product
// of linear coordinates of its tangent vectors. CG and Neumann keep such
// coordinates of their iterates, updated by the same linear recurrences,
// so that each inner product is a sum over entries instead of the
// metric's products (on SPD, one n³ reduction per Hessian product
// instead of two or three n×n GEMMs per inner product).
type Whitener interface {
	// Whiten sets dst (of length Len) to the coordinates c(u) of the
	// tangent u at x: linear in u, with ⟨u, v⟩_x = Σ_i c(u)_i c(v)_i. It
	// returns an error when the metric at x cannot be formed (x not a
	// point).
	Whiten(dst, x, u []float64) error
}
