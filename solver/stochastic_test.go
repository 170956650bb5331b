package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/solver"
)

// squad is a finite-sum Euclidean bilevel problem with N components
//
//	f_i(x, y) = ½ yᵀQy + c_iᵀy + ½ xᵀRx + dᵀx,   g_i(x, y) = ½ yᵀA_i y − yᵀB_i x,
//
// each A_i positive definite, so that every minibatch's Hessian is
// invertible. Its averages form the quad problem mean, with closed-form
// hypergradient. The oracles allocate nothing.
type squad struct {
	p, q, n int
	A, B    [][]float64 // q×q, q×p row-major
	C       [][]float64 // c_i
	mean    *quad
	t1, t2  []float64
}

func newSquad(rnd *rand.Rand, p, q, n int) *squad {
	base := newQuad(rnd, p, q, 1, 3)
	s := &squad{p: p, q: q, n: n, t1: make([]float64, q), t2: make([]float64, q)}
	abar, bbar := mat.NewDense(q, q, nil), mat.NewDense(q, p, nil)
	cbar := mat.NewVecDense(q, nil)
	for i := 0; i < n; i++ {
		a := spdMat(rnd, q, 0.5, 4)
		b := mat.NewDense(q, p, nil)
		b.Apply(func(_, _ int, v float64) float64 { return v + 0.5*rnd.NormFloat64() }, base.B)
		c := mat.NewVecDense(q, nil)
		for k := 0; k < q; k++ {
			c.SetVec(k, base.c.AtVec(k)+rnd.NormFloat64())
		}
		s.A = append(s.A, a.RawMatrix().Data)
		s.B = append(s.B, b.RawMatrix().Data)
		s.C = append(s.C, c.RawVector().Data)
		abar.Add(abar, a)
		bbar.Add(bbar, b)
		cbar.AddVec(cbar, c)
	}
	abar.Scale(1/float64(n), abar)
	bbar.Scale(1/float64(n), bbar)
	cbar.ScaleVec(1/float64(n), cbar)
	s.mean = &quad{p: p, q: q, Q: base.Q, R: base.R, A: abar, B: bbar, c: cbar, d: base.d}
	return s
}

// matvec adds alpha·M v (or Mᵀv) to dst for the r×c row-major M.
func matvec(dst []float64, alpha float64, m []float64, r, c int, trans bool, v []float64) {
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if trans {
				dst[j] += alpha * m[i*c+j] * v[i]
			} else {
				dst[i] += alpha * m[i*c+j] * v[j]
			}
		}
	}
}

// problem returns the finite-sum problem; its oracles average over the
// point's batch (every component when it is nil).
func (s *squad) problem() solver.Problem {
	q, p := s.q, s.p
	Q, R := s.mean.Q.RawMatrix().Data, s.mean.R.RawMatrix().Data
	d := s.mean.d.RawVector().Data
	all := make([]int, s.n)
	for i := range all {
		all[i] = i
	}
	batch := func(pt *solver.Point) []int {
		if pt.Batch == nil {
			return all
		}
		return pt.Batch
	}
	return solver.Problem{
		Mx: euclid.New(p, 1), My: euclid.New(q, 1),
		NF: s.n, NG: s.n,
		F: func(pt *solver.Point) (float64, error) {
			x, y, b := pt.X, pt.Y, batch(pt)
			clear(s.t1)
			matvec(s.t1, 1, Q, q, q, false, y)
			v := 0.5 * floats.Dot(y, s.t1)
			for _, i := range b {
				v += floats.Dot(s.C[i], y) / float64(len(b))
			}
			xt := s.t2[:p]
			clear(xt)
			matvec(xt, 1, R, p, p, false, x)
			return v + 0.5*floats.Dot(x, xt) + floats.Dot(d, x), nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error {
			copy(dst, d)
			matvec(dst, 1, R, p, p, false, pt.X)
			return nil
		},
		GradFy: func(dst []float64, pt *solver.Point) error {
			b := batch(pt)
			clear(dst)
			matvec(dst, 1, Q, q, q, false, pt.Y)
			for _, i := range b {
				for k := range dst {
					dst[k] += s.C[i][k] / float64(len(b))
				}
			}
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			b := batch(pt)
			clear(dst)
			w := 1 / float64(len(b))
			for _, i := range b {
				matvec(dst, w, s.A[i], q, q, false, pt.Y)
				matvec(dst, -w, s.B[i], q, p, false, pt.X)
			}
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			b := batch(pt)
			clear(dst)
			for _, i := range b {
				matvec(dst, -1/float64(len(b)), s.B[i], q, p, true, pt.Y)
			}
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error {
			b := batch(pt)
			clear(dst)
			for _, i := range b {
				matvec(dst, 1/float64(len(b)), s.A[i], q, q, false, v)
			}
			return nil
		},
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			b := batch(pt)
			clear(dst)
			for _, i := range b {
				matvec(dst, -1/float64(len(b)), s.B[i], q, p, true, v)
			}
			return nil
		},
		HessGyInv: func(dst []float64, pt *solver.Point, v []float64) error {
			// Allocates; used outside the allocation test.
			b := batch(pt)
			a := mat.NewDense(q, q, nil)
			for _, i := range b {
				a.Add(a, mat.NewDense(q, q, s.A[i]))
			}
			a.Scale(1/float64(len(b)), a)
			return mat.NewVecDense(q, dst).SolveVec(a, mat.NewVecDense(q, append([]float64(nil), v...)))
		},
	}
}

func squadSetup(seed uint64) (*squad, solver.Manifold, solver.Manifold, []float64, []float64) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	s := newSquad(rnd, 3, 5, 40)
	x0, y0 := make([]float64, 3), make([]float64, 5)
	for i := range x0 {
		x0[i] = rnd.NormFloat64()
	}
	return s, euclid.New(3, 1), euclid.New(5, 1), x0, y0
}

