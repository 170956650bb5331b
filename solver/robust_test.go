package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/solver"
)

// lastEpoch keeps the last epoch's statistics.
type lastEpoch struct{ e solver.EpochStats }

func (l *lastEpoch) Record(e *solver.EpochStats) error { l.e = *e; return nil }

// TestSpectrumEstimate: the lower Hessian of the quadratic problem is A,
// with eigenvalues 1 … 3. CG's Ritz values (from its own coefficients)
// and Settings.Lanczos steps lie within [λ_min, λ_max] (interlacing); with
// as many steps as the dimension (6) they are the extreme eigenvalues.
// Without a spectrum estimate MinEig and the bound are NaN.
func TestSpectrumEstimate(t *testing.T) {
	_, p, _, _, x0, y0 := quadSetup(7)
	for _, tc := range []struct {
		name    string
		est     solver.Estimator
		lanczos int
		exact   bool
	}{
		{"cg", &solver.CG{Tol: 1e-14}, 0, false},
		{"hinv+lanczos6", solver.HInv{}, 6, true},
		{"ns+lanczos3", &solver.Neumann{}, 3, false},
		{"ad+lanczos6", solver.AD{}, 6, true},
		{"hinv", solver.HInv{}, 0, false},
	} {
		rec := &lastEpoch{}
		_, err := solver.Minimize(context.Background(), p, x0, y0, &solver.Settings{Estimator: tc.est, Recorder: rec, Epochs: 3, InnerIters: 5, Lanczos: tc.lanczos})
		require.NoError(t, err, tc.name)
		lo, hi := rec.e.Estimate.MinEig, rec.e.Estimate.MaxEig
		t.Logf("%s: λ̂ ∈ [%.12g, %.12g], bound %.3g", tc.name, lo, hi, rec.e.HyperGradErrBound)
		if tc.name == "hinv" {
			require.True(t, math.IsNaN(lo) && math.IsNaN(hi) && math.IsNaN(rec.e.HyperGradErrBound), tc.name)
			continue
		}
		require.GreaterOrEqual(t, lo, 1-1e-9, tc.name)
		require.LessOrEqual(t, hi, 3+1e-9, tc.name)
		require.LessOrEqual(t, lo, hi, tc.name)
		require.False(t, math.IsNaN(rec.e.HyperGradErrBound), tc.name)
		if tc.exact {
			require.InDelta(t, 1, lo, 1e-8, tc.name)
			require.InDelta(t, 3, hi, 1e-8, tc.name)
		}
	}
}

// TestDampingBias: on an SPD lower Hessian with λ_min = μ = 1, the damped
// CG's hypergradient differs from the exact one by at most
// ‖C‖·δ/(μ(μ+δ))·‖b‖ (C = −Bᵀ, b = grad_y f), and NS's damped series
// likewise, up to its truncation.
func TestDampingBias(t *testing.T) {
	e, p, mx, my, x0, _ := quadSetup(11)
	y := make([]float64, e.q)
	for i := range y {
		y[i] = float64(i) / 3
	}
	exact := e.exactHyper(x0, y)
	var b mat.VecDense
	b.MulVec(e.Q, vec(y))
	b.AddVec(&b, e.c)
	cNorm := mat.Norm(e.B, 2)
	for _, delta := range []float64{1e-3, 0.1, 1} {
		bound := cNorm * delta / (1 + delta) * mat.Norm(&b, 2)
		for _, est := range []solver.Estimator{&solver.CG{Tol: 1e-14, Damping: delta}, &solver.Neumann{Damping: delta, Terms: 400}} {
			got := estimateAt(t, p, mx, my, est, x0, y, nil)
			var d float64
			for i := range got {
				d += (got[i] - exact[i]) * (got[i] - exact[i])
			}
			require.LessOrEqual(t, math.Sqrt(d), bound*(1+1e-8), "%s δ = %g", est.Name(), delta)
			if delta == 1 {
				require.Greater(t, math.Sqrt(d), 1e-6*bound, "the damping changes the estimate")
			}
		}
	}
}

