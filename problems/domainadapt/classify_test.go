package domainadapt_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/internal/testkit"
)

// handMade is n = 2 sources, m = 4 targets in the plane, and a plan that
// projects the sources onto x̂₁ = (y₁ + y₂)/2 = (1, 0) and x̂₂ = (y₃ + y₄)/2 =
// (0, 2). In the Euclidean metric the targets (2,0), (0,0), (0,4), (0,0)
// go to x̂₁, x̂₁, x̂₂, x̂₁; with M = diag(0.1, 10), where the squared distance
// is 10 dx² + 0.1 dy², the two at the origin go to x̂₂ instead (0.4 < 10).
func handMade(t *testing.T) (*domainadapt.Problem, []float64) {
	data := &domainadapt.Data{N: 2, M: 4, D: 2, X: []float64{1, 1, 2, -1},
		Y:            []float64{2, 0, 0, 0, 0, 4, 0, 0},
		SourceLabels: []int{1, 2}, TargetLabels: []int{1, 2, 2, 2}}
	dp, err := domainadapt.New(data, domainadapt.PaperConfig())
	require.NoError(t, err)
	return dp, []float64{0.25, 0.25, 0, 0, 0, 0, 0.25, 0.25}
}

func TestAccuracyHandMade(t *testing.T) {
	dp, gamma := handMade(t)
	acc, err := dp.Accuracy(gamma, []float64{1, 0, 0, 1})
	require.NoError(t, err)
	require.Equal(t, 50.0, acc) // predictions 1, 1, 2, 1 against 1, 2, 2, 2
	acc, err = dp.Accuracy(gamma, []float64{0.1, 0, 0, 10})
	require.NoError(t, err)
	require.Equal(t, 100.0, acc) // predictions 1, 2, 2, 2
	// Scaling M does not change the neighbours.
	acc, err = dp.Accuracy(gamma, []float64{1, 0, 0, 100})
	require.NoError(t, err)
	require.Equal(t, 100.0, acc)
}

func TestAccuracyRejects(t *testing.T) {
	dp, gamma := handMade(t)
	id := []float64{1, 0, 0, 1}
	_, err := dp.Accuracy(gamma[:7], id)
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	bad := append([]float64(nil), gamma...)
	bad[2] = math.NaN()
	_, err = dp.Accuracy(bad, id)
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	bad[2] = -0.1
	_, err = dp.Accuracy(bad, id)
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	_, err = dp.Accuracy(gamma, []float64{1, 2, 2, 1}) // indefinite
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	_, err = dp.Accuracy(gamma, []float64{1, 0, 1, 1}) // not symmetric
	require.ErrorIs(t, err, numerr.ErrInvalid)
	// Without labels.
	data := randomData(5, 4, 2, 1)
	data.SourceLabels, data.TargetLabels = nil, nil
	nl, err := domainadapt.New(data, domainadapt.PaperConfig())
	require.NoError(t, err)
	_, err = nl.Accuracy(make([]float64, 20), id)
	require.ErrorIs(t, err, domainadapt.ErrNoLabels)
}

// TestSinkhornPlan: for two points on a line matched to the same two
// points (C = [[0, 1], [1, 0]]), the entropic plan with uniform marginals
// has the closed form Γ₁₁ = Γ₂₂ = ½ e^{1/λ}/(1 + e^{1/λ}), Γ₁₂ = Γ₂₁ =
// ½/(1 + e^{1/λ}), which the log-domain balancing reaches even at λ = 1/500,
// where the off-diagonal entries are 10⁻²¹⁸.
func TestSinkhornPlan(t *testing.T) {
	data := &domainadapt.Data{N: 2, M: 2, D: 1, X: []float64{0, 1}, Y: []float64{0, 1},
		SourceLabels: []int{1, 2}, TargetLabels: []int{1, 2}}
	dp, err := domainadapt.New(data, domainadapt.PaperConfig())
	require.NoError(t, err)
	plan := make([]float64, 4)
	for _, lam := range []float64{2, 0.5, 0.05, 1.0 / 500} {
		require.NoError(t, dp.SinkhornPlan(plan, lam))
		e := math.Exp(-1 / lam) // 1/(1+e^{1/λ}) = e/(1+e)
		on, off := 0.5/(1+e), 0.5*e/(1+e)
		require.InEpsilon(t, on, plan[0], 1e-9, "λ = %v", lam)
		require.InEpsilon(t, on, plan[3], 1e-9, "λ = %v", lam)
		require.InEpsilon(t, off, plan[1], 1e-9, "λ = %v", lam)
		require.InEpsilon(t, off, plan[2], 1e-9, "λ = %v", lam)
	}
	acc, err := dp.BaselineAccuracy(0.05)
	require.NoError(t, err)
	require.Equal(t, 100.0, acc)
	require.ErrorIs(t, dp.SinkhornPlan(plan, 0), domainadapt.ErrBadData)
	require.ErrorIs(t, dp.SinkhornPlan(plan, math.Inf(1)), domainadapt.ErrBadData)
	require.ErrorIs(t, dp.SinkhornPlan(plan[:3], 1), domainadapt.ErrBadData)
}

