package solver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// ckCase is a run that a checkpoint must resume exactly: its problem,
// start and settings, built afresh (the same data) in every process.
type ckCase struct {
	name  string
	build func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings)
}

// ckSynthetic is the synthetic problem (Stiefel × SPD) at a small size
// with the paper's settings, est and 14 epochs; adaptive applies the
// adaptive preset (BB lower steps with a tolerance, BB upper steps: no
// LowerSolve here).
func ckSynthetic(est solver.Estimator, adaptive bool, lanczos int) func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
	return func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		sp := smallSynthetic(t, 10, 42)
		w0, m0 := sp.Start(1)
		set := synthetic.Paper.Settings
		set.Estimator, set.Epochs, set.Seed, set.Lanczos = est, 14, 7, lanczos
		if adaptive {
			set.ApplyAdaptive()
		}
		return sp.Bilevel(), w0, m0, set
	}
}

// ckSquad is the finite-sum quadratic run by RSHGD: every batch sampled.
func ckSquad(est solver.Estimator) func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
	return func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		s, mx, my, x0, y0 := squadSetup(5)
		set := solver.Settings{Estimator: est, Epochs: 14, InnerIters: 5, EtaY: 0.2, Seed: 3,
			Batches: solver.Batches{Lower: 4, Upper: 4, Cross: 4, Hess: 4, Report: 8}}
		return on(s.problem(), mx, my), x0, y0, set
	}
}

// ckCases are every estimator (and the damped ones, which draw Lanczos
// starts from the estimators' stream), RSHGD with every batch sampled,
// the adaptive preset with BB steps and with the exact lower solution, a
// run stopped by its relative tolerance, and AD on a fused lower loop
// (Problem.LowerStepsVJP).
var ckCases = []ckCase{
	{"hinv", ckSynthetic(solver.HInv{}, false, 4)},
	{"cg", ckSynthetic(&solver.CG{}, false, 0)},
	{"cg-warm", ckSynthetic(&solver.CG{WarmStart: true, Tol: 1e-6}, false, 0)},
	{"cg-auto", ckSynthetic(&solver.CG{AutoDamping: true}, false, 0)},
	{"ns", ckSynthetic(&solver.Neumann{}, false, 0)},
	{"ns-auto", ckSynthetic(&solver.Neumann{AutoDamping: true}, false, 0)},
	{"ad", ckSynthetic(solver.AD{}, false, 0)},
	{"fo", ckSynthetic(&solver.FirstOrder{}, false, 0)},
	{"adaptive-cg", ckSynthetic(&solver.CG{}, true, 0)},
	{"adaptive-fo", ckSynthetic(&solver.FirstOrder{ZTol: 0.5}, true, 0)},
	{"errbound-reltol", func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		// The error-bound lower rule (its factor K̂ carried between epochs)
		// and a relative tolerance on ‖ĝ₀‖ that stops the run at epoch 10.
		p, x0, y0, set := ckSynthetic(&solver.CG{}, false, 0)(t)
		set.Lower, set.RelGradTol = solver.LowerRule{Tol: 0.1, ErrBound: true}, 0.9
		return p, x0, y0, set
	}},
	{"adaptive-exact", func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		hp := smallHyperrep(t, hyperrep.Sizes{N: 30, D: 6, K: 2, NTrain: 15, Noise: 1})
		w0, b0 := hp.Start(0)
		set := hyperrep.Paper.Settings
		set.Estimator, set.Epochs = &solver.CG{}, 14
		set.ApplyAdaptive()
		return hp.Bilevel(), w0, b0, set
	}},
	{"adarhd-cg", func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		// AdaRHD: the upper accumulator α² carried between epochs, the
		// lower cap growing after epoch 5.
		p, x0, y0, set := ckSynthetic(&solver.CG{}, false, 0)(t)
		set.ApplyAdaRHD()
		return p, x0, y0, set
	}},
	{"adarhd-gd", func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		// AdaRHD-GD: AdaGD's warm start and estimate count (its growing
		// cap) carried between epochs.
		p, x0, y0, set := ckSynthetic(&solver.AdaGD{MaxIter: 3}, false, 0)(t)
		set.ApplyAdaRHD()
		return p, x0, y0, set
	}},
	{"rshgd-cg", ckSquad(&solver.CG{WarmStart: true})},
	{"rshgd-ns", ckSquad(&solver.Neumann{})},
	{"rshgd-ad", ckSquad(solver.AD{})},
	{"rshgd-fo", ckSquad(&solver.FirstOrder{})},
	{"rshgd-saba", ckSquad(&solver.SABA{Shuffle: true})},
	{"saba-stiefel", ckSABAStiefel},
	{"fused-ad", func(t testing.TB) (solver.Problem, []float64, []float64, solver.Settings) {
		d := newDquad(3, 5, 1)
		p := d.problem(true)
		calls := 0
		p.LowerStepsVJP = d.vjp(&calls)
		return p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2},
			solver.Settings{Estimator: solver.AD{}, EtaX: 0.3, EtaY: 0.2, InnerIters: 7, Epochs: 14}
	}},
}

