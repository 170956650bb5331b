package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/solver"
)

// dquadSolution is the minimizer of F(x) = ½‖D⁻¹Bx − c‖² + ½λ‖x‖², the
// dquad problem's upper objective at y*(x) = D⁻¹Bx (D = diag(a)), from
// its normal equations (MᵀM + λI) x = Mᵀc with M = D⁻¹B.
func dquadSolution(d *dquad) []float64 {
	m := mat.NewDense(d.q, d.p, nil)
	for i := range d.q {
		for j := range d.p {
			m.Set(i, j, d.b[i*d.p+j]/d.a[i])
		}
	}
	var n mat.Dense
	n.Mul(m.T(), m)
	for j := range d.p {
		n.Set(j, j, n.At(j, j)+d.lambda)
	}
	var rhs, x mat.VecDense
	rhs.MulVec(m.T(), mat.NewVecDense(d.q, d.c))
	if err := x.SolveVec(&n, &rhs); err != nil {
		panic(err)
	}
	return x.RawVector().Data
}

// dquadTrueGrad is ∇F(x) = λx + MᵀMx − Mᵀc, at the exact lower solution.
func dquadTrueGrad(d *dquad, x []float64) []float64 {
	r := make([]float64, d.q) // D⁻¹Bx − c
	for i := range d.q {
		s := 0.0
		for j := range d.p {
			s += d.b[i*d.p+j] * x[j]
		}
		r[i] = s/d.a[i] - d.c[i]
	}
	g := make([]float64, d.p)
	for j := range d.p {
		s := d.lambda * x[j]
		for i := range d.q {
			s += d.b[i*d.p+j] / d.a[i] * r[i]
		}
		g[j] = s
	}
	return g
}

// TestAdaRHDConverges: on a strongly convex quadratic bilevel problem
// with a closed-form solution, AdaRHD (AdaGrad-norm steps on both levels,
// linear solves by HINV, or by AdaGD to ‖r‖² < 1e-14: AdaGD's default
// 1e-4 bounds the hypergradient's accuracy, at about 1e-3 of ‖∇F₀‖ here)
// drives the true hypergradient to a small
// fraction of its start from a short and a long initial step, with no
// step tuned to the curvature (the paper's Theorem 3.3 bounds the epochs
// to ‖grad F‖² ≤ ε by O(1/ε)); x is then as close to the closed-form
// minimizer as F's strong convexity (modulus at least λ) implies:
// ‖x − x*‖ ≤ ‖∇F(x)‖/λ.
//
// From η = 5 the published method can diverge: once ‖ĝ‖² exceeds five
// times the first epoch's, α stops growing (the scripts' hygrad_flag),
// and a step too long for F's curvature then stays too long. The run
// reports it (Diverged, naming η_x) instead of returning a wrong point.
func TestAdaRHDConverges(t *testing.T) {
	d := newDquad(3, 5, 11)
	want := dquadSolution(d)
	x0 := []float64{1, -2, 0.5}
	g0 := frobNorm(dquadTrueGrad(d, x0))
	for _, c := range []struct {
		est solver.Estimator
		eta float64
	}{{solver.HInv{}, 0.05}, {solver.HInv{}, 0.5}, {solver.HInv{}, 5}, {&solver.AdaGD{Tol: 1e-14}, 0.05}, {&solver.AdaGD{Tol: 1e-14}, 0.5}} {
		eta := c.eta
		s := solver.AdaRHDSettings()
		s.Estimator, s.EtaX, s.EtaY, s.InnerIters, s.Epochs = c.est, eta, eta, 50, 3000
		res, err := solver.Minimize(context.Background(), d.problem(false), x0, make([]float64, 5), &s)
		if eta == 5 {
			if err != nil {
				require.True(t, solver.IsDiverged(err), "η = 5: %v", err)
				require.ErrorContains(t, err, "EtaX")
				t.Logf("η = 5: %v", err)
				continue
			}
		} else {
			require.NoError(t, err, "η = %g", eta)
		}
		g := frobNorm(dquadTrueGrad(d, res.X))
		diff := 0.0
		for j := range want {
			diff = math.Hypot(diff, res.X[j]-want[j])
		}
		t.Logf("%s, η = %g: %d epochs, %d lower gradients, %d Hessian products, ‖∇F‖/‖∇F₀‖ = %.2e, ‖x − x*‖ = %.2e",
			c.est.Name(), eta, res.Stats.Epochs, res.Stats.LowerGrads, res.Stats.HessVecs, g/g0, diff)
		assert.Less(t, g, 1e-3*g0, "η = %g", eta)
		assert.LessOrEqual(t, diff, g/d.lambda*(1+1e-9)+1e-12, "η = %g", eta)
	}
}