// TestDampingSpecs: damping=X and damping=auto read back, and a negative
// damping is refused naming the field.
func TestDampingSpecs(t *testing.T) {
	for spec, want := range map[string]string{
		"cg:damping=auto":        "cg:maxiter=50,tol=1e-10,damping=auto",
		"cg:damping=0.01":        "cg:maxiter=50,tol=1e-10,damping=0.01",
		"ns:gamma=1,damping=1":   "ns:gamma=1,terms=50,power=10,damping=1",
		"ns:damping=AUTO":        "ns:terms=50,power=10,damping=auto",
		"cg:warm=true,damping=0": "cg:maxiter=50,tol=1e-10,warm=true",
	} {
		e, err := solver.ParseEstimator(spec)
		require.NoError(t, err, spec)
		require.Equal(t, want, e.(interface{ String() string }).String(), spec)
		back, err := solver.ParseEstimator(want)
		require.NoError(t, err)
		require.Equal(t, want, back.(interface{ String() string }).String())
	}
	_, err := solver.ParseEstimator("cg:damping=lots")
	require.ErrorIs(t, err, solver.ErrBadSetting)
	_, p, _, _, _, _ := quadSetup(1)
	_, err = solver.New(p, &solver.Settings{Estimator: &solver.CG{Damping: -1}})
	require.ErrorIs(t, err, solver.ErrBadSetting)
	require.ErrorContains(t, err, "Damping")
	_, err = solver.New(p, &solver.Settings{Lanczos: -1})
	require.ErrorContains(t, err, "Lanczos")
}

// TestCGSingular: on a lower Hessian with a null space that grad_y f
// meets, CG stops with ErrSingular (or ErrNotPositive), both
// numerr.ErrNotPosDef, and the damped CG runs.
func TestCGSingular(t *testing.T) {
	e, _, mx, my, x0, _ := quadSetup(5)
	// A ← A with its smallest eigenvalue set to zero.
	var eig mat.EigenSym
	require.True(t, eig.Factorize(mat.NewSymDense(e.q, e.A.RawMatrix().Data), true))
	vals := eig.Values(nil)
	vals[0] = 0
	var v mat.Dense
	eig.VectorsTo(&v)
	var t1, a mat.Dense
	t1.Mul(&v, mat.NewDiagDense(e.q, vals))
	a.Mul(&t1, v.T())
	e.A = &a
	p := e.problem()
	y := make([]float64, e.q)
	y[0] = 1
	_, err := solver.New(on(p, mx, my), &solver.Settings{Estimator: &solver.CG{}})
	require.NoError(t, err)
	r, _ := solver.New(on(p, mx, my), &solver.Settings{Estimator: &solver.CG{}})
	_, err = r.Estimate(x0, y)
	require.ErrorIs(t, err, solver.ErrSingular)
	r, _ = solver.New(on(p, mx, my), &solver.Settings{Estimator: &solver.CG{AutoDamping: true}})
	_, err = r.Estimate(x0, y)
	require.NoError(t, err)
}

// boundRec records each epoch's lower gradient norm, hypergradient norm
// and error bound.
type boundRec struct{ gy, hg, bound []float64 }

func (b *boundRec) Record(e *solver.EpochStats) error {
	b.gy, b.hg, b.bound = append(b.gy, e.LowerGradNorm), append(b.hg, e.HyperGradNorm), append(b.bound, e.HyperGradErrBound)
	return nil
}

// TestLowerErrBound: Lower.ErrBound ends each lower loop on the error
// bound's lower-level term; the run still reaches its gradient tolerance
// at the solution, and from the second epoch every epoch's estimated
// error from the lower solve (bound minus the solve's term, which CG to
// 1e-14 makes negligible) is at most Tol times the last hypergradient
// norm, up to the change of K̂ between epochs (a factor 2 here).
func TestLowerErrBound(t *testing.T) {
	_, p, mx, my, _, _ := quadSetup(23)
	x0, y0 := make([]float64, 4), make([]float64, 6)
	want := make([]float64, 4)
	res0, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}, EtaX: 0.3, EtaY: 0.3, InnerIters: 40, Epochs: 400, GradTol: 1e-10})
	require.NoError(t, err)
	copy(want, res0.X)
	rec := &boundRec{}
	s := &solver.Settings{Estimator: &solver.CG{Tol: 1e-14}, EtaX: 0.3, EtaY: 0.3, InnerIters: 40, Epochs: 400, GradTol: 1e-9,
		Lower: solver.LowerRule{Tol: 0.1, ErrBound: true}, Recorder: rec}
	res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, s)
	require.NoError(t, err)
	require.Equal(t, solver.GradientThreshold, res.Status)
	require.Less(t, relDiff(res.X, want), 1e-6)
	for k := 1; k < len(rec.bound); k++ {
		require.LessOrEqual(t, rec.bound[k], 2*0.1*rec.hg[k-1]+1e-12, "epoch %d", k)
	}
}
