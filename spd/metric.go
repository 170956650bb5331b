package spd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
)

// Metric names a Riemannian metric of the SPD manifold. The zero value,
// AffineInvariant, is the default; NewMetric chooses another.
type Metric int

const (
	// AffineInvariant is ⟨U, V⟩_X = tr(X⁻¹ U X⁻¹ V).
	AffineInvariant Metric = iota
	// LogEuclidean is ⟨U, V⟩_X = tr(D log(X)[U] D log(X)[V]), the
	// Frobenius metric pulled back by the matrix logarithm.
	LogEuclidean
	// BuresWasserstein is ⟨U, V⟩_X = ½ tr(L_X[U] V), with L_X[U] the
	// solution L of X L + L X = U.
	BuresWasserstein
)

// metricNames are the names String writes and ParseMetric reads, as the
// C ABI's and Python's metric= spell them.
var metricNames = [...]string{AffineInvariant: "affine-invariant", LogEuclidean: "log-euclidean", BuresWasserstein: "bures-wasserstein"}

// String returns the metric's name: affine-invariant, log-euclidean or
// bures-wasserstein, the name ParseMetric reads.
func (m Metric) String() string { return manifold.EnumName(metricNames[:], "Metric", int(m)) }

// ParseMetric returns the metric a name gives (case-insensitive), one of
// MetricNames. Not manifold.ParseName: its error lists the names with
// commas alone (manifold/spec's TestSPDMetric holds the text).
func ParseMetric(name string) (Metric, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for m, s := range metricNames {
		if s == n {
			return Metric(m), nil
		}
	}
	return 0, fmt.Errorf("spd: unknown metric %q (want %s)", name, strings.Join(MetricNames(), ", "))
}

// MetricNames returns the metrics' names, in the order of their values:
// the first, the zero value's, is the default.
func MetricNames() []string { return slices.Clone(metricNames[:]) }

// NewMetric returns the manifold of n×n SPD matrices with the metric m;
// NewMetric(n, AffineInvariant) is New(n). The metric is fixed for the
// manifold's life: it decides the geometry, where the Retraction and
// TransportMethod fields choose algorithms within it. Under LogEuclidean
// and BuresWasserstein every Retraction is the metric's exponential map
// (closed-form and second order); TransportMethod Parallel is the
// parallel transport under LogEuclidean and has no closed form under
// BuresWasserstein, where Transport panics with it. It panics if n < 1 or
// m is not one of the constants.
func NewMetric(n int, m Metric) *SPD {
	if m < 0 || int(m) >= len(metricNames) {
		panic(fmt.Sprintf("spd: unknown metric %d", int(m)))
	}
	s := New(n)
	if m != AffineInvariant {
		s.metric, s.geom = m, geometries[m]
		s.mw = newMetricWork(n)
		if m == BuresWasserstein {
			s.mw.ref = &eigRefineWork{a: make([]float64, n*n), r: make([]float64, n*n), p: make([]float64, n*n)}
			for i := range s.mw.pts {
				s.mw.pts[i].raw = &eigPoint{v: make([]float64, n*n), d: make([]float64, n*n), lam: make([]float64, n), ell: make([]float64, n)}
			}
		}
	}
	return s
}

// geometry is a metric other than the affine-invariant one: the
// operations that depend on the metric, to which the exported methods of
// the same names hand over after checking their arguments. Each works in
// the eigenbasis of the point (metricWork).
type geometry interface {
	inner(s *SPD, x, u, v []float64) float64
	whiten(s *SPD, dst, x, u []float64) error
	egradToRGrad(s *SPD, dst, x, egrad []float64)
	ehessToRHess(s *SPD, dst, x, egrad, ehess, u []float64)
	connectionTerm(s *SPD, dst, x, u, v []float64)
	exp(s *SPD, dst, x, u []float64, t float64) error
	log(s *SPD, dst, x, y []float64) error
	dist(s *SPD, x, y []float64) (float64, error)
	transport(s *SPD, dst, x, y, u []float64) // TransportMethod Parallel's
}

// geometries are the metrics' geometries, by Metric; the affine-invariant
// one is SPD's own code.
var geometries = [...]geometry{LogEuclidean: logEuclidean{}, BuresWasserstein: buresWasserstein{}}

// Metric returns the manifold's metric.
func (s *SPD) Metric() Metric { return s.metric }

// eigPoint is the eigendecomposition X = Vᵀ diag(λ) V of a point, with
// what its metric needs: ℓ = log λ and d_ij = exp[ℓ_i, ℓ_j], the divided
// differences of exp (log-Euclidean), or d_ij = λ_i + λ_j
// (Bures–Wasserstein).
type eigPoint struct {
	x, v, d  []float64 // the point, V (row i: the eigenvector of λ_i), d
	lam, ell []float64
	ok       bool
	// Under Bures–Wasserstein, when refined (refinePoint), raw holds the
	// decomposition as the eigensolver computed it (v, d, lam and ell;
	// not x), for the logarithm and the distance.
	refined bool
	raw     *eigPoint
}

// metricWork is what the log-Euclidean and Bures–Wasserstein metrics
// keep: the decompositions of the last two points seen (a step needs its
// start and its end), an eigensolver for a second decomposition and
// scratch.
type metricWork struct {
	pts  [2]eigPoint
	last int
	eig  *lapackx.EigSym
	sc   [6][]float64
	// ref: Bures–Wasserstein's refinement of the smallest eigenpairs
	// (refinePoint): the point, exactly symmetric, and the residuals and
	// their products; nil under the other metrics.
	ref *eigRefineWork
}

// eigRefineWork is refinePoint's scratch.
type eigRefineWork struct{ a, r, p []float64 }

func newMetricWork(n int) *metricWork {
	sq := func() []float64 { return make([]float64, n*n) }
	w := &metricWork{eig: lapackx.NewEigSym(n)}
	for i := range w.pts {
		w.pts[i] = eigPoint{x: sq(), v: sq(), d: sq(), lam: make([]float64, n), ell: make([]float64, n)}
	}
	for i := range w.sc {
		w.sc[i] = sq()
	}
	return w
}