// adaRecorder keeps each epoch's upper step, hypergradient norm, lower
// steps, lower iterate and lower gradient norm.
type adaRecorder struct {
	steps, hg, gy []float64
	lower         []int
	y             [][]float64
}

func (a *adaRecorder) Record(s *solver.EpochStats) error {
	a.steps = append(a.steps, s.UpperStep)
	a.hg = append(a.hg, s.HyperGradNorm)
	a.gy = append(a.gy, s.LowerGradNorm)
	a.lower = append(a.lower, s.LowerSteps)
	a.y = append(a.y, append([]float64(nil), s.Y...))
	return nil
}

// TestAdaRHDAccumulators: the first steps of AdaRHD by hand, on
// g(x, y) = ½y² − xy (grad_y g = y − x) and f = ½(y − 1)² + ½x², from
// x = 0, y = 1, with η_y = ½ (β₀ = 2), η_x = 0.25 (α₀ = 4) and 4 epochs
// (the lower loop ends once ‖grad_y g‖² ≤ ¼).
//
// Epoch 0, lower loop: r = 1, y = 1 − 1/2 = ½, β² = 4 + 1 = 5 (1 > ¼: go
// on); r = ½, y = ½ − ½/√5, β² = 5.25 (¼ ≤ ¼: stop). Two steps, the last
// gradient norm ½. Upper: the step is 1/α₀ = 0.25, and α² = 16 + ‖ĝ₀‖²
// for the next epoch, whose step is 1/√(16 + ‖ĝ₀‖²); each later step
// adds its own ‖ĝ‖² unless it exceeds five times ‖ĝ₀‖². Each epoch's
// lower loop starts again from β₀ = 2 (the code's β is local to an
// epoch).
func TestAdaRHDAccumulators(t *testing.T) {
	m := euclid.New(1, 1)
	p := solver.Euclidean(solver.EuclideanProblem{Mx: m, My: m,
		F: func(pt *solver.Point) (float64, error) {
			return 0.5*(pt.Y[0]-1)*(pt.Y[0]-1) + 0.5*pt.X[0]*pt.X[0], nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { dst[0] = pt.X[0]; return nil },
		GradFy: func(dst []float64, pt *solver.Point) error { dst[0] = pt.Y[0] - 1; return nil },
		G: func(pt *solver.Point) (float64, error) {
			return 0.5*pt.Y[0]*pt.Y[0] - pt.X[0]*pt.Y[0], nil
		},
		GradGy:   func(dst []float64, pt *solver.Point) error { dst[0] = pt.Y[0] - pt.X[0]; return nil },
		GradGx:   func(dst []float64, pt *solver.Point) error { dst[0] = -pt.Y[0]; return nil },
		HessGy:   func(dst []float64, _ *solver.Point, v []float64) error { dst[0] = v[0]; return nil },
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error { dst[0] = -v[0]; return nil },
	})
	p.HessGyInv = func(dst []float64, _ *solver.Point, v []float64) error { dst[0] = v[0]; return nil }
	rec := &adaRecorder{}
	s := solver.AdaRHDSettings()
	s.Estimator, s.EtaX, s.EtaY, s.InnerIters, s.Epochs, s.Recorder = solver.HInv{}, 0.25, 0.5, 50, 4, rec
	_, err := solver.Minimize(context.Background(), p, []float64{0}, []float64{1}, &s)
	require.NoError(t, err)
	require.Len(t, rec.steps, 4)

	const tight = 1e-15
	assert.Equal(t, 2, rec.lower[0])
	assert.InDelta(t, 0.5-0.5/math.Sqrt(5), rec.y[0][0], tight)
	assert.InDelta(t, 0.5, rec.gy[0], tight)

	alpha2 := 16.0
	for k, step := range rec.steps {
		assert.InDelta(t, 1/math.Sqrt(alpha2), step, tight, "epoch %d", k)
		if g2 := rec.hg[k] * rec.hg[k]; g2 <= 5*rec.hg[0]*rec.hg[0] {
			alpha2 += g2
		}
	}
	// Epoch 1's lower loop, from y₁ with x₁ = −0.25·ĝ₀ and β₀ = 2 again.
	x1 := 0.25 * rec.hg[0] // ĝ₀ = x + y − 1 < 0 here, at x = 0, y < 1: x₁ = −0.25·ĝ₀ = 0.25‖ĝ₀‖
	y, beta2, n := rec.y[0][0], 4.0, 0
	for {
		r := y - x1
		y -= r / math.Sqrt(beta2)
		beta2 += r * r
		n++
		if r*r <= 0.25 {
			break
		}
	}
	assert.Equal(t, n, rec.lower[1])
	assert.InDelta(t, y, rec.y[1][0], tight)
}

// TestAdaRHDLowerCap: the lower loop's cap is InnerIters for five epochs
// and grows by 50 every five epochs (the scripts' y_subiter), and a loop
// ends early only where ‖grad_y g‖² ≤ 1/Epochs held.
func TestAdaRHDLowerCap(t *testing.T) {
	d := newDquad(3, 5, 4)
	rec := &adaRecorder{}
	s := solver.AdaRHDSettings()
	// A tiny first lower step (1/β₀ = 1e-4) keeps the loops at their caps.
	s.Estimator, s.EtaX, s.EtaY, s.InnerIters, s.Epochs, s.Recorder = solver.HInv{}, 1e-3, 1e-4, 2, 12, rec
	_, err := solver.Minimize(context.Background(), d.problem(false), []float64{1, -2, 0.5}, make([]float64, 5), &s)
	require.NoError(t, err)
	for k, n := range rec.lower {
		limit := 2
		if k >= 5 {
			limit = 2 + 50*(k/5)
		}
		require.LessOrEqual(t, n, limit, "epoch %d", k)
		if n < limit {
			// The loop's last gradient was within the tolerance.
			require.LessOrEqual(t, rec.gy[k]*rec.gy[k], 1/12.0, "epoch %d", k)
		}
	}
	assert.Equal(t, []int{2, 2, 2, 2, 2}, rec.lower[:5])
	assert.Equal(t, 52, rec.lower[5], "the cap grew after five epochs")
}

// TestAdaRHDEpochAllocs: an AdaRHD epoch allocates nothing, with CG or
// AdaGD, with and without a Recorder.
func TestAdaRHDEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, c := range []struct {
		rec solver.Recorder
		est solver.Estimator
	}{{nil, &solver.CG{}}, {nopRecorder{}, &solver.CG{}}, {nil, &solver.AdaGD{}}, {nopRecorder{}, &solver.AdaGD{}}} {
		d := newDquad(3, 5, 4)
		s := solver.AdaRHDSettings()
		s.Estimator, s.Recorder, s.Epochs = c.est, c.rec, 100000
		r, err := solver.New(d.problem(false), &s)
		require.NoError(t, err)
		require.NoError(t, r.Reset([]float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}))
		_, err = r.Step()
		require.NoError(t, err)
		require.Zero(t, testing.AllocsPerRun(20, func() {
			if _, err := r.Step(); err != nil {
				t.Fatal(err)
			}
		}))
	}
}

