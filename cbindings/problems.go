//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/solver"
)

// problemObj is what a problem handle names.
type problemObj struct {
	busy
	p solver.Problem
	// fd is p with the second-order oracles filled by differences, for
	// rhgd_problem_oracle; made on first use.
	fd     *solver.Problem
	x0, y0 []float64 // the starting point, nil until known
	// inst is the built-in problem's Instance (nil for callbacks), whose
	// settings and estimator settings solvers start from.
	inst *problems.Instance
	// cb keeps a callback problem's function pointers.
	cb   *cOracles
	desc string
	// spec identifies the problem in its solvers' checkpoints: a built-in
	// one's name, every parameter's value, data file and seed; a callback
	// problem's desc.
	spec string
	// notes say what rhgd did to the inputs given with the problem: its
	// data and manifolds, and the starting points set or run from
	// (projected when within float32 rounding of their manifold).
	notesMu sync.Mutex
	notes   []string
}

// addNotes appends the notes that the problem does not have yet: a
// solver run again from the same float32 start notes it once.
func (o *problemObj) addNotes(notes ...string) {
	o.notesMu.Lock()
	defer o.notesMu.Unlock()
	for _, n := range notes {
		if n != "" && !slices.Contains(o.notes, n) {
			o.notes = append(o.notes, n)
		}
	}
}

// snapStart returns the caller's starting point x, the argument named
// name, as a point of m: x itself when it is one, else a copy projected
// onto m when x is within float32 rounding of it (solver.SnapPoint), with
// the note naming the argument.
func snapStart(name string, m solver.Manifold, x []float64) ([]float64, string, error) {
	if m.CheckPoint(x) == nil {
		return x, "", nil
	}
	c := append([]float64(nil), x...)
	note, err := solver.SnapPoint(m, c)
	if err != nil {
		return nil, "", input(name, err)
	}
	return c, name + ": " + note, nil
}

func (*problemObj) kind() string { return "problem" }

// builtinParams returns the built-in problem name with its parameters at
// their defaults (the paper's).
func builtinParams(name string) (*problems.Spec, problems.Params, error) {
	sp, err := catalog.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	return sp, sp.New(), nil
}

// paramList lists a problem's parameters as rhgd_problem_params does:
// "key=default<TAB>description" lines, keys in the C ABI's spelling
// (problems.Field.Key: "start_seed" for the flag -start-seed).
func paramList(p problems.Params) string {
	var b strings.Builder
	for _, f := range problems.Fields(p) {
		fmt.Fprintf(&b, "%s=%s\t%s\n", f.Key, f.Default, f.Doc)
	}
	return b.String()
}

// newBuiltin builds the named problem of the catalog from "key=value"
// parameters, as `rhgd run` does from flags: any problem that joins the
// catalog is reachable without changes here.
func newBuiltin(name string, params []string, data string, seed uint64) (*problemObj, error) {
	sp, p, err := builtinParams(name)
	if err != nil {
		return nil, err
	}
	if err := problems.SetParams(p, params...); err != nil {
		return nil, argf("problem %q: %v", name, err)
	}
	*p.Common() = problems.Options{Data: data, Seed: seed}
	if data != "" {
		if err := npzLimitFromHost(); err != nil {
			return nil, err
		}
	}
	in, err := sp.Build(p)
	if err != nil {
		return nil, err
	}
	spec := []keyval.Pair{{Key: "problem", Value: name}}
	for _, f := range problems.Fields(p) {
		spec = append(spec, keyval.Pair{Key: f.Key, Value: f.Default})
	}
	spec = append(spec, keyval.Pair{Key: "data", Value: data}, keyval.Pair{Key: "seed", Value: strconv.FormatUint(seed, 10)})
	return &problemObj{p: in.Problem, x0: in.X0, y0: in.Y0, inst: in, desc: name + ": " + in.Describe, spec: keyval.Join(spec),
		notes: slices.Clone(in.Notes)}, nil
}

