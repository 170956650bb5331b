package spd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rhgd/rhgd/spd"
)

// stepConfigs are the geometries BenchmarkSPDStep compares: the default
// (affine-invariant, second-order retraction, identity transport), the
// affine-invariant exponential with parallel transport, and the other
// metrics with their transports.
var stepConfigs = []struct {
	name string
	m    spd.Metric
	r    spd.Retraction
	tr   spd.TransportMethod
}{
	{"affine-invariant,second-order,identity", spd.AffineInvariant, spd.SecondOrder, spd.Identity},
	{"affine-invariant,exp,parallel", spd.AffineInvariant, spd.Exponential, spd.Parallel},
	{"log-euclidean,exp,identity", spd.LogEuclidean, spd.Exponential, spd.Identity},
	{"log-euclidean,exp,parallel", spd.LogEuclidean, spd.Exponential, spd.Parallel},
	{"bures-wasserstein,exp,identity", spd.BuresWasserstein, spd.Exponential, spd.Identity},
}

// BenchmarkSPDStep is one gradient step of a solver on SPD: the Euclidean
// gradient of f(X) = ½‖X − X₀‖²_F + 0.1⟨G_k, X⟩ (G_k from a pool of 8
// random symmetric matrices, so that iterates never repeat), its
// conversion EGradToRGrad, the retraction y = R_x(−0.01 grad) and the
// transport of the gradient to y; then y is the next x, as in a solver,
// so each metric's caches help as much as they would there.
func BenchmarkSPDStep(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		for _, c := range stepConfigs {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				m := spd.NewMetric(n, c.m)
				m.Retraction, m.TransportMethod = c.r, c.tr
				rnd := rand.New(rand.NewPCG(7, uint64(n)))
				x0, x, y := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
				m.RandPoint(x0, rnd)
				copy(x, x0)
				var gs [8][]float64
				for k := range gs {
					gs[k] = make([]float64, n*n)
					m.RandTangent(gs[k], x0, rnd)
				}
				eg, rg, tg := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
				k := 0
				for b.Loop() {
					g := gs[k%len(gs)]
					for i := range eg {
						eg[i] = x[i] - x0[i] + 0.1*g[i]
					}
					m.EGradToRGrad(rg, x, eg)
					if err := m.Retract(y, x, rg, -0.01); err != nil {
						b.Fatal(err)
					}
					m.Transport(tg, x, y, rg)
					x, y = y, x
					k++
				}
			})
		}
	}
}

// BenchmarkSPDMetricHess is EHessToRHess at one point under each metric
// (the lower problem's Hessian-vector product of CG and Neumann).
func BenchmarkSPDMetricHess(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		for _, mt := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
			b.Run(fmt.Sprintf("%v/n=%d", mt, n), func(b *testing.B) {
				b.ReportAllocs()
				m := spd.NewMetric(n, mt)
				rnd := rand.New(rand.NewPCG(9, uint64(n)))
				x, g, h, u, dst := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
				m.RandPoint(x, rnd)
				m.RandTangent(g, x, rnd)
				m.RandTangent(h, x, rnd)
				m.RandTangent(u, x, rnd)
				for b.Loop() {
					m.EHessToRHess(dst, x, g, h, u)
				}
			})
		}
	}
}

// BenchmarkSPDBuresNewPoint is the Bures–Wasserstein norm ⟨U, U⟩_X at a
// point not in the eigen cache (three points in turn; the cache keeps
// two): one eigendecomposition of X, with the refinement of its smallest
// eigenpairs at κ = 10⁸ (none at κ = 10, below the threshold), and one
// congruence.
func BenchmarkSPDBuresNewPoint(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		for _, kappa := range []float64{10, 1e8} {
			b.Run(fmt.Sprintf("kappa=%g/n=%d", kappa, n), func(b *testing.B) {
				b.ReportAllocs()
				m := spd.NewMetric(n, spd.BuresWasserstein)
				rnd := rand.New(rand.NewPCG(11, uint64(n)))
				var xs [3][]float64
				for k := range xs {
					xs[k] = spd.CondPoint(n, kappa, rnd)
				}
				u := make([]float64, n*n)
				m.RandTangent(u, xs[0], rnd)
				k := 0
				for b.Loop() {
					m.Inner(xs[k%len(xs)], u, u)
					k++
				}
			})
		}
	}
}

// BenchmarkSPDBuresLog is the Bures–Wasserstein logarithm and distance
// from a point X (in the eigen cache after the first call) to a nearby
// Y = Exp_X(U) at κ(X) = 10 (n = 10 to 1000) and at κ(X) = 10⁸ (n = 200,
// op=log-k1e8 and dist-k1e8): a congruence, the square root of
// X^½ Y X^½ in X's eigenbasis (one eigendecomposition) and, for Log, a
// congruence back.
func BenchmarkSPDBuresLog(b *testing.B) {
	for _, c := range []struct {
		n      int
		kappa  float64
		suffix string
	}{{10, 10, ""}, {50, 10, ""}, {200, 10, ""}, {500, 10, ""}, {1000, 10, ""}, {200, 1e8, "-k1e8"}} {
		n := c.n
		m := spd.NewMetric(n, spd.BuresWasserstein)
		rnd := rand.New(rand.NewPCG(13, uint64(n)))
		x, u, y, dst := spd.CondPoint(n, c.kappa, rnd), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		m.RandTangent(u, x, rnd)
		s := 0.3 / math.Sqrt(m.Inner(x, u, u))
		if err := m.Exp(y, x, u, s); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("op=log%s/n=%d", c.suffix, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Log(dst, x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("op=dist%s/n=%d", c.suffix, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Dist(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