// TestAdaRHDSettings: preset=adarhd sets the AdaGrad rules (and only
// keys the adaptive preset sets too), round-trips through String, and the
// AdaGrad rules refuse the other rules of their level, naming the keys.
func TestAdaRHDSettings(t *testing.T) {
	s, err := solver.ParseSettings("preset=adarhd,eta_x=0.5", solver.Settings{})
	require.NoError(t, err)
	want := solver.Settings{EtaX: 0.5}
	want.ApplyAdaRHD()
	require.Equal(t, want, s)
	require.True(t, s.Lower.AdaGrad && s.Upper.AdaGrad)
	require.Equal(t, "adarhd", s.Preset())
	back, err := solver.ParseSettings(s.String(), solver.Settings{})
	require.NoError(t, err)
	require.Equal(t, s, back)

	_, err = solver.ParseSettings("preset=fast", solver.Settings{})
	require.ErrorIs(t, err, solver.ErrBadSetting)
	require.ErrorContains(t, err, "want paper, adaptive or adarhd")

	d := newDquad(3, 5, 4)
	for spec, keys := range map[string][]string{
		"preset=adarhd,lower_bb=true":        {"Lower.AdaGrad", "Lower.BB"},
		"preset=adarhd,lower_tol=0.1":        {"Lower.AdaGrad", "Lower.Tol"},
		"preset=adarhd,lower_solve=true":     {"Lower.AdaGrad", "Lower.UseLowerSolve"},
		"preset=adarhd,upper_bb=true":        {"Upper.AdaGrad", "Upper.BB"},
		"preset=adaptive,upper_adagrad=true": {"Upper.AdaGrad", "Upper.BB"},
	} {
		s, err := solver.ParseSettings(spec, solver.Settings{})
		require.NoError(t, err, spec)
		_, err = solver.New(d.problem(false), &s)
		require.ErrorIs(t, err, solver.ErrBadSetting, spec)
		for _, k := range keys {
			require.ErrorContains(t, err, k, spec)
		}
	}
}