// noiseFloor is the mean true ‖∇F(x_k)‖² over the last 200 of 600 RSHGD
// epochs of est on squadSetup(14), with every minibatch of size size (0:
// the whole sums), S = 10, η_x = 0.05 and η_y = 0.2.
func noiseFloor(t *testing.T, est solver.Estimator, size int) float64 {
	t.Helper()
	s, mx, my, x0, y0 := squadSetup(14)
	r, err := solver.New(on(s.problem(), mx, my), withBatches(&solver.Settings{Estimator: est, InnerIters: 10, EtaX: 0.05, EtaY: 0.2, Seed: 3}, solver.Batches{Lower: size, Upper: size, Cross: size, Hess: size}))
	require.NoError(t, err)
	require.NoError(t, r.Reset(x0, y0))
	var sum float64
	for k := 0; k < 600; k++ {
		_, err := r.Step()
		require.NoError(t, err)
		if k >= 400 {
			g := norm2(s.mean.exactHyper(r.X(), s.mean.ystar(r.X())))
			sum += g * g
		}
	}
	return sum / 200
}

// TestStochasticFullBatches: with zero batch sizes RSHGD is RHGD on the
// averaged problem, to rounding.
func TestStochasticFullBatches(t *testing.T) {
	s, mx, my, x0, y0 := squadSetup(11)
	set := &solver.Settings{Epochs: 30, InnerIters: 5, EtaY: 0.2}
	rs, err := solver.New(on(s.problem(), mx, my), withBatches(with(solver.HInv{}, set), solver.Batches{}))
	require.NoError(t, err)
	got, err := rs.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	want, err := solver.Minimize(context.Background(), on(s.mean.withHINV(s.mean.problem()), mx, my), x0, y0, with(solver.HInv{}, set))
	require.NoError(t, err)
	require.Less(t, relDiff(got.X, want.X), 1e-12)
	require.Less(t, relDiff(got.Y, want.Y), 1e-12)
	require.InDelta(t, want.F, got.F, 1e-12*math.Abs(want.F))
}

// TestStochasticBatches: every oracle sees batches of its set size with
// indices in range, the lower batch is redrawn at every step, and runs
// repeat from the seed and differ across seeds.
func TestStochasticBatches(t *testing.T) {
	s, mx, my, x0, y0 := squadSetup(12)
	sp := s.problem()
	sizes := map[string]int{}
	lowerDraws := map[[3]int]bool{}
	wrap := func(name string, f func([]float64, *solver.Point) error) func([]float64, *solver.Point) error {
		return func(dst []float64, pt *solver.Point) error {
			b := pt.Batch
			for _, i := range b {
				require.True(t, i >= 0 && i < s.n)
			}
			if old, ok := sizes[name]; ok && old != len(b) && name != "GradGy" {
				t.Fatalf("%s saw batches of %d and %d", name, old, len(b))
			}
			sizes[name] = len(b)
			if name == "GradGy" && len(b) == 3 {
				lowerDraws[[3]int{b[0], b[1], b[2]}] = true
			}
			return f(dst, pt)
		}
	}
	sp.GradFx, sp.GradFy, sp.GradGy = wrap("GradFx", sp.GradFx), wrap("GradFy", sp.GradFy), wrap("GradGy", sp.GradGy)
	hess, cross := sp.HessGy, sp.CrossGxy
	sp.HessGy = func(dst []float64, pt *solver.Point, v []float64) error {
		sizes["HessGy"] = len(pt.Batch)
		return hess(dst, pt, v)
	}
	sp.CrossGxy = func(dst []float64, pt *solver.Point, v []float64) error {
		sizes["CrossGxy"] = len(pt.Batch)
		return cross(dst, pt, v)
	}
	f := sp.F
	sp.F = func(pt *solver.Point) (float64, error) { sizes["F"] = len(pt.Batch); return f(pt) }
	b := solver.Batches{Lower: 3, Upper: 4, Cross: 5, Hess: 6, Report: 7}
	set := &solver.Settings{Epochs: 10, InnerIters: 4, Seed: 1}
	run := func(seed uint64) []float64 {
		set.Seed = seed
		r, err := solver.New(on(sp, mx, my), withBatches(with(&solver.CG{}, set), b))
		require.NoError(t, err)
		res, err := r.Run(context.Background(), x0, y0)
		require.NoError(t, err)
		return res.X
	}
	a := run(1)
	require.Equal(t, map[string]int{"GradFx": 4, "GradFy": 4, "GradGy": 3, "CrossGxy": 5, "HessGy": 6, "F": 7}, sizes)
	require.Greater(t, len(lowerDraws), 30, "40 lower steps should draw nearly 40 distinct batches")
	require.Equal(t, a, run(1))
	require.NotEqual(t, a, run(2))

	// Differences stand in for the Hessian with the Hessian's batch. (An
	// epoch, not a run: a run ends with the final lower solve's steps.)
	sp.HessGy = nil
	r, err := solver.New(on(sp, mx, my), withBatches(with(&solver.CG{}, set), b))
	require.NoError(t, err)
	require.NoError(t, r.Reset(x0, y0))
	delete(sizes, "GradGy")
	_, err = r.Step()
	require.NoError(t, err)
	require.Equal(t, 6, sizes["GradGy"], "the epoch's last grad_y g call is the FD Hessian's, with B4")
}

