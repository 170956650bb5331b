//go:build cgo

package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// cabiRun is what the C ABI reports of a run: result, iterates, best
// iterates and history, floats as bits, the elapsed column left out.
type cabiRun struct {
	res                ctest.Result
	f, bestF           uint64
	x, y, bestX, bestY []uint64
	history            []uint64
}

func bitsOf(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}

// cabiResult reads solver s's last run.
func cabiResult(t *testing.T, p, s int64) cabiRun {
	t.Helper()
	lx, ly, _ := ctest.ProblemDims(p)
	res, rc := ctest.SolverResult(s)
	require.Equal(t, okC, rc)
	x, y, bx, by := make([]float64, lx), make([]float64, ly), make([]float64, lx), make([]float64, ly)
	require.Equal(t, okC, ctest.SolverX(s, lx, x))
	require.Equal(t, okC, ctest.SolverY(s, ly, y))
	require.Equal(t, okC, ctest.SolverBest(s, lx, bx, ly, by))
	rows, n, rc := ctest.SolverHistory(s, 1000)
	require.Equal(t, okC, rc)
	rows = rows[:int(n)*histCols]
	for k := range n {
		rows[int(k)*histCols+4] = 0 // elapsed
	}
	f, bestF := math.Float64bits(res.F), math.Float64bits(res.BestF)
	res.Runtime, res.F, res.BestF = 0, 0, 0
	return cabiRun{res, f, bestF, bitsOf(x), bitsOf(y), bitsOf(bx), bitsOf(by), bitsOf(rows)}
}

// TestCABICheckpoint: rhgd_solver_set_checkpoint makes a run that is
// cancelled (by its callback, at epoch 5) write its checkpoint, and
// rhgd_solver_resume on a new solver of the same problem and settings
// ends as the uninterrupted run: result, iterates, best iterates and the
// history (the checkpoint's rows, then the new ones) bit for bit but the
// times; for CG with its warm start and for RSHGD with the paper's
// batches. every = 0, a missing directory or file, a truncated file,
// other settings or another problem's parameters are RHGD_EINVAL naming
// what is wrong.
func TestCABICheckpoint(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, problem string
		params        []string
		est, settings string
	}{
		{"cg-warm", "synthetic", []string{"n=30", "d=8", "r=3"}, "cg:warm=true,tol=1e-6", "epochs=12,seed=3"},
		{"rshgd", "hyperrep", []string{"n=40", "d=6", "k=2", "ntrain=20"}, "cg", "epochs=12,batches=paper"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, rc := ctest.Builtin(c.problem, c.params, "", 5)
			require.Equal(t, okC, rc)
			defer ctest.ProblemFree(p)
			newSolver := func(settings string) int64 {
				s, rc := ctest.SolverNew(p, c.est, settings)
				require.Equal(t, okC, rc)
				t.Cleanup(func() { ctest.SolverFree(s) })
				return s
			}
			s := newSolver(c.settings)
			rc, msg := call(func() int { return ctest.SolverRun(s, nil, nil, nil) })
			require.Equal(t, okC, rc, msg)
			want := cabiResult(t, p, s)

			path := filepath.Join(dir, c.name+".ckpt")
			s = newSolver(c.settings)
			require.Equal(t, okC, ctest.SolverSetCheckpoint(s, path, 100))
			e := ctest.NewEpochs(s, 5, false, false)
			defer e.Free()
			rc, msg = call(func() int { return ctest.SolverRun(s, nil, nil, e) })
			require.Equal(t, okC, rc, msg)
			res, _ := ctest.SolverResult(s)
			require.Equal(t, 4, res.Status, "cancelled")

			s = newSolver(c.settings)
			rc, msg = call(func() int { return ctest.SolverResume(s, path, nil) })
			require.Equal(t, okC, rc, msg)
			require.Equal(t, want, cabiResult(t, p, s))

			// The errors.
			wantCode(t, "every 0", einval, func() int { return ctest.SolverSetCheckpoint(s, path, 0) }, "every = 0", ">= 1")
			wantCode(t, "no dir", einval, func() int { return ctest.SolverSetCheckpoint(s, filepath.Join(dir, "no", "x"), 1) }, "does not exist")
			require.Equal(t, okC, ctest.SolverSetCheckpoint(s, "", 0), "off")
			wantCode(t, "no file", einval, func() int { return ctest.SolverResume(s, filepath.Join(dir, "none"), nil) }, "no such file")
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			short := filepath.Join(dir, c.name+".short")
			require.NoError(t, os.WriteFile(short, b[:len(b)-7], 0o644))
			wantCode(t, "truncated", einval, func() int { return ctest.SolverResume(s, short, nil) }, "truncated")
			s2 := newSolver(c.settings + ",eta_x=0.125")
			wantCode(t, "settings", einval, func() int { return ctest.SolverResume(s2, path, nil) }, `eta_x = "`, `"0.125" in this solver`)
			params := append([]string{"noise=0.5"}, c.params...)
			if c.problem == "synthetic" {
				params = append([]string{"nu=0.02"}, c.params...)
			}
			p2, rc := ctest.Builtin(c.problem, params, "", 5)
			require.Equal(t, okC, rc)
			defer ctest.ProblemFree(p2)
			s3, rc := ctest.SolverNew(p2, c.est, c.settings)
			require.Equal(t, okC, rc)
			defer ctest.SolverFree(s3)
			wantCode(t, "problem", einval, func() int { return ctest.SolverResume(s3, path, nil) }, "of other problem: "+params[0][:len(params[0])-5])
			// The failed resumes kept the last run's result.
			require.Equal(t, want, cabiResult(t, p, s))
		})
	}
}
