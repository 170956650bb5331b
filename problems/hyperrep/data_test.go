package hyperrep_test

import (
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/solver"
)

// bad requires err to wrap problems.ErrBadData (and so numerr.ErrInvalid).
func bad(t *testing.T, err error, what string) {
	t.Helper()
	require.Error(t, err, what)
	require.True(t, errors.Is(err, problems.ErrBadData) && errors.Is(err, numerr.ErrInvalid), "%s: %v", what, err)
	t.Logf("%s: %v", what, err)
}

func clone(d *hyperrep.Data) *hyperrep.Data {
	c := *d
	c.A, c.Y, c.W0, c.Beta0 = slices.Clone(d.A), slices.Clone(d.Y), slices.Clone(d.W0), slices.Clone(d.Beta0)
	return &c
}

// TestBadData: every kind of bad input to New and GenerateSizes is an
// error wrapping problems.ErrBadData, never a panic or a problem that
// computes NaN.
func TestBadData(t *testing.T) {
	good, err := hyperrep.GenerateSizes(small, 1)
	require.NoError(t, err)
	_, err = hyperrep.New(good, hyperrep.PaperLambda)
	require.NoError(t, err)
	d, k := good.D, good.K

	_, err = hyperrep.New(nil, 0.1)
	bad(t, err, "nil data")
	for _, lam := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		_, err = hyperrep.New(good, lam)
		bad(t, err, "λ")
	}
	mutations := map[string]func(*hyperrep.Data){
		"n_train = 0":           func(x *hyperrep.Data) { x.NTrain = 0 },
		"n_train = N":           func(x *hyperrep.Data) { x.NTrain = x.N },
		"n_train > N":           func(x *hyperrep.Data) { x.NTrain = x.N + 1 },
		"k > d":                 func(x *hyperrep.Data) { x.K = x.D + 1 },
		"k = 0":                 func(x *hyperrep.Data) { x.K = 0 },
		"short A":               func(x *hyperrep.Data) { x.A = x.A[:len(x.A)-1] },
		"short y":               func(x *hyperrep.Data) { x.Y = x.Y[:len(x.Y)-1] },
		"W0 of the wrong shape": func(x *hyperrep.Data) { x.W0 = x.W0[:len(x.W0)-k] },
		"beta0 too long":        func(x *hyperrep.Data) { x.Beta0 = append(x.Beta0, 0) },
		"NaN in A":              func(x *hyperrep.Data) { x.A[3*d*d+5] = math.NaN() },
		"Inf in y":              func(x *hyperrep.Data) { x.Y[2] = math.Inf(-1) },
		"NaN in W0":             func(x *hyperrep.Data) { x.W0[0] = math.NaN() },
		"NaN in beta0":          func(x *hyperrep.Data) { x.Beta0[1] = math.NaN() },
		"W0 not orthonormal":    func(x *hyperrep.Data) { x.W0[0] = 2 },
		"A_5 not symmetric":     func(x *hyperrep.Data) { x.A[5*d*d+1] += 1e-3 },
		"A_7 not positive definite": func(x *hyperrep.Data) {
			a := x.A[7*d*d : 8*d*d]
			for i := 0; i < d; i++ {
				a[i*d+i] -= 100
			}
		},
		"A_0 singular": func(x *hyperrep.Data) { clear(x.A[:d*d]) },
	}
	for name, mutate := range mutations {
		x := clone(good)
		mutate(x)
		_, err := hyperrep.New(x, hyperrep.PaperLambda)
		bad(t, err, name)
	}
	for name, s := range map[string]hyperrep.Sizes{
		"n_train ≥ N": {N: 10, D: 4, K: 2, NTrain: 10, Noise: 1},
		"k > d":       {N: 10, D: 4, K: 5, NTrain: 5, Noise: 1},
		"noise < 0":   {N: 10, D: 4, K: 2, NTrain: 5, Noise: -1},
		"noise NaN":   {N: 10, D: 4, K: 2, NTrain: 5, Noise: math.NaN()},
	} {
		_, err := hyperrep.GenerateSizes(s, 1)
		bad(t, err, "generate: "+name)
	}
}