// ckRow is what a Recorder sees of one epoch, floats as bits.
type ckRow struct {
	Epoch               int
	F, G, L, B, U       uint64 // f, ‖ĝ‖, ‖grad_y g‖, the error bound, η_x
	Steps               int
	Counts              [12]uint64
	X, Y, HG            []uint64
	MinEig, MaxEig, Res uint64
}

func bitsOf(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}

// statBits are a run's Stats but its time, as bits.
func statBits(s solver.Stats) [12]uint64 {
	return [12]uint64{uint64(s.Epochs), uint64(s.UpperGrads), uint64(s.LowerGrads), uint64(s.LowerValues),
		uint64(s.LowerSolves), uint64(s.HessVecs), uint64(s.CrossVecs), uint64(s.Iterations),
		uint64(s.RetractFailures), math.Float64bits(s.Residual), uint64(s.LowerXGrads), uint64(s.UpperYGrads)}
}

// ckTrace records every epoch; its rows are the app data of a
// checkpoint.
type ckTrace struct{ rows []ckRow }

func (c *ckTrace) Record(e *solver.EpochStats) error {
	f := math.Float64bits
	c.rows = append(c.rows, ckRow{Epoch: e.Epoch, F: f(e.F), G: f(e.HyperGradNorm), L: f(e.LowerGradNorm),
		B: f(e.HyperGradErrBound), U: f(e.UpperStep), Steps: e.LowerSteps, Counts: statBits(e.Stats),
		X: bitsOf(e.X), Y: bitsOf(e.Y), HG: bitsOf(e.HyperGrad),
		MinEig: f(e.Estimate.MinEig), MaxEig: f(e.Estimate.MaxEig), Res: f(e.Estimate.Residual)})
	return nil
}

func (c *ckTrace) marshal() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(c.rows)
	return b.Bytes(), err
}

func (c *ckTrace) unmarshal(b []byte) error {
	return gob.NewDecoder(bytes.NewReader(b)).Decode(&c.rows)
}

// ckResult is a Result as bits, its time left out.
type ckResult struct {
	X, Y, BestX, BestY []uint64
	F, BestF, G        uint64
	Status             solver.Status
	Stats              [12]uint64
}

func ckOf(r *solver.Result) ckResult {
	return ckResult{bitsOf(r.X), bitsOf(r.Y), bitsOf(r.BestX), bitsOf(r.BestY), math.Float64bits(r.F),
		math.Float64bits(r.BestF), math.Float64bits(r.HyperGradNorm), r.Status, statBits(r.Stats)}
}

// ckNew builds the case's solver with the trace and checkpointer given.
func ckNew(t testing.TB, c ckCase, tr *ckTrace, ck solver.Checkpointer) (*solver.RHGD, []float64, []float64) {
	p, x0, y0, set := c.build(t)
	if tr != nil {
		set.Recorder = tr
	}
	set.Checkpoint = ck
	r, err := solver.New(p, &set)
	require.NoError(t, err)
	return r, x0, y0
}

// ckUninterrupted is the case's run without checkpoints.
func ckUninterrupted(t testing.TB, c ckCase) (ckResult, []ckRow) {
	var tr ckTrace
	r, x0, y0 := ckNew(t, c, &tr, nil)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	return ckOf(res), tr.rows
}

