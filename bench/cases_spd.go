package bench

import (
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/spd"
)

// spdCases are the floors (eigendecomposition, product) and the symmetric
// matrix functions at n×n: exp of a symmetric matrix with spectrum in
// about [−4, 4], log and sqrt of an SPD matrix with eigenvalues log-spaced
// in [1e−2, 1e2], and the exponential map of the affine-invariant metric.
func spdCases(n int) []Case {
	nn := float64(n)
	mk := func(op, flops string, floor string, peers []string, prep func(dir string) (*Prepared, error)) Case {
		return Case{Group: "spd", Op: op, Size: sizeN(n), N: nn, FlopCount: flops, Exponent: 3, Floor: floor, Peers: peers, Prepare: prep}
	}
	return []Case{
		mk("gemm", "2n³", "", []string{"numpy.gemm"}, func(dir string) (*Prepared, error) {
			in := newInputs(dir)
			a := gaussian(rand.New(rand.NewPCG(uint64(n), 1)), n*n, 1)
			in.add("a", a, n, n)
			c := make([]float64, n*n)
			return &Prepared{Files: in.files, Output: func() []float64 { return c }, Run: func() error {
				blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n)
				return nil
			}}, in.err
		}),
		mk("eig", "9n³", "", []string{"numpy.eigh", "torch.eigh"}, func(dir string) (*Prepared, error) {
			in := newInputs(dir)
			a := spdInput(n)
			in.add("a", a, n, n)
			e := lapackx.NewEigSym(n)
			return &Prepared{Files: in.files, Output: e.Values, Run: func() error { return e.Factorize(a) }}, in.err
		}),
		symFuncCase(n, "expsym", lapackx.ExpFunc, []string{"numpy.expsym", "scipy.expm", "torch.matrix_exp", "torch.expsym"}),
		symFuncCase(n, "logsym", lapackx.LogFunc, []string{"numpy.logsym", "scipy.logm", "torch.logsym"}),
		symFuncCase(n, "sqrtsym", lapackx.SqrtFunc, []string{"numpy.sqrtsym", "scipy.sqrtm", "torch.sqrtsym"}),
		mk("spdexp", "≈13n³", "eig", []string{"pymanopt.spdexp", "geoopt.spdexp"}, func(dir string) (*Prepared, error) {
			in := newInputs(dir)
			rnd := rand.New(rand.NewPCG(uint64(n), 4))
			x := withSpectrum(rnd, logSpaced(n, 0.1, 10))
			u := symGaussian(rnd, n, 1/math.Sqrt(2*nn))
			in.add("x", x, n, n)
			in.add("u", u, n, n)
			m := spd.New(n)
			m.Retraction = spd.Exponential
			y := make([]float64, n*n)
			return &Prepared{Files: in.files, Output: func() []float64 { return y }, Run: func() error {
				m.Invalidate() // a new point each call, as for the peers
				return m.Exp(y, x, u, 1)
			}}, in.err
		}),
	}
}

// spdInput is the SPD matrix of the log, sqrt, eig and Lyapunov cases.
func spdInput(n int) []float64 {
	return withSpectrum(rand.New(rand.NewPCG(uint64(n), 2)), logSpaced(n, 1e-2, 1e2))
}

func symFuncCase(n int, op string, f lapackx.Func, peers []string) Case {
	return Case{Group: "spd", Op: op, Size: sizeN(n), N: float64(n), FlopCount: "≈10n³", Exponent: 3, Floor: "eig", Peers: peers,
		Prepare: func(dir string) (*Prepared, error) {
			in := newInputs(dir)
			var a []float64
			if f.Positive() {
				a = spdInput(n)
			} else {
				a = symGaussian(rand.New(rand.NewPCG(uint64(n), 3)), n, 4/math.Sqrt(2*float64(n)))
			}
			in.add("a", a, n, n)
			s := lapackx.NewSymFunc(n)
			y := make([]float64, n*n)
			return &Prepared{Files: in.files, Output: func() []float64 { return y }, Run: func() error { return s.Apply(y, a, f) }}, in.err
		}}
}

// lyapunovCase solves A X + X A = C for the SPD A of spdInput and a
// symmetric C.
func lyapunovCase(n int) Case {
	return Case{Group: "lyapunov", Op: "lyapsym", Size: sizeN(n), N: float64(n), FlopCount: "≈13n³", Exponent: 3, Floor: "eig",
		Peers: []string{"scipy.lyapunov"},
		Prepare: func(dir string) (*Prepared, error) {
			in := newInputs(dir)
			a, c := spdInput(n), symGaussian(rand.New(rand.NewPCG(uint64(n), 5)), n, 1)
			in.add("a", a, n, n)
			in.add("c", c, n, n)
			l := lapackx.NewLyapSym(n)
			x := make([]float64, n*n)
			return &Prepared{Files: in.files, Output: func() []float64 { return x }, Run: func() error { return l.Solve(x, a, c) }}, in.err
		}}
}

// expmCase is the exponential of a general n×n Gaussian matrix scaled to a
// spectral radius near 1.
func expmCase(n int) Case {
	return Case{Group: "expm", Op: "expm", Size: sizeN(n), N: float64(n), FlopCount: "≈(6+s)·2n³", Exponent: 3, Floor: "gemm",
		Peers: []string{"scipy.expm", "torch.matrix_exp"},
		Prepare: func(dir string) (*Prepared, error) {
			in := newInputs(dir)
			a := gaussian(rand.New(rand.NewPCG(uint64(n), 6)), n*n, 1/math.Sqrt(float64(n)))
			in.add("a", a, n, n)
			e := lapackx.NewExpm(n)
			y := make([]float64, n*n)
			return &Prepared{Files: in.files, Output: func() []float64 { return y }, Run: func() error { return e.Exp(y, a) }}, in.err
		}}
}