// TestOracleErrors: a W off the manifold whose WᵀA_iW is singular, or a
// non-finite W, makes the oracles return errors with numerr sentinels
// rather than NaN.
func TestOracleErrors(t *testing.T) {
	_, hp, p := setup(t, small, 2)
	w, beta := hp.Start(0)
	zero := make([]float64, len(w))
	_, err := p.F(testkit.At(zero, beta))
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	w[0] = math.NaN()
	g := make([]float64, len(beta))
	require.ErrorIs(t, p.GradGy(g, testkit.At(w, beta)), numerr.ErrNotFinite)
}

// TestSaveLoad: Save then Load gives the data back exactly, and the
// problem built from the file gives the same objective.
func TestSaveLoad(t *testing.T) {
	data, hp, p := setup(t, small, 4)
	path := filepath.Join(t.TempDir(), "hyperrep.npz")
	require.NoError(t, hyperrep.Save(path, data))
	back, err := hyperrep.Load(path)
	require.NoError(t, err)
	require.Equal(t, data, back)
	hp2, err := hyperrep.New(back, hyperrep.PaperLambda)
	require.NoError(t, err)
	w, beta := hp.Start(0)
	f1, err := p.F(testkit.At(w, beta))
	require.NoError(t, err)
	f2, err := hp2.Bilevel().F(testkit.At(w, beta))
	require.NoError(t, err)
	require.Equal(t, f1, f2)
}

// TestLoadBad: files with missing arrays, wrong shapes, a non-integer or
// out-of-range n_train, or a non-SPD matrix are errors wrapping
// problems.ErrBadData.
func TestLoadBad(t *testing.T) {
	data, err := hyperrep.GenerateSizes(small, 6)
	require.NoError(t, err)
	n, d, k := data.N, data.D, data.K
	arrays := func() (map[string][]float64, map[string][]int) {
		return map[string][]float64{"A": slices.Clone(data.A), "y": slices.Clone(data.Y), "W0": slices.Clone(data.W0),
				"beta0": slices.Clone(data.Beta0), "n_train": {float64(data.NTrain)}},
			map[string][]int{"A": {n, d, d}, "W0": {d, k}}
	}
	dir := t.TempDir()
	_, err = hyperrep.Load(filepath.Join(dir, "missing.npz"))
	bad(t, err, "no file")
	cases := map[string]func(a map[string][]float64, s map[string][]int){
		"no A":              func(a map[string][]float64, s map[string][]int) { delete(a, "A"); delete(s, "A") },
		"no n_train":        func(a map[string][]float64, s map[string][]int) { delete(a, "n_train") },
		"A not square":      func(a map[string][]float64, s map[string][]int) { s["A"] = []int{n, d * d / 3, 3} },
		"A two-dimensional": func(a map[string][]float64, s map[string][]int) { s["A"] = []int{n * d, d} },
		"y too short":       func(a map[string][]float64, s map[string][]int) { a["y"] = a["y"][:n-1] },
		"W0 rows ≠ d":       func(a map[string][]float64, s map[string][]int) { s["W0"] = []int{k, d} },
		"beta0 wrong length": func(a map[string][]float64, s map[string][]int) {
			a["beta0"] = a["beta0"][:len(a["beta0"])-1]
		},
		"n_train = 0":      func(a map[string][]float64, s map[string][]int) { a["n_train"] = []float64{0} },
		"n_train = N":      func(a map[string][]float64, s map[string][]int) { a["n_train"] = []float64{float64(n)} },
		"n_train = 2.5":    func(a map[string][]float64, s map[string][]int) { a["n_train"] = []float64{2.5} },
		"n_train a vector": func(a map[string][]float64, s map[string][]int) { a["n_train"] = []float64{3, 4} },
		"NaN in A":         func(a map[string][]float64, s map[string][]int) { a["A"][7] = math.NaN() },
		"A_2 indefinite": func(a map[string][]float64, s map[string][]int) {
			for i := 0; i < d; i++ {
				a["A"][2*d*d+i*d+i] = -1
			}
		},
	}
	for name, mutate := range cases {
		a, s := arrays()
		mutate(a, s)
		path := filepath.Join(dir, "bad.npz")
		require.NoError(t, problems.WriteNPZ(path, a, s))
		_, err := hyperrep.Load(path)
		bad(t, err, name)
	}
}