// ckSaving is the case's run with every checkpoint kept in memory; it
// returns the result, the trace and the checkpoints.
func ckSaving(t testing.TB, c ckCase) (*solver.Result, *ckTrace, *memCheckpoints) {
	tr := &ckTrace{}
	mem := &memCheckpoints{tr: tr}
	r, x0, y0 := ckNew(t, c, tr, mem)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	return res, tr, mem
}

// memCheckpoints keeps every checkpoint in memory, with the trace so far.
type memCheckpoints struct {
	tr    *ckTrace
	saved [][]byte
	final []bool
}

func (m *memCheckpoints) Checkpoint(r *solver.RHGD, final bool) error {
	app, err := m.tr.marshal()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := r.SaveState(&b, "test problem", app); err != nil {
		return err
	}
	m.saved, m.final = append(m.saved, b.Bytes()), append(m.final, final)
	return nil
}

// ckResume restores a checkpoint into a new solver of the case and
// finishes the run.
func ckResume(t testing.TB, c ckCase, b []byte) (ckResult, []ckRow) {
	var tr ckTrace
	r, _, _ := ckNew(t, c, &tr, nil)
	app, err := r.LoadState(bytes.NewReader(b), "test problem")
	require.NoError(t, err)
	require.NoError(t, tr.unmarshal(app))
	res, err := r.Resume(context.Background())
	require.NoError(t, err)
	return ckOf(res), tr.rows
}

// TestCheckpointResume: for every case, a run resumed from a checkpoint
// taken after any of its epochs (in a new solver, from the bytes alone)
// ends as the uninterrupted run does, bit for bit: iterates, best
// iterates, f, the hypergradient norm, status and counts, and every
// epoch's record after the restore; taking the checkpoints does not
// change the run. A run cancelled mid-way writes a final checkpoint
// before its final lower solve, from which the resumed run also ends as
// the uninterrupted one.
func TestCheckpointResume(t *testing.T) {
	for _, c := range ckCases {
		t.Run(c.name, func(t *testing.T) {
			want, wantRows := ckUninterrupted(t, c)
			res, tr, mem := ckSaving(t, c)
			require.Equal(t, want, ckOf(res), "checkpoints changed the run")
			require.Equal(t, wantRows, tr.rows)
			if want.Status == solver.GradientThreshold { // one per epoch but the last
				require.Len(t, mem.saved, len(wantRows)-1)
			} else { // one per epoch and the final one
				require.Equal(t, solver.IterationLimit, want.Status)
				require.Len(t, mem.saved, len(wantRows)+1)
			}
			for k, b := range mem.saved {
				got, rows := ckResume(t, c, b)
				require.Equal(t, want, got, "resumed after epoch %d", k+1)
				require.Equal(t, wantRows, rows, "resumed after epoch %d", k+1)
			}

			// Cancelled after epoch 5: the final checkpoint resumes.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tr = &ckTrace{}
			mem = &memCheckpoints{tr: tr}
			r, x0, y0 := ckNew(t, c, tr, checkpointerFunc(func(r *solver.RHGD, final bool) error {
				if r.Epoch() == 5 {
					cancel()
				}
				if !final {
					return nil
				}
				return mem.Checkpoint(r, final)
			}))
			res, err := r.Run(ctx, x0, y0)
			require.NoError(t, err)
			require.Equal(t, solver.Cancelled, res.Status)
			require.Len(t, mem.saved, 1)
			got, rows := ckResume(t, c, mem.saved[0])
			require.Equal(t, want, got, "resumed after a cancellation")
			require.Equal(t, wantRows, rows)
		})
	}
}

type checkpointerFunc func(r *solver.RHGD, final bool) error

func (f checkpointerFunc) Checkpoint(r *solver.RHGD, final bool) error { return f(r, final) }

// ckHelperEnv names the case a helper process runs (TestCheckpointHelper)
// and ckPathEnv its checkpoint file.
const (
	ckHelperEnv = "RHGD_CHECKPOINT_HELPER"
	ckPathEnv   = "RHGD_CHECKPOINT_PATH"
)