func TestNewRejects(t *testing.T) {
	good := func() *domainadapt.Data { return randomData(6, 5, 3, 2) }
	cases := map[string]func(*domainadapt.Data, *domainadapt.Config){
		"X short":        func(d *domainadapt.Data, _ *domainadapt.Config) { d.X = d.X[:5] },
		"Y long":         func(d *domainadapt.Data, _ *domainadapt.Config) { d.Y = append(d.Y, 1) },
		"NaN":            func(d *domainadapt.Data, _ *domainadapt.Config) { d.X[4] = math.NaN() },
		"Inf":            func(d *domainadapt.Data, _ *domainadapt.Config) { d.Y[2] = math.Inf(-1) },
		"zero size":      func(d *domainadapt.Data, _ *domainadapt.Config) { d.D = 0 },
		"one by one":     func(d *domainadapt.Data, _ *domainadapt.Config) { d.N, d.M, d.X, d.Y = 1, 1, d.X[:3], d.Y[:3] },
		"labels":         func(d *domainadapt.Data, _ *domainadapt.Config) { d.SourceLabels = d.SourceLabels[:2] },
		"label 0":        func(d *domainadapt.Data, _ *domainadapt.Config) { d.TargetLabels[1] = 0 },
		"alpha > 1":      func(_ *domainadapt.Data, c *domainadapt.Config) { c.Alpha = 1.5 },
		"alpha NaN":      func(_ *domainadapt.Data, c *domainadapt.Config) { c.Alpha = math.NaN() },
		"lambda < 0":     func(_ *domainadapt.Data, c *domainadapt.Config) { c.Lambda = -1 },
		"ridge 0":        func(_ *domainadapt.Data, c *domainadapt.Config) { c.Ridge = 0 },
		"ridge Inf":      func(_ *domainadapt.Data, c *domainadapt.Config) { c.Ridge = math.Inf(1) },
		"lambda Inf":     func(_ *domainadapt.Data, c *domainadapt.Config) { c.Lambda = math.Inf(1) },
		"target labels":  func(d *domainadapt.Data, _ *domainadapt.Config) { d.TargetLabels = []int{1} },
		"negative label": func(d *domainadapt.Data, _ *domainadapt.Config) { d.SourceLabels[0] = -3 },
	}
	for name, edit := range cases {
		d, c := good(), domainadapt.PaperConfig()
		edit(d, &c)
		_, err := domainadapt.New(d, c)
		require.ErrorIs(t, err, domainadapt.ErrBadData, name)
		require.ErrorIs(t, err, problems.ErrBadData, name)
		require.ErrorIs(t, err, numerr.ErrInvalid, name)
	}
	_, err := domainadapt.New(nil, domainadapt.PaperConfig())
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	d, c := good(), domainadapt.PaperConfig()
	_, err = domainadapt.New(d, c)
	require.NoError(t, err)

	// LowerSolution's input.
	dp, _, g, _ := setup(t, domainadapt.PaperConfig())
	require.ErrorIs(t, dp.LowerSolution(make([]float64, 15), g), domainadapt.ErrBadData)
	g[3] = math.Inf(1)
	require.ErrorIs(t, dp.LowerSolution(make([]float64, 16), g), numerr.ErrNotFinite)
}

// TestLoadPairRejects: DeCAF6 exists for DSLR and Webcam only, and a pair
// needs two domains.
func TestLoadPairRejects(t *testing.T) {
	_, err := domainadapt.LoadPair(officecaltech.Amazon, officecaltech.Webcam, officecaltech.DeCAF6)
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	require.ErrorContains(t, err, "no decaf6 features for amazon")
	_, err = domainadapt.LoadPair(officecaltech.DSLR, officecaltech.Caltech, officecaltech.DeCAF6)
	require.ErrorContains(t, err, "caltech")
	_, err = domainadapt.LoadPair(officecaltech.DSLR, officecaltech.DSLR, officecaltech.SURF)
	require.ErrorIs(t, err, domainadapt.ErrBadData)
}