// TestSpec: the Spec builds the paper's instance from its flags, generated
// or from a file, with the paper's settings, estimators and batches, and
// the instance runs under RHGD and RSHGD.
func TestSpec(t *testing.T) {
	in, err := testkit.Build(t, hyperrep.Spec, problems.Options{Seed: 3}, "-n", "30", "-d", "8", "-k", "3", "-ntrain", "12", "-lambda", "0.2")
	require.NoError(t, err)
	require.Equal(t, "hyperrep", hyperrep.Spec.Name)
	require.Equal(t, hyperrep.Paper.Settings, in.Settings)
	require.Equal(t, 18, in.Problem.NF)
	require.Equal(t, 12, in.Problem.NG)
	require.Equal(t, *hyperrep.Paper.Batches, *in.Stochastic)
	require.Contains(t, in.Describe, "St(8,3)")
	for _, name := range hyperrep.Paper.Names() {
		est, err := in.Estimator(name)
		require.NoError(t, err, name)
		for _, b := range []solver.Batches{{}, *in.Stochastic} {
			s := in.Settings
			s.Epochs, s.Estimator, s.Batches = 3, est, b
			_, err := solver.Minimize(t.Context(), in.Problem, in.X0, in.Y0, &s)
			require.NoError(t, err, "%s, batches %+v", name, b)
		}
	}
	ns, err := in.Estimator("ns")
	require.NoError(t, err)
	require.Equal(t, "ns:gamma=0.05,terms=50,power=10", ns.(interface{ String() string }).String())

	// From a file: the generated data saved and loaded.
	data, err := hyperrep.GenerateSizes(small, 9)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "d.npz")
	require.NoError(t, hyperrep.Save(path, data))
	in, err = testkit.Build(t, hyperrep.Spec, problems.Options{Data: path})
	require.NoError(t, err)
	require.Equal(t, data.W0, in.X0)
	require.Equal(t, data.Beta0, in.Y0)
	require.Contains(t, in.Describe, path)
	_, err = testkit.Build(t, hyperrep.Spec, problems.Options{}, "-k", "60")
	bad(t, err, "spec with k > d")
}