// TestAdaGDByHand: AdaGD's first iterations by hand, on f = ½(y − 1)² +
// ½x², g = y² − xy (H = 2, G_xy[v] = −v, so ĝ = x + v), at x = y = 0:
// b = grad_y f = −1, and with γ₀ = 1 and a cap of 2 iterations,
//
//	v₀ = b = −1, r₀ = 2v₀ − b = −1, γ² = 1 + 1 = 2, v₁ = v₀ − r₀/√2,
//	r₁ = 2v₁ − b, γ² = 2 + r₁², v₂ = v₁ − r₁/√(2 + r₁²),
//
// ĝ = v₂. The next estimate starts from v₂ (the warm start) with γ² = 1
// again, and after five estimates the cap grows to 52.
func TestAdaGDByHand(t *testing.T) {
	m := euclid.New(1, 1)
	hvs := 0 // Hessian products: one per iteration
	p := solver.Euclidean(solver.EuclideanProblem{Mx: m, My: m,
		F: func(pt *solver.Point) (float64, error) {
			return 0.5*(pt.Y[0]-1)*(pt.Y[0]-1) + 0.5*pt.X[0]*pt.X[0], nil
		},
		GradFx:   func(dst []float64, pt *solver.Point) error { dst[0] = pt.X[0]; return nil },
		GradFy:   func(dst []float64, pt *solver.Point) error { dst[0] = pt.Y[0] - 1; return nil },
		GradGy:   func(dst []float64, pt *solver.Point) error { dst[0] = 2*pt.Y[0] - pt.X[0]; return nil },
		GradGx:   func(dst []float64, pt *solver.Point) error { dst[0] = -pt.Y[0]; return nil },
		HessGy:   func(dst []float64, _ *solver.Point, v []float64) error { hvs++; dst[0] = 2 * v[0]; return nil },
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error { dst[0] = -v[0]; return nil },
	})
	r, err := solver.New(p, &solver.Settings{Estimator: &solver.AdaGD{MaxIter: 2, Tol: 1e-300, Gamma: 1}})
	require.NoError(t, err)
	require.NoError(t, r.Reset([]float64{0}, []float64{0}))
	hg, err := r.Hypergradient(false)
	require.NoError(t, err)
	b := -1.0
	v := b
	r0 := 2*v - b
	g2 := 1 + r0*r0
	v -= r0 / math.Sqrt(g2)
	r1 := 2*v - b
	g2 += r1 * r1
	v -= r1 / math.Sqrt(g2)
	require.InDelta(t, v, hg[0], 1e-15)

	// The warm start: from v₂, γ² = 1 again.
	hg, err = r.Hypergradient(false)
	require.NoError(t, err)
	g2 = 1
	for range 2 {
		ri := 2*v - b
		g2 += ri * ri
		v -= ri / math.Sqrt(g2)
	}
	require.InDelta(t, v, hg[0], 1e-15)
	require.Equal(t, 4, hvs)

	// Estimates 3–5 take 2 iterations each, the sixth 52 (‖r‖² stays
	// above 1e-300), and ĝ nears x + H⁻¹b = −½.
	for range 3 {
		_, err = r.Hypergradient(false)
		require.NoError(t, err)
	}
	require.Equal(t, 10, hvs)
	before := math.Abs(v + 0.5)
	hg, err = r.Hypergradient(false)
	require.NoError(t, err)
	require.Equal(t, 62, hvs)
	require.Less(t, math.Abs(hg[0]+0.5), before)
}
