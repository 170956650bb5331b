package spdnet_test

import (
	"math"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/spdnet"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spectral"
)

// eth is the ETH-80 data with the paper's covariances, loaded once.
var eth = sync.OnceValues(func() (*spdnet.Data, error) { return spdnet.ETH80(spdnet.PaperScale, spdnet.PaperEps) })

func ethData(t testing.TB) *spdnet.Data {
	t.Helper()
	d, err := eth()
	require.NoError(t, err)
	return d
}

// small is a network on the ETH-80 covariances at which every check runs
// fast: W1 ∈ St(100, 6), W2 ∈ St(6, 3), two training sets per class and 16
// validation sets.
var small = spdnet.Config{D1: 6, D2: 3, Lambda: 0.1, Threshold: 1e-4}

// setup returns the problem on the ETH-80 data with perClass training
// sets per class (and at most nval validation sets, 0: all the rest).
func setup(t testing.TB, cfg spdnet.Config, perClass, nval int, seed uint64) (*spdnet.Data, spdnet.Split, *spdnet.Problem, solver.Problem) {
	t.Helper()
	data := ethData(t)
	split, err := spdnet.RandomSplit(data.Labels, data.Classes, perClass, seed)
	require.NoError(t, err)
	if nval > 0 {
		split.Val = split.Val[:nval]
	}
	p, err := spdnet.New(data, split, cfg, seed)
	require.NoError(t, err)
	return data, split, p, p.Bilevel()
}

// at is (x, y) with unknown identities: no cache can match it.

// refFeatures computes φ_i(W) of the matrices idx with gonum's mat and
// lapackx.SymFunc for ReEig and the logarithm, independently of the
// problem's batched path.
func refFeatures(data *spdnet.Data, cfg spdnet.Config, w []float64, idx []int) *mat.Dense {
	d, d1, d2 := data.D, cfg.D1, cfg.D2
	m := d2 * (d2 + 1) / 2
	out := mat.NewDense(len(idx), m, nil)
	W1, W2 := mat.NewDense(d, d1, w[:d*d1]), mat.NewDense(d1, d2, w[d*d1:])
	s1, s2 := lapackx.NewSymFunc(d1), lapackx.NewSymFunc(d2)
	for r, i := range idx {
		A := mat.NewDense(d, d, data.A[i*d*d:(i+1)*d*d])
		var aw, z1, aw2, z2 mat.Dense
		aw.Mul(A, W1)
		z1.Mul(W1.T(), &aw)
		raw := z1.RawMatrix().Data
		lapackx.Symmetrize(raw, d1)
		if err := s1.Apply(raw, raw, spectral.ReEig(cfg.Threshold)); err != nil {
			panic(err)
		}
		aw2.Mul(&z1, W2)
		z2.Mul(W2.T(), &aw2)
		raw = z2.RawMatrix().Data
		lapackx.Symmetrize(raw, d2)
		if err := s2.Log(raw, raw); err != nil {
			panic(err)
		}
		j := 0
		for a := 0; a < d2; a++ {
			for b := a; b < d2; b++ {
				out.Set(r, j, raw[a*d2+b])
				j++
			}
		}
	}
	return out
}

// activeThreshold returns a ReEig threshold between two eigenvalues of the
// W1ᵀA_iW1 at w (the geometric mean of the two around the median of all),
// so that ReEig acts on some eigenvalues of most matrices and stays far
// from every eigenvalue relative to the checks' steps.
func activeThreshold(data *spdnet.Data, split spdnet.Split, cfg spdnet.Config, w []float64) float64 {
	d, d1 := data.D, cfg.D1
	var all []float64
	W1 := mat.NewDense(d, d1, w[:d*d1])
	for _, i := range append(append([]int(nil), split.Train...), split.Val...) {
		var aw, z mat.Dense
		aw.Mul(mat.NewDense(d, d, data.A[i*d*d:(i+1)*d*d]), W1)
		z.Mul(W1.T(), &aw)
		var es mat.EigenSym
		raw := z.RawMatrix().Data
		lapackx.Symmetrize(raw, d1)
		if !es.Factorize(mat.NewSymDense(d1, raw), false) {
			panic("eigen")
		}
		all = append(all, es.Values(nil)...)
	}
	sort.Float64s(all)
	k := len(all) / 2
	// The largest relative gap near the median.
	best, thr := 0.0, 0.0
	for j := k - len(all)/8; j < k+len(all)/8; j++ {
		if g := all[j+1] / all[j]; g > best {
			best, thr = g, math.Sqrt(all[j]*all[j+1])
		}
	}
	return thr
}