// npzLimitFromHost sets the bound on one array of a data file
// (problems.SetMaxArrayBytes) from the host's environment as it is now
// (RHGD_NPZ_MAX_BYTES through C's getenv, which sees what Python's
// os.environ set after the library loaded; Go's os.Getenv would not), or
// to the default when the variable is unset. Only the C ABI uses the
// problems package inside the library, so the setting is this call's.
func npzLimitFromHost() error {
	n := problems.DefaultMaxArrayBytes
	if s := getenv(problems.EnvMaxArrayBytes); s != "" {
		var err error
		if n, err = problems.ParseByteSize(s); err != nil {
			return argf("%s=%q: %v", problems.EnvMaxArrayBytes, s, err)
		}
	}
	problems.SetMaxArrayBytes(n)
	return nil
}

//export rhgdgo_default_seed
func rhgdgo_default_seed() C.uint64_t { return C.uint64_t(problems.DefaultSeed) }

//export rhgdgo_problem_names
func rhgdgo_problem_names(buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) { return strings.Join(catalog.Names(), ","), nil })
}

//export rhgdgo_problem_params
func rhgdgo_problem_params(name *C.char, buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		s, err := cstring(name, "name")
		if err != nil {
			return "", err
		}
		_, p, err := builtinParams(s)
		if err != nil {
			return "", err
		}
		return paramList(p), nil
	})
}

//export rhgdgo_problem_builtin
func rhgdgo_problem_builtin(name *C.char, nparams C.int64_t, params **C.char, data *C.char, seed C.uint64_t, out *C.int64_t) C.int {
	return guard(func() error {
		s, err := cstring(name, "name")
		if err != nil {
			return err
		}
		if out == nil {
			return argf("out is %v", termNULL)
		}
		if nparams < 0 || nparams > 1<<16 || (nparams > 0 && params == nil) {
			return argf("nparams = %d with params %v", int64(nparams), params)
		}
		ps := make([]string, int(nparams))
		if nparams > 0 {
			for i, p := range unsafeSlicePtr(params, int(nparams)) {
				if p == nil {
					return argf("params[%d] is %v", i, termNULL)
				}
				ps[i] = C.GoString(p)
			}
		}
		var d string
		if data != nil {
			d = C.GoString(data)
		}
		o, err := newBuiltin(s, ps, d, uint64(seed))
		if err != nil {
			return err
		}
		*out = C.int64_t(handles.add(o))
		return nil
	})
}

//export rhgdgo_problem_callbacks
func rhgdgo_problem_callbacks(mx, my C.int64_t, oracles *C.rhgd_oracles, flags C.int, user C.uintptr_t, out *C.int64_t) C.int {
	return guard(func() error {
		if oracles == nil || out == nil {
			return argf("oracles or out is %v", termNULL)
		}
		if flags != C.RHGD_RIEMANNIAN && flags != C.RHGD_EUCLIDEAN {
			return argf("flags = %d, want %v or %v", int(flags), constTerm("RHGD_RIEMANNIAN"), constTerm("RHGD_EUCLIDEAN"))
		}
		ms, specs, notes, err := cloneManifolds([]int64{int64(mx), int64(my)}, func(i int) string { return []string{"mx", "my"}[i] })
		if err != nil {
			return err
		}
		cb, err := newCOracles(oracles, user)
		if err != nil {
			return err
		}
		p, err := cb.problem(ms[0], ms[1], flags == C.RHGD_EUCLIDEAN)
		if err != nil {
			return err
		}
		kind := "Riemannian"
		if flags == C.RHGD_EUCLIDEAN {
			kind = "Euclidean"
		}
		o := &problemObj{p: p, cb: cb, desc: fmt.Sprintf("callbacks (%s oracles) on %s × %s", kind, specs[0], specs[1]), notes: notes}
		o.spec = o.desc
		*out = C.int64_t(handles.add(o))
		return nil
	})
}

