//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/solver"
)

// solverObj is what a solver handle names: RHGD on one problem, with the
// last run's result and history.
type solverObj struct {
	busy
	prob *problemObj
	r    *solver.RHGD
	rec  *recorder
	ck   *ckptProxy // rhgd_solver_set_checkpoint's file
	desc string     // the effective estimator;settings
	// epochs is the epoch limit, for the history's capacity.
	epochs int
	// cancelMu guards cancel, which rhgd_solver_cancel calls from any
	// thread while the run holds busy.
	cancelMu sync.Mutex
	cancel   context.CancelFunc
	// The last run: ran is set once one started.
	ran     bool
	res     *solver.Result
	runCode int
}

func (*solverObj) kind() string { return "solver" }

// parseSettings applies a settings spec over s: solver.ParseSettings'
// keys (its table, solver.SettingsTable, is the list rhgd.h documents)
// and batches=paper|full, which only a built-in problem can resolve.
// stochastic is the problem's paper minibatch sizes, if it has them.
func parseSettings(text string, s *solver.Settings, stochastic *solver.Batches) error {
	pairs, err := keyval.Split(text)
	if err != nil {
		return argf("settings %q: %v", text, err)
	}
	if k, dup := keyval.Dup(pairs); dup {
		return argf("settings %q: %s given twice", text, k)
	}
	var rest []keyval.Pair
	for _, p := range pairs {
		if p.Key != batchesKey {
			rest = append(rest, p)
			continue
		}
		switch p.Value {
		case "full":
			s.Batches = solver.Batches{}
		case "paper":
			if stochastic == nil {
				return argf("settings %q: batches=paper, but the problem has no paper minibatch sizes", text)
			}
			s.Batches = *stochastic
		default:
			return argf("settings %q: batches=%q: want paper or full", text, p.Value)
		}
	}
	ns, err := solver.ParseSettings(keyval.Join(rest), *s)
	if err != nil {
		return err
	}
	*s = ns
	return nil
}

// batchesKey is the one settings key of the C ABI beyond
// solver.ParseSettings': the paper's minibatch sizes of a built-in
// problem (batches=paper) or none (batches=full).
const batchesKey = "batches"

// settingsString is the effective settings spec of s: the preset its
// rules amount to, then every field, which parseSettings reads back.
func settingsString(s *solver.Settings) string {
	return solver.PresetKey + "=" + s.Preset() + "," + s.String()
}

// newSolver builds a solver on o from an estimator spec and settings.
func newSolver(o *problemObj, est, settings string) (*solverObj, error) {
	var s solver.Settings
	var stochastic *solver.Batches
	if o.inst != nil {
		s = o.inst.Settings
		stochastic = o.inst.Stochastic
	}
	if err := parseSettings(settings, &s, stochastic); err != nil {
		return nil, err
	}
	switch {
	case est != "" && o.inst != nil:
		e, err := o.inst.Estimator(est)
		if err != nil {
			return nil, err
		}
		s.Estimator = e
	case est != "":
		e, err := solver.ParseEstimator(est)
		if err != nil {
			return nil, err
		}
		s.Estimator = e
	}
	s, err := s.WithDefaults() // so that the effective spec says what runs
	if err != nil {
		return nil, err
	}
	rec, ck := &recorder{}, &ckptProxy{}
	s.Recorder, s.Checkpoint = rec, ck
	r, err := solver.New(o.p, &s)
	if err != nil {
		return nil, err
	}
	return &solverObj{prob: o, r: r, rec: rec, ck: ck, epochs: s.Epochs, desc: fmt.Sprint(s.Estimator) + ";" + settingsString(&s)}, nil
}

//export rhgdgo_solver_new
func rhgdgo_solver_new(h C.int64_t, est, settings *C.char, out *C.int64_t) C.int {
	return guard(func() error {
		if out == nil {
			return argf("out is %v", termNULL)
		}
		var e, st string
		if est != nil {
			e = C.GoString(est)
		}
		if settings != nil {
			st = C.GoString(settings)
		}
		o, err := claim[*problemObj](int64(h), "problem")
		if err != nil {
			return err
		}
		defer o.release()
		s, err := newSolver(o, e, st)
		if err != nil {
			return err
		}
		*out = C.int64_t(handles.add(s))
		return nil
	})
}