// TestCheckpointHelper is the process TestCheckpointKill kills: it runs
// a case with a checkpoint file written after every epoch, prints
// "saved k" after each and pauses 5 ms, so that the kill lands at a
// random point of the next epoch or of its write. It does nothing in a
// normal test run.
func TestCheckpointHelper(t *testing.T) {
	name := os.Getenv(ckHelperEnv)
	if name == "" {
		t.Skip("helper process of TestCheckpointKill")
	}
	for _, c := range ckCases {
		if c.name != name {
			continue
		}
		tr := &ckTrace{}
		file := &solver.CheckpointFile{Path: os.Getenv(ckPathEnv), Every: 1, Problem: "test problem", App: tr.marshal}
		r, x0, y0 := ckNew(t, c, tr, checkpointerFunc(func(r *solver.RHGD, final bool) error {
			if err := file.Checkpoint(r, final); err != nil {
				return err
			}
			fmt.Printf("saved %d\n", r.Epoch())
			time.Sleep(5 * time.Millisecond)
			return nil
		}))
		_, err := r.Run(context.Background(), x0, y0)
		require.NoError(t, err)
		os.Exit(0)
	}
	t.Fatalf("no case %q", name)
}

// TestCheckpointKill: a process running a case with a checkpoint after
// every epoch, killed with SIGKILL at a random epoch (while computing the
// next epoch or writing its checkpoint), leaves a checkpoint that
// resumes, in this process, to the uninterrupted run's end bit for bit,
// with the killed run's history continued; for every case (every
// estimator, RSHGD, the adaptive preset).
func TestCheckpointKill(t *testing.T) {
	if os.Getenv(ckHelperEnv) != "" {
		t.Skip("in the helper")
	}
	rnd := rand.New(rand.NewPCG(29, 4))
	for _, c := range ckCases {
		t.Run(c.name, func(t *testing.T) {
			want, wantRows := ckUninterrupted(t, c)
			path := filepath.Join(t.TempDir(), "run.ckpt")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCheckpointHelper$")
			cmd.Env = append(os.Environ(), ckHelperEnv+"="+c.name, ckPathEnv+"="+path)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			at := 1 + rnd.IntN(len(wantRows)/2) // well before the run's end
			sc := bufio.NewScanner(out)
			for sc.Scan() && sc.Text() != "saved "+strconv.Itoa(at) {
			}
			time.Sleep(time.Duration(rnd.IntN(5000)) * time.Microsecond)
			require.NoError(t, cmd.Process.Kill())
			for sc.Scan() {
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the helper ended before the kill: %s", stderr.String())
			require.Contains(t, ee.String(), "killed")

			var tr ckTrace
			r, _, _ := ckNew(t, c, &tr, nil)
			app, err := (&solver.CheckpointFile{Path: path, Every: 1, Problem: "test problem"}).Load(r)
			require.NoError(t, err)
			require.NoError(t, tr.unmarshal(app))
			require.GreaterOrEqual(t, r.Epoch(), at)
			t.Logf("killed after epoch %d's checkpoint; resumed at epoch %d of %d", at, r.Epoch(), len(wantRows))
			res, err := r.Resume(context.Background())
			require.NoError(t, err)
			require.Equal(t, want, ckOf(res))
			require.Equal(t, wantRows, tr.rows)
		})
	}
}

// ckValid returns a checkpoint of the cg case after 3 epochs.
func ckValid(t *testing.T) []byte {
	_, _, mem := ckSaving(t, ckCases[1])
	return mem.saved[2]
}

// withCRC returns b with its checksum recomputed, so that a change
// reaches the checks behind it.
func withCRC(b []byte) []byte {
	b = bytes.Clone(b)
	end := len(b) - 4
	binary.LittleEndian.PutUint32(b[end:], crcC(b[:end]))
	return b
}

func crcC(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// TestCheckpointErrors: a checkpoint that is not one, of another version,
// truncated anywhere, corrupt, with bytes after its end, or of another
// problem description, estimator, setting, size, or data is an error
// wrapping ErrCheckpoint (and numerr.ErrInvalid) that says which, and
// leaves the solver with no run to resume.
func TestCheckpointErrors(t *testing.T) {
	good := ckValid(t)
	c := ckCases[1]
	load := func(t *testing.T, b []byte, problem string, mod func(*solver.Settings)) error {
		t.Helper()
		p, _, _, set := c.build(t)
		if mod != nil {
			mod(&set)
		}
		r, err := solver.New(p, &set)
		require.NoError(t, err)
		_, err = r.LoadState(bytes.NewReader(b), problem)
		if err != nil {
			_, rerr := r.Resume(context.Background())
			require.ErrorIs(t, rerr, numerr.ErrInvalid)
			require.ErrorContains(t, rerr, "no run to resume")
		}
		return err
	}
	require.NoError(t, load(t, good, "test problem", nil))
	check := func(t *testing.T, err error, want ...string) {
		t.Helper()
		require.ErrorIs(t, err, solver.ErrCheckpoint)
		require.ErrorIs(t, err, numerr.ErrInvalid)
		for _, w := range want {
			require.ErrorContains(t, err, w)
		}
	}
	t.Run("magic", func(t *testing.T) {
		check(t, load(t, []byte("PK\x03\x04 not a checkpoint"), "test problem", nil), "not an rhgd checkpoint")
		check(t, load(t, nil, "test problem", nil), "not an rhgd checkpoint")
	})
	t.Run("version", func(t *testing.T) {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[8:], solver.CheckpointVersion+1)
		check(t, load(t, withCRC(b), "test problem", nil), fmt.Sprintf("format version %d, this rhgd reads version %d", solver.CheckpointVersion+1, solver.CheckpointVersion))
	})
	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{12, 19, 20, 100, len(good) / 2, len(good) - 5, len(good) - 1} {
			check(t, load(t, good[:n], "test problem", nil), "truncated")
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		for _, at := range []int{25, len(good) / 2, len(good) - 10, len(good) - 2} {
			b := bytes.Clone(good)
			b[at] ^= 0x10
			check(t, load(t, b, "test problem", nil), "checksum mismatch")
		}
	})
	t.Run("trailing", func(t *testing.T) {
		check(t, load(t, append(bytes.Clone(good), 0, 0, 0), "test problem", nil), "3 bytes after the checkpoint's end")
	})
	t.Run("problem", func(t *testing.T) {
		check(t, load(t, good, "another problem", nil), `problem = "test problem" in the checkpoint, "another problem" in this solver`)
	})
	t.Run("settings", func(t *testing.T) {
		check(t, load(t, good, "test problem", func(s *solver.Settings) { s.EtaX = 0.25 }), `eta_x = "0.5" in the checkpoint, "0.25" in this solver`)
		check(t, load(t, good, "test problem", func(s *solver.Settings) { s.Seed = 8 }), `seed = "7" in the checkpoint, "8"`)
		check(t, load(t, good, "test problem", func(s *solver.Settings) { s.Estimator = &solver.CG{Tol: 1e-8} }), "estimator = ", "tol=1e-08")
		check(t, load(t, good, "test problem", func(s *solver.Settings) { s.Upper.BB = true }), `upper_bb = "false" in the checkpoint, "true"`)
	})
	t.Run("sizes", func(t *testing.T) {
		sp := smallSynthetic(t, 8, 42)
		r, err := solver.New(sp.Bilevel(), &solver.Settings{Estimator: &solver.CG{}})
		require.NoError(t, err)
		_, err = r.LoadState(bytes.NewReader(good), "test problem")
		check(t, err, `len_x = "40" in the checkpoint, "32" in this solver`)
	})
	t.Run("data", func(t *testing.T) {
		sp := smallSynthetic(t, 10, 43)
		_, _, _, set := c.build(t)
		r, err := solver.New(sp.Bilevel(), &set)
		require.NoError(t, err)
		_, err = r.LoadState(bytes.NewReader(good), "test problem")
		check(t, err, "of other data: f at the saved iterate is")
	})
	t.Run("file", func(t *testing.T) {
		p, _, _, set := c.build(t)
		r, err := solver.New(p, &set)
		require.NoError(t, err)
		missing := filepath.Join(t.TempDir(), "none.ckpt")
		_, err = (&solver.CheckpointFile{Path: missing, Every: 1}).Load(r)
		require.ErrorIs(t, err, fs.ErrNotExist)
		bad := filepath.Join(t.TempDir(), "bad.ckpt")
		require.NoError(t, os.WriteFile(bad, good[:len(good)/2], 0o644))
		_, err = (&solver.CheckpointFile{Path: bad, Every: 1, Problem: "test problem"}).Load(r)
		check(t, err, bad, "truncated")
	})
}