//export rhgdgo_problem_manifolds
func rhgdgo_problem_manifolds(h C.int64_t, mx, my *C.int64_t) C.int {
	return withProblem(h, func(o *problemObj) error {
		for _, c := range []struct {
			out *C.int64_t
			m   solver.Manifold
		}{{mx, o.p.Mx}, {my, o.p.My}} {
			if c.out != nil {
				m := solver.Clone(c.m)
				*c.out = C.int64_t(handles.add(&manifoldObj{m: m, spec: specOf(m)}))
			}
		}
		return nil
	})
}

//export rhgdgo_problem_free
func rhgdgo_problem_free(h C.int64_t) C.int {
	return guard(func() error {
		_, err := remove[*problemObj](&handles, int64(h), "problem")
		return err
	})
}

// withProblem runs fn on the problem h names, claimed for the call.
func withProblem(h C.int64_t, fn func(o *problemObj) error) C.int {
	return guard(func() error {
		o, err := claim[*problemObj](int64(h), "problem")
		if err != nil {
			return err
		}
		defer o.release()
		return fn(o)
	})
}

//export rhgdgo_problem_dims
func rhgdgo_problem_dims(h C.int64_t, lx, ly *C.int64_t) C.int {
	return withProblem(h, func(o *problemObj) error {
		if lx != nil {
			*lx = C.int64_t(o.p.Mx.Len())
		}
		if ly != nil {
			*ly = C.int64_t(o.p.My.Len())
		}
		return nil
	})
}

//export rhgdgo_problem_start
func rhgdgo_problem_start(h C.int64_t, x0, y0 *C.double) C.int {
	return withProblem(h, func(o *problemObj) error {
		if o.x0 == nil {
			return argf("the problem has no starting point: set one with %v", fnTerm("rhgd_problem_set_start"))
		}
		if x0 != nil {
			copy(view(x0, len(o.x0)), o.x0)
		}
		if y0 != nil {
			copy(view(y0, len(o.y0)), o.y0)
		}
		return nil
	})
}

//export rhgdgo_problem_set_start
func rhgdgo_problem_set_start(h C.int64_t, x0, y0 *C.double) C.int {
	return withProblem(h, func(o *problemObj) error {
		if x0 == nil || y0 == nil {
			return argf("x0 or y0 is %v", termNULL)
		}
		x, nx, err := snapStart("x0", o.p.Mx, view(x0, o.p.Mx.Len()))
		if err != nil {
			return err
		}
		y, ny, err := snapStart("y0", o.p.My, view(y0, o.p.My.Len()))
		if err != nil {
			return err
		}
		o.x0, o.y0 = slices.Clone(x), slices.Clone(y)
		o.addNotes(nx, ny)
		return nil
	})
}

//export rhgdgo_problem_describe
func rhgdgo_problem_describe(h C.int64_t, buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		o, err := lookup[*problemObj](&handles, int64(h), "problem")
		if err != nil {
			return "", err
		}
		return o.desc, nil
	})
}

//export rhgdgo_problem_notes
func rhgdgo_problem_notes(h C.int64_t, buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		o, err := lookup[*problemObj](&handles, int64(h), "problem")
		if err != nil {
			return "", err
		}
		o.notesMu.Lock()
		defer o.notesMu.Unlock()
		return strings.Join(o.notes, "\n"), nil
	})
}

