//go:build cgo

package main

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// TestFloat32Inputs: through the C ABI, a built-in problem's float32 data
// file, a float32 start given to rhgd_problem_set_start or
// rhgd_solver_run, and float32 coupling marginals are accepted, projected
// once, and noted (rhgd_problem_notes); a start clearly off is RHGD_EINVAL
// naming it, with the bound.
func TestFloat32Inputs(t *testing.T) {
	const n, d, r = 30, 8, 3
	st, sp := stiefel.New(d, r), spd.New(d)
	rnd := rand.New(rand.NewPCG(2, 2))
	w0, m0 := make([]float64, d*r), make([]float64, d*d)
	st.RandPoint(w0, rnd)
	for i := 0; i < d; i++ { // M0 = I + 0.05 S, S symmetric with entries in [−1, 1]
		m0[i*d+i] = 1
		for j := 0; j < i; j++ {
			v := 0.05 * (2*rnd.Float64() - 1)
			m0[i*d+j], m0[j*d+i] = v, v
		}
	}
	if err := sp.CheckPoint(m0); err != nil {
		t.Fatal(err)
	}
	data, err := synthetic.Generate(n, d, r, synthetic.PaperNu, 3)
	if err != nil {
		t.Fatal(err)
	}
	x, y := data.X, data.Y
	path := filepath.Join(t.TempDir(), "f32.npz")
	if err := problems.WriteNPZ(path, f32test.Float32(map[string][]float64{"X": x, "Y": y, "W0": w0, "M0": f32test.Sym(m0, d), "nu": {0.01}}),
		map[string][]int{"X": {n, d}, "Y": {n, r}, "W0": {d, r}, "M0": {d, d}}); err != nil {
		t.Fatal(err)
	}
	p, rc := ctest.Builtin("synthetic", nil, path, 1)
	if rc != okC {
		t.Fatalf("builtin from float32 data: %d", rc)
	}
	defer ctest.ProblemFree(p)
	notes := func() []string {
		k, s := ctest.ProblemNotes(p, 4096)
		if k != len(s) {
			t.Fatalf("notes: length %d for %q", k, s)
		}
		return strings.Split(s, "\n")
	}
	if got := notes(); len(got) != 2 || !strings.HasPrefix(got[0], "W0: ‖XᵀX − I‖_F") || !strings.HasPrefix(got[1], "M0: ") {
		t.Fatalf("notes %q, want W0's and M0's", got)
	}
	s, rc := ctest.SolverNew(p, "hinv", "epochs=3")
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.SolverFree(s)
	if rc, msg := call(func() int { return ctest.SolverRun(s, nil, nil, nil) }); rc != okC {
		t.Fatalf("run from the file's start: %d %s", rc, msg)
	}

	// A float32 start: set, then run from directly; the notes name x0 and
	// y0 once.
	xs, ys := f32test.Round(w0), f32test.Sym(m0, d)
	if rc, msg := call(func() int { return ctest.ProblemSetStart(p, xs, ys) }); rc != okC {
		t.Fatalf("set_start with a float32 start: %d %s", rc, msg)
	}
	gx := make([]float64, d*r)
	ctest.ProblemStart(p, gx, nil)
	if err := st.CheckPoint(gx); err != nil {
		t.Errorf("the start set: %v", err)
	}
	if rc, msg := call(func() int { return ctest.SolverRun(s, xs, ys, nil) }); rc != okC {
		t.Fatalf("run from a float32 start: %d %s", rc, msg)
	}
	if got := notes(); len(got) != 4 || !strings.HasPrefix(got[2], "x0: ‖XᵀX − I‖_F") || !strings.HasPrefix(got[3], "y0: ") {
		t.Errorf("notes %q, want x0's and y0's once after W0's and M0's", got)
	}
	off := append([]float64(nil), xs...)
	off[0] += 0.01
	wantCode(t, "set_start off by 0.01", einval, func() int { return ctest.ProblemSetStart(p, off, ys) }, "x0: stiefel: columns not orthonormal")
	wantCode(t, "run off by 0.01", einval, func() int { return ctest.SolverRun(s, off, ys, nil) }, "beyond float32 rounding")

	// Uniform float32 marginals: b is rescaled, and a problem made on the
	// manifold notes it.
	const cm, cn = 157, 49
	a, b := make([]float64, cm), make([]float64, cn)
	for i := range a {
		a[i] = 1.0 / cm
	}
	for j := range b {
		b[j] = 1.0 / cn
	}
	mc, rc := ctest.ManifoldCoupling(cm, cn, f32test.Round(a), f32test.Round(b), "")
	if rc != okC {
		t.Fatalf("coupling with float32 marginals: %d", rc)
	}
	defer ctest.ManifoldFree(mc)
	me := testManifold(t, "euclid:r=2")
	q, rc := ctest.NoopProblem(mc, me)
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.ProblemFree(q)
	if k, s := ctest.ProblemNotes(q, 4096); k != len(s) || !strings.HasPrefix(s, "mx: marginals: ") || !strings.Contains(s, "rescaled") {
		t.Errorf("notes of a problem on the coupling manifold: %q", s)
	}
}