// TestStochasticVariance: the HINV estimate at y*(x) is unbiased to
// first order, with mean squared error falling as 1/|B| (paper, Theorem
// 4's bound): sixteen times larger batches cut it at least eightfold.
func TestStochasticVariance(t *testing.T) {
	s, mx, my, x, _ := squadSetup(13)
	m := s.mean
	want := m.exactHyper(x, m.ystar(x))
	ystar := m.ystar(x)
	mse := func(size int) float64 {
		r, err := solver.New(on(s.problem(), mx, my), withBatches(&solver.Settings{Estimator: solver.HInv{}, Seed: 5}, solver.Batches{Lower: size, Upper: size, Cross: size, Hess: size}))
		require.NoError(t, err)
		require.NoError(t, r.Reset(x, ystar))
		var e float64
		const trials = 400
		for k := 0; k < trials; k++ {
			hg, err := r.Hypergradient(false)
			require.NoError(t, err)
			for i := range hg {
				e += (hg[i] - want[i]) * (hg[i] - want[i])
			}
		}
		return e / trials
	}
	small, large := mse(4), mse(64)
	t.Logf("MSE |B|=4: %.3g, |B|=64: %.3g, ratio %.1f", small, large, small/large)
	require.Greater(t, small/large, 8.0)
	require.Less(t, small/large, 32.0)
}

// TestStochasticConverges: RSHGD reaches a noise floor of the true
// E‖∇F(x_k)‖² that falls with the batch size (paper, Theorem 4: ε ∝
// 1/|B|), far below its start.
func TestStochasticConverges(t *testing.T) {
	s, _, _, x0, _ := squadSetup(14)
	floor := func(size int) float64 { return noiseFloor(t, &solver.CG{}, size) }
	g0 := norm2(s.mean.exactHyper(x0, s.mean.ystar(x0)))
	small, large := floor(4), floor(64)
	t.Logf("‖∇F(x0)‖² %.3g; mean ‖∇F‖² over the last 200 of 600 epochs: |B|=4 %.3g, |B|=64 %.3g", g0*g0, small, large)
	require.Less(t, large, small/4)
	require.Less(t, large, 1e-2*g0*g0)
}

// TestStochasticEpochAllocs: a steady-state RSHGD epoch allocates nothing.
func TestStochasticEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	s, mx, my, x0, y0 := squadSetup(15)
	for _, est := range []solver.Estimator{&solver.CG{}, &solver.Neumann{}, solver.AD{}} {
		r, err := solver.New(on(s.problem(), mx, my), withBatches(&solver.Settings{Estimator: est, InnerIters: 5}, solver.Batches{Lower: 4, Upper: 4, Cross: 4, Hess: 4, Report: 4}))
		require.NoError(t, err)
		require.NoError(t, r.Reset(x0, y0))
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := r.Step(); err != nil {
				t.Fatal(err)
			}
		})
		require.Zero(t, allocs, est.Name())
	}
}

func TestStochasticBadConfig(t *testing.T) {
	s, mx, my, _, _ := squadSetup(16)
	sp := s.problem()
	sp.NG = 0 // g is not a finite sum: its batches cannot be drawn
	_, err := solver.New(on(sp, mx, my), withBatches(&solver.Settings{Estimator: nil}, solver.Batches{Lower: 3}))
	require.ErrorIs(t, err, solver.ErrBadSetting)
	_, err = solver.New(on(s.problem(), mx, my), withBatches(&solver.Settings{Estimator: nil}, solver.Batches{Hess: -1}))
	require.Error(t, err)
	sp = s.problem()
	sp.GradGy = nil
	_, err = solver.New(on(sp, mx, my), withBatches(&solver.Settings{Estimator: nil}, solver.Batches{}))
	require.ErrorIs(t, err, solver.ErrMissing)
}

func norm2(v []float64) float64 { return math.Sqrt(floats.Dot(v, v)) }