// TestCheckpointFile: CheckpointFile writes every Every epochs and at the
// run's end (once, when the last epoch was a multiple of Every; at epoch
// 0 for a run cancelled before its first), through a temporary file that
// does not stay; Every = 0 is an error naming it; a call that does not
// write allocates nothing; a run with no state to resume is an error.
func TestCheckpointFile(t *testing.T) {
	c := ckCases[1]
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	var epochs []int
	var file *solver.CheckpointFile
	r, x0, y0 := ckNew(t, c, nil, checkpointerFunc(func(r *solver.RHGD, final bool) error {
		before, _ := os.Stat(path)
		if err := file.Checkpoint(r, final); err != nil {
			return err
		}
		if after, _ := os.Stat(path); after != nil && (before == nil || !os.SameFile(before, after)) {
			epochs = append(epochs, r.Epoch())
		}
		return nil
	}))
	for _, every := range []int{7, 4} {
		epochs, file = nil, &solver.CheckpointFile{Path: path, Every: every, Problem: "test problem"}
		_, err := r.Run(context.Background(), x0, y0)
		require.NoError(t, err)
		require.Equal(t, map[int][]int{7: {7, 14}, 4: {4, 8, 12, 14}}[every], epochs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	epochs = nil
	_, err := r.Run(ctx, x0, y0)
	require.NoError(t, err)
	require.Equal(t, []int{0}, epochs)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "a temporary file stayed")
	allocs := testing.AllocsPerRun(10, func() {
		if err := (&solver.CheckpointFile{Path: path, Every: 1000}).Checkpoint(r, false); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)
	err = (&solver.CheckpointFile{Path: path}).Checkpoint(r, true)
	require.ErrorIs(t, err, solver.ErrBadSetting)
	require.ErrorContains(t, err, "Every = 0")

	// The checkpoint at the end resumes to the same result at once.
	r2, _, _ := ckNew(t, c, nil, nil)
	_, err = file.Load(r2)
	require.NoError(t, err)
	res2, err := r2.Resume(context.Background())
	require.NoError(t, err)
	require.Equal(t, ckOf(res), ckOf(res2))

	r3, _, _ := ckNew(t, c, nil, nil)
	_, err = r3.Resume(context.Background())
	require.ErrorIs(t, err, numerr.ErrInvalid)
	require.ErrorContains(t, err, "no run to resume")

	err = solver.WriteFileAtomic(filepath.Join(dir, "no", "such", "dir"), []byte("x"))
	require.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
	require.NoError(t, solver.WriteFileAtomic(path, []byte("x")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "x", string(b))
	require.False(t, strings.Contains(fmt.Sprint(entries), ".tmp"))
}

// hideState is CG with a warm start whose instance does not save its
// state: an estimator written without MarshalBinary.
type hideState struct{ solver.CG }

func (h *hideState) Bind(env *solver.Env) (solver.Hypergrad, error) {
	in, err := h.CG.Bind(env)
	return struct{ solver.Hypergrad }{in}, err
}

// TestCheckpointCatchesLostState: the comparison TestCheckpointResume
// makes fails when state is lost: CG's warm start, hidden from the
// checkpoint, makes a resumed run differ from the uninterrupted one.
func TestCheckpointCatchesLostState(t *testing.T) {
	c := ckCase{"hidden", ckSynthetic(&hideState{solver.CG{WarmStart: true, Tol: 1e-6}}, false, 0)}
	want, wantRows := ckUninterrupted(t, c)
	_, _, mem := ckSaving(t, c)
	got, rows := ckResume(t, c, mem.saved[5])
	require.NotEqual(t, want, got)
	require.NotEqual(t, wantRows, rows)
}