func TestSpec(t *testing.T) {
	require.Equal(t, "domainadapt", domainadapt.Spec.Name)
	in, err := testkit.Build(t, domainadapt.Spec, problems.Options{})
	require.NoError(t, err)
	require.Contains(t, in.Describe, "Π(157,295) × SPD(128)")
	require.Contains(t, in.Describe, "D→W")
	require.NotNil(t, in.Accuracy)
	require.NotNil(t, in.Baseline)
	require.Equal(t, 0.5, in.Settings.EtaX)
	require.Equal(t, 100, in.Settings.Epochs)
	require.Equal(t, "cg:maxiter=200,tol=1e-10", in.Estimators["cg"])
	for _, name := range domainadapt.Paper.Names() {
		e, err := in.Estimator(name)
		require.NoError(t, err, name)
		require.Equal(t, name, e.Name())
	}
	name, acc, err := in.Baseline()
	require.NoError(t, err)
	require.Equal(t, "OT-SKH (λ = 0.005)", name)
	require.Greater(t, acc, 50.0)
	require.NoError(t, in.Problem.My.CheckPoint(in.Y0))
	require.NoError(t, in.Problem.Mx.CheckPoint(in.X0))

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-source", "amazon"}, "no decaf6 features for amazon"},
		{[]string{"-source", "imagenet"}, "unknown domain"},
		{[]string{"-features", "vgg"}, "unknown features"},
		{[]string{"-alpha", "2"}, "α"},
		{[]string{"-baseline-lambda", "-1"}, "baseline-lambda"},
		{[]string{"-source", "webcam", "-target", "webcam"}, "both webcam"},
	} {
		_, err := testkit.Build(t, domainadapt.Spec, problems.Options{}, c.args...)
		require.ErrorIs(t, err, problems.ErrBadData, "%v", c.args)
		require.ErrorContains(t, err, c.msg, "%v", c.args)
	}
}

// TestSaveLoad: a problem's data round-trip through .npz.
func TestSaveLoad(t *testing.T) {
	data := randomData(6, 5, 3, 2)
	path := t.TempDir() + "/da.npz"
	require.NoError(t, domainadapt.Save(path, data))
	got, err := domainadapt.Load(path)
	require.NoError(t, err)
	require.Equal(t, data.X, got.X)
	require.Equal(t, data.Y, got.Y)
	require.Equal(t, data.SourceLabels, got.SourceLabels)
	require.Equal(t, data.TargetLabels, got.TargetLabels)
	in, err := testkit.Build(t, domainadapt.Spec, problems.Options{Data: path})
	require.NoError(t, err)
	require.Contains(t, in.Describe, "Π(6,5) × SPD(3)")
	// Labels that are not positive integers.
	data.SourceLabels[2] = 0
	require.NoError(t, domainadapt.Save(path, data))
	_, err = domainadapt.Load(path)
	require.ErrorIs(t, err, domainadapt.ErrBadData)
	_, err = domainadapt.Load(t.TempDir() + "/missing.npz")
	require.Error(t, err)
}

// TestPaperBaselines: OT-SKH with the authors' code's λ = 10⁻⁴ on the
// pooled DeCAF6 features gives the paper's OT-SKH entry for D→W, 93.90%
// (277 of 295), and for W→D 96.82% (152 of 157), which is the number the
// paper prints in its OT-EMD row for W→D.
func TestPaperBaselines(t *testing.T) {
	for _, c := range []struct {
		s, g  officecaltech.Domain
		right int
	}{{officecaltech.DSLR, officecaltech.Webcam, 277}, {officecaltech.Webcam, officecaltech.DSLR, 152}} {
		data, err := domainadapt.LoadPair(c.s, c.g, officecaltech.DeCAF6)
		require.NoError(t, err)
		dp, err := domainadapt.New(data, domainadapt.PaperConfig())
		require.NoError(t, err)
		acc, err := dp.BaselineAccuracy(1e-4)
		require.NoError(t, err)
		require.Equal(t, 100*float64(c.right)/float64(data.M), acc, "%v→%v", c.s, c.g)
	}
}