//export rhgdgo_solver_settings
func rhgdgo_solver_settings(h C.int64_t, buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		s, err := lookup[*solverObj](&handles, int64(h), "solver")
		if err != nil {
			return "", err
		}
		return s.desc, nil
	})
}

// acquireBoth takes s and its problem for one call that evaluates the
// problem's oracles (a run, a hypergradient): another call on either is
// refused as busy. The returned function releases both.
func (s *solverObj) acquireBoth() (func(), error) {
	if err := s.acquire("solver"); err != nil {
		return nil, err
	}
	if err := s.prob.acquire("problem (another solver of it is running)"); err != nil {
		s.release()
		return nil, err
	}
	return func() { s.prob.release(); s.release() }, nil
}

// run runs s from (x0, y0), or the problem's start when both are nil.
func (s *solverObj) run(x0, y0 *C.double, fn C.rhgd_epoch_fn, user C.uintptr_t) error {
	release, err := s.acquireBoth()
	if err != nil {
		return err
	}
	defer release()
	o := s.prob
	var x, y []float64
	switch {
	case x0 == nil && y0 == nil:
		if o.x0 == nil {
			return argf("x0 and y0 are %v and the problem has no starting point", termNULL)
		}
		x, y = o.x0, o.y0
	case x0 == nil || y0 == nil:
		return argf("give both x0 and y0, or neither")
	default:
		var nx, ny string
		var err error
		if x, nx, err = snapStart("x0", o.p.Mx, view(x0, o.p.Mx.Len())); err != nil {
			return err
		}
		if y, ny, err = snapStart("y0", o.p.My, view(y0, o.p.My.Len())); err != nil {
			return err
		}
		o.addNotes(nx, ny)
	}
	return s.runWith(fn, user, nil, func(ctx context.Context) (*solver.Result, error) { return s.r.Run(ctx, x, y) })
}

// runWith runs body, a run of s.r, with a context that
// rhgd_solver_cancel and the epoch callback fn cancel, and keeps its
// result; history, when not nil, is the history before the run (a
// checkpoint's). s and its problem are held by the caller.
func (s *solverObj) runWith(fn C.rhgd_epoch_fn, user C.uintptr_t, history []histRow, body func(context.Context) (*solver.Result, error)) error {
	o := s.prob
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cancelMu.Lock()
	s.cancel = cancel
	s.cancelMu.Unlock()
	defer func() {
		s.cancelMu.Lock()
		s.cancel = nil
		s.cancelMu.Unlock()
	}()
	if err := s.rec.begin(s.epochs, o.p.Mx.Len(), o.p.My.Len(), fn, user, cancel); err != nil {
		return err
	}
	defer s.rec.end()
	s.rec.history = append(s.rec.history, history...)
	s.ran, s.res = true, nil
	res, err := body(ctx)
	s.res, s.runCode = res, codeOf(err)
	if err != nil && res == nil {
		// Reset rejected the start: the error says which argument.
		if codeOf(err) == codeInval {
			return input("start", err)
		}
	}
	return err
}

//export rhgdgo_solver_run
func rhgdgo_solver_run(h C.int64_t, x0, y0 *C.double, fn C.rhgd_epoch_fn, user C.uintptr_t) C.int {
	return guard(func() error {
		s, err := lookup[*solverObj](&handles, int64(h), "solver")
		if err != nil {
			return err
		}
		return s.run(x0, y0, fn, user)
	})
}

//export rhgdgo_solver_cancel
func rhgdgo_solver_cancel(h C.int64_t) C.int {
	return guard(func() error {
		s, err := lookup[*solverObj](&handles, int64(h), "solver")
		if err != nil {
			return err
		}
		s.cancelMu.Lock()
		defer s.cancelMu.Unlock()
		if s.cancel != nil {
			s.cancel()
		}
		return nil
	})
}

// withResult runs fn on the solver h names after a run.
func withResult(h C.int64_t, fn func(s *solverObj) error) C.int {
	return guard(func() error {
		s, err := claim[*solverObj](int64(h), "solver")
		if err != nil {
			return err
		}
		defer s.release()
		if !s.ran {
			return argf("the solver has not run yet")
		}
		return fn(s)
	})
}

//export rhgdgo_solver_result
func rhgdgo_solver_result(h C.int64_t, out *C.rhgd_result) C.int {
	return withResult(h, func(s *solverObj) error {
		if out == nil {
			return argf("out is %v", termNULL)
		}
		return fillResult(out, s.res, s.runCode)
	})
}

