//go:build cgo

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// BenchmarkCABI compares one kernel call through the C ABI, made from C
// (via=c: a C loop calling rhgd_expsym b.N times, so each call costs one
// C-to-Go crossing, as for a C or Python caller), with the same Go call
// on a workspace the caller keeps (via=go). The difference is the ABI's
// overhead: the crossing, the argument checks, the workspace pool.
func BenchmarkCABI(b *testing.B) {
	for _, op := range []string{"expsym", "logsym", "lyapunov_sym"} {
		for _, n := range []int{2, 10, 50} {
			rnd := rand.New(rand.NewPCG(uint64(n), 1))
			q := householder(n, rnd)
			d := make([]float64, n)
			for i := range d {
				d[i] = 0.5 + rnd.Float64()
			}
			a := spectral(q, d, id) // SPD
			c := spectral(householder(n, rnd), d, id)
			out := make([]float64, n*n)
			b.Run(fmt.Sprintf("op=%s/n=%d/via=go", op, n), func(b *testing.B) {
				b.ReportAllocs()
				sf, ly := lapackx.NewSymFunc(n), lapackx.NewLyapSym(n)
				for b.Loop() {
					var err error
					switch op {
					case "expsym":
						err = sf.Exp(out, a)
					case "logsym":
						err = sf.Log(out, a)
					case "lyapunov_sym":
						err = ly.Solve(out, a, c)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("op=%s/n=%d/via=c", op, n), func(b *testing.B) {
				b.ReportAllocs()
				var rc int
				switch op {
				case "expsym":
					rc = ctest.LoopExpsym(b.N, int64(n), a, out)
				case "logsym":
					rc = ctest.LoopLogsym(b.N, int64(n), a, out)
				case "lyapunov_sym":
					rc = ctest.LoopLyap(b.N, int64(n), a, c, out)
				}
				if rc != okC {
					b.Fatal(rc)
				}
			})
		}
	}
}

// BenchmarkCallback measures one callback crossing: the solver calling a
// C oracle that does nothing (Go to C and back through the trampoline).
func BenchmarkCallback(b *testing.B) {
	b.ReportAllocs()
	p, err := problemFromOracles(ctest.NoopOracles(), 0, euclid.New(10, 1), euclid.New(10, 1), false)
	if err != nil {
		b.Fatal(err)
	}
	pt := &solver.Point{X: make([]float64, 10), Y: make([]float64, 10)}
	dst := make([]float64, 10)
	for b.Loop() {
		if err := p.GradGy(dst, pt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyntheticRun is one RHGD run of the paper's synthetic problem
// at the paper's sizes (HINV, 200 epochs) in Go (via=go) and through the
// C ABI's built-in problem (via=c), both in the backend mode of this test
// binary (shared: the C ABI's default). The Python driver's number comes
// from python/examples/bench.py.
func BenchmarkSyntheticRun(b *testing.B) {
	b.Run("via=go", func(b *testing.B) {
		data, err := synthetic.Generate(synthetic.PaperN, synthetic.PaperD, synthetic.PaperR, synthetic.PaperNu, 0)
		if err != nil {
			b.Fatal(err)
		}
		p, _ := synthetic.New(data)
		w0, m0 := p.Start(7)
		s := synthetic.Paper.Settings
		s.Estimator = solver.HInv{}
		r, err := solver.New(p.Bilevel(), &s)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := r.Run(context.Background(), w0, m0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("via=c", func(b *testing.B) {
		p, rc := ctest.Builtin("synthetic", nil, "", 0)
		if rc != okC {
			b.Fatal(rc)
		}
		defer ctest.ProblemFree(p)
		s, rc := ctest.SolverNew(p, "hinv", "")
		if rc != okC {
			b.Fatal(rc)
		}
		defer ctest.SolverFree(s)
		for b.Loop() {
			if rc := ctest.SolverRun(s, nil, nil, nil); rc != okC {
				b.Fatal(rc)
			}
		}
	})
}
