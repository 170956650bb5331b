package bench

import (
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/internal/stagetime"
	"github.com/rhgd/rhgd/lapackx"
)

// The stage profiles (group "stages") time a kernel's stages as the kernel
// runs them (the marks of internal/stagetime in lapackx) and, in the same
// call, one n×n GEMM through blas.Impl() as the yardstick: the products
// inside the kernels go the same way, so on the same threads (blas's
// one-thread windows).

// stageGEMM names the yardstick's stage.
const stageGEMM = "one GEMM (2n³)"

// stageRest is the time from the kernel's last mark to its return.
const stageRest = "rest"

// gemmYardstick returns one n×n GEMM on data of its own.
func gemmYardstick(n int) func() {
	a := gaussian(rand.New(rand.NewPCG(uint64(n), 11)), n*n, 1)
	c := make([]float64, n*n)
	return func() { blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n) }
}

// markedRun times kernel through its own marks, then the yardstick.
func markedRun(clk *stagetime.Clock, kernel func() error, gemm func()) func() error {
	return func() error {
		stop := stagetime.Use(clk)
		defer stop()
		if err := kernel(); err != nil {
			return err
		}
		stagetime.Mark(stageRest)
		gemm()
		stagetime.Mark(stageGEMM)
		return nil
	}
}

// expmStageCase profiles lapackx's Expm on expmCase's input.
func expmStageCase(n int) Case {
	return Case{Group: "stages", Op: "expm", Size: sizeN(n), N: float64(n), FlopCount: "≈(6+s)·2n³", Exponent: 3,
		Prepare: func(string) (*Prepared, error) {
			a := gaussian(rand.New(rand.NewPCG(uint64(n), 6)), n*n, 1/math.Sqrt(float64(n)))
			e := lapackx.NewExpm(n)
			y := make([]float64, n*n)
			clk := new(stagetime.Clock)
			return &Prepared{Clock: clk, Run: markedRun(clk, func() error { return e.Exp(y, a) }, gemmYardstick(n))}, nil
		}}
}

// lyapStageCase profiles LyapSym.Solve on lyapunovCase's input.
func lyapStageCase(n int) Case {
	return Case{Group: "stages", Op: "lyapsym", Size: sizeN(n), N: float64(n), FlopCount: "≈13n³", Exponent: 3,
		Prepare: func(string) (*Prepared, error) {
			a, c := spdInput(n), symGaussian(rand.New(rand.NewPCG(uint64(n), 5)), n, 1)
			l := lapackx.NewLyapSym(n)
			x := make([]float64, n*n)
			clk := new(stagetime.Clock)
			return &Prepared{Clock: clk, Run: markedRun(clk, func() error { return l.Solve(x, a, c) }, gemmYardstick(n))}, nil
		}}
}

// epochStageCase profiles epochCases' HINV epoch by the solver's own
// stage marks (solver.StageLower, StageEstimate, StageUpper) in one Step
// from the epoch's start, then one GEMM of order d as the yardstick.
func epochStageCase(d int) Case {
	return Case{Group: "stages", Op: "hinv", Size: "d=" + itoa(d), N: float64(d), FlopCount: "≈S·30d³", Exponent: 3, Rounds: 3,
		Prepare: func(string) (*Prepared, error) {
			e, err := newSyntheticEpoch(d, "hinv", 0)
			if err != nil {
				return nil, err
			}
			clk := new(stagetime.Clock)
			run := markedRun(clk, func() error { _, err := e.rh.Step(); return err }, gemmYardstick(d))
			return &Prepared{Clock: clk, Run: func() error {
				if err := e.rh.Reset(e.w, e.m); err != nil {
					return err
				}
				return run()
			}}, nil
		}}
}