// TestGenerate: generated data follow the stated distributions: log A_i =
// sym(0.5·G_i) has diagonal entries of variance 0.25 and off-diagonal ones
// of variance 0.125; the label noise (the difference between labels drawn
// with Noise = 1 and Noise = 0 from one seed) has mean 0 and variance 1;
// the start is W0 = I[:, :k]; the same seed gives the same data.
func TestGenerate(t *testing.T) {
	data, err := hyperrep.Generate(5)
	require.NoError(t, err)
	n, d, k := data.N, data.D, data.K
	require.Equal(t, hyperrep.PaperSizes, hyperrep.Sizes{N: n, D: d, K: k, NTrain: data.NTrain, Noise: 1})
	sf := lapackx.NewSymFunc(d)
	l := make([]float64, d*d)
	var sd, so float64
	for i := 0; i < n; i++ {
		require.NoError(t, sf.Log(l, data.A[i*d*d:(i+1)*d*d]))
		for p := 0; p < d; p++ {
			sd += l[p*d+p] * l[p*d+p]
			for q := p + 1; q < d; q++ {
				so += l[p*d+q] * l[p*d+q]
			}
		}
	}
	vd, vo := sd/float64(n*d), so/float64(n*d*(d-1)/2)
	t.Logf("variance of log A_i entries: diagonal %.4f (want 0.25), off-diagonal %.4f (want 0.125)", vd, vo)
	require.InDelta(t, 0.25, vd, 0.02) // 10⁴ samples: standard error 0.0035
	require.InDelta(t, 0.125, vo, 0.005)

	quiet := hyperrep.PaperSizes
	quiet.Noise = 0
	clean, err := hyperrep.GenerateSizes(quiet, 5)
	require.NoError(t, err)
	require.Equal(t, data.A, clean.A)
	var mean, sq float64
	for i := range data.Y {
		e := data.Y[i] - clean.Y[i]
		mean += e / float64(n)
		sq += e * e / float64(n)
	}
	t.Logf("label noise: mean %.3f, variance %.3f", mean, sq-mean*mean)
	require.InDelta(t, 0, mean, 0.25) // 200 samples: standard error 0.07
	require.InDelta(t, 1, sq-mean*mean, 0.3)
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			require.Equal(t, want, data.W0[i*k+j])
		}
	}
	again, err := hyperrep.Generate(5)
	require.NoError(t, err)
	require.Equal(t, data, again)
	other, err := hyperrep.Generate(6)
	require.NoError(t, err)
	require.NotEqual(t, data.Y, other.Y)
}

// TestLoadChecksFirst: Load checks every array's name and shape, beta0's
// length (k(k+1)/2, from W0) among them, before it reads any: a file whose
// beta0 is too short or that lacks n_train fails without reading its 1 MiB
// A.
func TestLoadChecksFirst(t *testing.T) {
	const n, d, k = 2048, 8, 3
	for name, arrays := range map[string]map[string][]float64{
		"beta0 too short": {"A": make([]float64, n*d*d), "y": make([]float64, n), "W0": make([]float64, d*k),
			"beta0": make([]float64, k*(k+1)/2-1), "n_train": {n / 2}},
		"no n_train": {"A": make([]float64, n*d*d), "y": make([]float64, n), "W0": make([]float64, d*k),
			"beta0": make([]float64, k*(k+1)/2)},
	} {
		path := filepath.Join(t.TempDir(), "big.npz")
		require.NoError(t, problems.WriteNPZ(path, arrays, map[string][]int{"A": {n, d, d}, "W0": {d, k}}))
		var err error
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err = hyperrep.Load(path)
		runtime.ReadMemStats(&after)
		bad(t, err, name)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(n*d*d*8/2), "%s: Load allocated as if it read A", name)
	}
}

// TestStartSeed: Start uses its seed (it ignored it): seed 0 gives the
// data's W0 and β0, which Build starts from; another seed a W drawn on
// St(d, k) from it, the same for the same seed and another for another,
// with the data's β0.
func TestStartSeed(t *testing.T) {
	data, hp, _ := setup(t, small, 3)
	w0, b0 := hp.Start(0)
	require.Equal(t, data.W0, w0)
	require.Equal(t, data.Beta0, b0)
	w1, b1 := hp.Start(1)
	w1again, _ := hp.Start(1)
	w2, b2 := hp.Start(2)
	require.Equal(t, w1, w1again)
	require.NotEqual(t, w1, w0)
	require.NotEqual(t, w1, w2)
	require.Equal(t, data.Beta0, b1)
	require.Equal(t, data.Beta0, b2)
	for _, w := range [][]float64{w1, w2} {
		require.NoError(t, hp.St.CheckPoint(w))
	}
	in, err := hyperrep.Build(hyperrep.Params{Options: problems.Options{Seed: 3}, N: small.N, D: small.D, K: small.K,
		NTrain: small.NTrain, Noise: small.Noise, Lambda: hyperrep.PaperLambda})
	require.NoError(t, err)
	require.Equal(t, w0, in.X0)
	require.Equal(t, b0, in.Y0)
}