// TestFeatures: the problem's features (its batched eigensolvers, ReEig
// and logarithm, its products) match the reference on both sets, at the
// authors' start, at a random W, and with ReEig active.
func TestFeatures(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    spdnet.Config
		random bool
		active bool
	}{{"paper start", spdnet.PaperConfig, false, false}, {"paper random W", spdnet.PaperConfig, true, false},
		{"small random W, ReEig active", small, true, true}} {
		t.Run(c.name, func(t *testing.T) {
			data, split, p, _ := setup(t, c.cfg, 5, 0, 11)
			w, _ := p.Start(0)
			if c.random {
				w = testkit.RandPoint(p.Mx, 1)
			}
			if c.active {
				c.cfg.Threshold = activeThreshold(data, split, c.cfg, w)
				var err error
				p, err = spdnet.New(data, split, c.cfg, 11)
				require.NoError(t, err)
			}
			for _, val := range []bool{false, true} {
				idx := split.Train
				if val {
					idx = split.Val
				}
				got := make([]float64, len(idx)*c.cfg.D2*(c.cfg.D2+1)/2)
				testkit.Must(t, p.Features(got, w, val))
				want := refFeatures(data, c.cfg, w, idx).RawMatrix().Data
				require.Less(t, testkit.Rel(got, want), 1e-12, "validation %v", val)
			}
		})
	}
}

// TestConformance runs the problem suite (every oracle against finite
// differences and Taylor slopes, the cross derivatives' adjointness,
// H(H⁻¹v) = v, caches against fresh evaluations) at a lower point away
// from γ*(W) and at γ*(W): at the authors' start (ReEig inactive, so its
// derivative is the identity), at a random W with ReEig's threshold among
// the eigenvalues (both branches of its Daleckii–Krein matrix in use), and
// at the paper's sizes.
func TestConformance(t *testing.T) {
	for _, c := range []struct {
		name     string
		cfg      spdnet.Config
		perClass int
		nval     int
		random   bool
		active   bool
	}{
		{"small, start", small, 2, 16, false, false},
		{"small, random W, ReEig active", small, 2, 16, true, true},
		{"paper sizes", spdnet.PaperConfig, 5, 0, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if race.Enabled && c.perClass == 5 {
				t.Skip("paper sizes under -race: the small cases run the same code")
			}
			data, split, p, sp := setup(t, c.cfg, c.perClass, c.nval, 5)
			w, g := p.Start(0)
			if c.random {
				w = testkit.RandPoint(p.Mx, 4)
			}
			if c.active {
				c.cfg.Threshold = activeThreshold(data, split, c.cfg, w)
				t.Logf("ReEig threshold %.4g", c.cfg.Threshold)
				var err error
				p, err = spdnet.New(data, split, c.cfg, 5)
				require.NoError(t, err)
				sp = p.Bilevel()
			}
			problemtest.Run(t, sp, problemtest.Config{X: w, Y: g, Seed: 9})
		})
	}
}

// TestReEigActive: with the threshold among the eigenvalues, ReEig changes
// the features (so the active-threshold checks above exercise it): the
// features differ from those of a negligible threshold.
func TestReEigActive(t *testing.T) {
	data, split, p, _ := setup(t, small, 2, 16, 5)
	w := testkit.RandPoint(p.Mx, 4)
	cfg := small
	cfg.Threshold = activeThreshold(data, split, cfg, w)
	q, err := spdnet.New(data, split, cfg, 5)
	require.NoError(t, err)
	a, b := make([]float64, len(split.Train)*6), make([]float64, len(split.Train)*6)
	testkit.Must(t, p.Features(a, w, false))
	testkit.Must(t, q.Features(b, w, false))
	require.Greater(t, testkit.Rel(a, b), 1e-2)
}