//export rhgdgo_problem_oracle
func rhgdgo_problem_oracle(h C.int64_t, cname *C.char, x, y, v, out *C.double) C.int {
	return withProblem(h, func(o *problemObj) error {
		name, err := cstring(cname, "name")
		if err != nil {
			return err
		}
		if o.fd == nil {
			fd := solver.FillFD(o.p, 0)
			o.fd = &fd
		}
		p := o.fd
		lx, ly := p.Mx.Len(), p.My.Len()
		// Copies: the oracles then never see the caller's memory, which out
		// may overlap.
		xs, err := arrays(lx, []string{"x"}, x)
		if err != nil {
			return err
		}
		ys, err := arrays(ly, []string{"y"}, y)
		if err != nil {
			return err
		}
		xs[0], ys[0] = append([]float64(nil), xs[0]...), append([]float64(nil), ys[0]...)
		if err := p.Mx.CheckPoint(xs[0]); err != nil {
			return input("x", err)
		}
		if err := p.My.CheckPoint(ys[0]); err != nil {
			return input("y", err)
		}
		pt := &solver.Point{X: xs[0], Y: ys[0]}
		if out == nil {
			return argf("out is %v", termNULL)
		}
		vec := func(n int) ([]float64, error) {
			vs, err := arrays(n, []string{"v"}, v)
			if err != nil {
				return nil, err
			}
			return append([]float64(nil), vs[0]...), finite("v", vs[0], 1)
		}
		missing := func(f string) error {
			return fmt.Errorf("%w: problem has no %s", solver.ErrMissing, f)
		}
		which, err := abiOracle(name)
		if err != nil {
			return err
		}
		if !p.Has(which) {
			return missing(which.Key())
		}
		switch which {
		case solver.OracleF, solver.OracleG:
			f := p.F
			if which == solver.OracleG {
				f = p.G
			}
			val, err := f(pt)
			if err != nil {
				return err
			}
			*out = C.double(val)
			return nil
		case solver.OracleGradFx, solver.OracleGradFy, solver.OracleGradGx, solver.OracleGradGy, solver.OracleLowerSolve:
			f, n := map[solver.Oracle]func([]float64, *solver.Point) error{
				solver.OracleGradFx: p.GradFx, solver.OracleGradFy: p.GradFy, solver.OracleGradGx: p.GradGx,
				solver.OracleGradGy: p.GradGy, solver.OracleLowerSolve: p.LowerSolve}[which], ly
			if which == solver.OracleGradFx || which == solver.OracleGradGx {
				n = lx
			}
			dst := make([]float64, n)
			if err := f(dst, pt); err != nil {
				return err
			}
			copy(view(out, n), dst)
			return nil
		}
		// The products: HessGy, HessGyInv, CrossGxy, CrossGyx, and
		// HessGyBatch on one direction.
		f := map[solver.Oracle]func([]float64, *solver.Point, []float64) error{
			solver.OracleHessGy: p.HessGy, solver.OracleHessGyInv: p.HessGyInv, solver.OracleCrossGxy: p.CrossGxy,
			solver.OracleCrossGyx: p.CrossGyx,
			solver.OracleHessGyBatch: func(dst []float64, pt *solver.Point, v []float64) error {
				return p.HessGyBatch(dst, pt, v, 1)
			}}[which]
		nv, nout := ly, ly
		switch which {
		case solver.OracleCrossGxy:
			nout = lx
		case solver.OracleCrossGyx:
			nv = lx
		}
		vv, err := vec(nv)
		if err != nil {
			return err
		}
		dst := make([]float64, nout)
		if err := f(dst, pt, vv); err != nil {
			return err
		}
		copy(view(out, nout), dst)
		return nil
	})
}

// abiOracle returns the oracle of rhgd_oracles a C name gives, through
// solver.ParseOracle's table.
func abiOracle(name string) (solver.Oracle, error) {
	o, err := solver.ParseOracle(name)
	if err != nil || !slices.Contains(abiOracles(), o) {
		return 0, argf("unknown oracle %q (want %s)", name, strings.Join(abiOracleKeys(), ", "))
	}
	return o, nil
}

// abiOracleKeys are the C names of abiOracles.
func abiOracleKeys() []string {
	var out []string
	for _, o := range abiOracles() {
		out = append(out, o.Key())
	}
	return out
}

//export rhgdgo_problem_accuracy
func rhgdgo_problem_accuracy(h C.int64_t, x, y, acc *C.double) C.int {
	return withProblem(h, func(o *problemObj) error {
		if o.inst == nil || o.inst.Accuracy == nil {
			return argf("%s has no accuracy", o.desc)
		}
		if x == nil || y == nil || acc == nil {
			return argf("x, y or accuracy is %v", termNULL)
		}
		xs := append([]float64(nil), view(x, o.p.Mx.Len())...)
		ys := append([]float64(nil), view(y, o.p.My.Len())...)
		a, err := o.inst.Accuracy(xs, ys)
		if err != nil {
			return err
		}
		*acc = C.double(a)
		return nil
	})
}