//export rhgdgo_result_names
func rhgdgo_result_names(buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) { return resultNames, nil })
}

//export rhgdgo_solver_result_value
func rhgdgo_solver_result_value(h C.int64_t, name *C.char, value *C.double) C.int {
	return withResult(h, func(s *solverObj) error {
		if name == nil || value == nil {
			return argf("name or value is %v", termNULL)
		}
		n := C.GoString(name)
		for i := range resultFields {
			if f := &resultFields[i]; f.name == n {
				*value = C.double(f.value(s.res, s.runCode))
				return nil
			}
		}
		return argf("name = %q: not a result field (%v: %s)", n, fnTerm("rhgd_result_names"), resultNames)
	})
}

//export rhgdgo_solver_best
func rhgdgo_solver_best(h, nx C.int64_t, bx *C.double, ny C.int64_t, by *C.double) C.int {
	return withResult(h, func(s *solverObj) error {
		if s.res == nil {
			return argf("the last run did not start (%v's error says why)", fnTerm("rhgd_solver_run"))
		}
		for _, a := range []struct {
			name string
			n    C.int64_t
			out  *C.double
			src  []float64
		}{{"best_x", nx, bx, s.res.BestX}, {"best_y", ny, by, s.res.BestY}} {
			if a.out == nil {
				continue
			}
			if int64(a.n) != int64(len(a.src)) {
				return argf("len of %s = %d, but it has %d entries", a.name, int64(a.n), len(a.src))
			}
			copy(view(a.out, len(a.src)), a.src)
		}
		return nil
	})
}

// iterate copies the last run's x or y out.
func iterate(h C.int64_t, n C.int64_t, out *C.double, which string) C.int {
	return withResult(h, func(s *solverObj) error {
		if s.res == nil {
			return argf("the last run did not start (%v's error says why)", fnTerm("rhgd_solver_run"))
		}
		v := s.res.X
		if which == "y" {
			v = s.res.Y
		}
		if int64(n) != int64(len(v)) {
			return argf("len = %d, but %s has %d entries", int64(n), which, len(v))
		}
		if out == nil {
			return argf("out is %v", termNULL)
		}
		copy(view(out, len(v)), v)
		return nil
	})
}

//export rhgdgo_solver_x
func rhgdgo_solver_x(h, n C.int64_t, out *C.double) C.int { return iterate(h, n, out, "x") }

//export rhgdgo_solver_y
func rhgdgo_solver_y(h, n C.int64_t, out *C.double) C.int { return iterate(h, n, out, "y") }

//export rhgdgo_solver_history
func rhgdgo_solver_history(h, maxRows, cols C.int64_t, rows *C.double, nrows *C.int64_t) C.int {
	return withResult(h, func(s *solverObj) error {
		if nrows == nil {
			return argf("nrows is %v", termNULL)
		}
		if cols < 1 {
			return argf("cols = %d, want the row width (>= 1; the library has %d columns)", int64(cols), histCols)
		}
		if maxRows < 0 || (maxRows > 0 && rows == nil) {
			return argf("max_rows = %d with rows %v", int64(maxRows), rows)
		}
		hist := s.rec.history
		*nrows = C.int64_t(len(hist))
		k, w := min(int(maxRows), len(hist)), int(cols)
		if k > 0 {
			dst := view(rows, k*w)
			for i := range k {
				row := dst[i*w : (i+1)*w]
				n := copy(row, hist[i][:])
				for j := n; j < w; j++ {
					row[j] = math.NaN()
				}
			}
		}
		return nil
	})
}

//export rhgdgo_history_cols
func rhgdgo_history_cols(n *C.int64_t) C.int {
	return guard(func() error {
		if n == nil {
			return argf("ncols is %v", termNULL)
		}
		*n = C.int64_t(histCols)
		return nil
	})
}

//export rhgdgo_history_names
func rhgdgo_history_names(buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) { return strings.Join(histNames[:], ","), nil })
}

//export rhgdgo_solver_free
func rhgdgo_solver_free(h C.int64_t) C.int {
	return guard(func() error {
		_, err := remove[*solverObj](&handles, int64(h), "solver")
		return err
	})
}

//export rhgdgo_live_handles
func rhgdgo_live_handles(n *C.int64_t) C.int {
	return guard(func() error {
		if n == nil {
			return argf("n is %v", termNULL)
		}
		*n = C.int64_t(handles.len())
		return nil
	})
}