// TestObjectives: F and G are the cross-entropies of the reference
// features with the reference softmax (computed here with log-sum-exp),
// plus the ridge in G.
func TestObjectives(t *testing.T) {
	data, split, p, sp := setup(t, small, 3, 0, 3)
	w := testkit.RandPoint(p.Mx, 2)
	_, g := p.Start(0)
	c := data.Classes
	for _, val := range []bool{false, true} {
		idx := split.Train
		if val {
			idx = split.Val
		}
		phi := refFeatures(data, small, w, idx)
		var want float64
		for r, i := range idx {
			want += testkit.CrossEntropy(phi.RawRowView(r), g, c, data.Labels[i]-1) / float64(len(idx))
		}
		f := sp.F
		if !val {
			f = sp.G
			var gg float64
			for _, x := range g {
				gg += x * x
			}
			want += 0.5 * small.Lambda * gg
		}
		got, err := f(testkit.At(w, g))
		testkit.Must(t, err)
		require.InDelta(t, want, got, 1e-12*math.Abs(want), "validation %v", val)
	}
}

// TestLowerSolve: LowerSolve reaches a point where ∇_γ g vanishes (to
// 1e−10 relative), from the start and from far away, and both runs agree
// (g is strongly convex: one minimizer); on a batch it solves that batch's
// problem.
func TestLowerSolve(t *testing.T) {
	_, _, p, sp := setup(t, small, 3, 0, 8)
	w := testkit.RandPoint(p.Mx, 3)
	_, g0 := p.Start(0)
	far := make([]float64, len(g0))
	for i := range far {
		far[i] = 30 * g0[len(g0)-1-i]
	}
	grad := make([]float64, len(g0))
	var sols [][]float64
	for _, batch := range [][]int{nil, {0, 2, 2, 5}} {
		for _, start := range [][]float64{g0, far} {
			ystar := make([]float64, len(g0))
			testkit.Must(t, sp.LowerSolve(ystar, &solver.Point{X: w, Y: start, Batch: batch}))
			testkit.Must(t, sp.GradGy(grad, &solver.Point{X: w, Y: ystar, Batch: batch}))
			var n float64
			for _, x := range grad {
				n += x * x
			}
			require.Less(t, math.Sqrt(n), 1e-10, "batch %v", batch)
			sols = append(sols, ystar)
		}
	}
	require.Less(t, testkit.Rel(sols[1], sols[0]), 1e-10)
	require.Less(t, testkit.Rel(sols[3], sols[2]), 1e-10)
	require.Greater(t, testkit.Rel(sols[2], sols[0]), 1e-3, "a batch's solution is its own")
}

// TestHypergradient: at γ*(W) the HINV and CG hypergradients match the
// central difference of F(W) = f(W, γ*(W)) along retraction curves of the
// product manifold, with γ*(W) from LowerSolve (its optimality is checked
// in TestLowerSolve), at the paper's sizes (small ones under -race).
func TestHypergradient(t *testing.T) {
	cfg := spdnet.PaperConfig
	if race.Enabled {
		cfg = small
	}
	_, _, p, sp := setup(t, cfg, 5, 0, 7)
	w := testkit.RandPoint(p.Mx, 6)
	_, g0 := p.Start(0)
	testkit.HypergradientLower(t, sp, spdnet.Paper.Estimator, w, g0, 1e-6)
}

// TestBatches: an oracle on a batch is the average of its components: the
// whole set as an explicit list gives the nil batch's value, and the batch
// {i, j, j} gives (o_i + 2o_j)/3 for every oracle linear in the
// components.
func TestBatches(t *testing.T) {
	_, split, p, sp := setup(t, small, 3, 12, 13)
	w := testkit.RandPoint(p.Mx, 12)
	_, g := p.Start(0)
	testkit.Batches(t, sp, w, g, len(split.Train), len(split.Val), testkit.RelOrAbs, 1e-13, 1e-12)
}
