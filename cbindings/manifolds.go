//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// manifoldObj is what a manifold handle names: a template that problems
// clone, so that each problem has its own scratch space.
type manifoldObj struct {
	busy
	m    solver.Manifold
	spec string
	// notes are what building the manifold did to its inputs (a
	// coupling's marginals rescaled); problems made from it inherit them.
	notes []string
}

func (*manifoldObj) kind() string { return "manifold" }

// spec is a parsed "name:key=value,..." string.
type spec struct {
	text string
	name string
	kv   map[string]string
	used map[string]bool
}

// parseSpec splits "name:k=v,k=v"; keys are lower-cased.
func parseSpec(what, s string) (*spec, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(s), ":")
	p := &spec{text: s, name: strings.ToLower(strings.TrimSpace(name)), kv: map[string]string{}, used: map[string]bool{}}
	if err := p.parseKV(what, rest); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *spec) parseKV(what, rest string) error {
	pairs, err := keyval.Split(rest)
	if err != nil {
		return argf("%s %q: %v", what, p.text, err)
	}
	if k, dup := keyval.Dup(pairs); dup {
		return argf("%s %q: %s given twice", what, p.text, k)
	}
	for _, f := range pairs {
		p.kv[f.Key] = f.Value
	}
	return nil
}

// str returns the value of k, or def.
func (p *spec) str(k, def string) string {
	if v, ok := p.kv[k]; ok {
		p.used[k] = true
		return v
	}
	return def
}

// int returns the integer value of k in [lo, hi]; required when def < lo.
func (p *spec) int(what, k string, def, lo, hi int64) (int64, error) {
	v, ok := p.kv[k]
	if !ok {
		if def < lo {
			return 0, argf("%s %q: %s is required", what, p.text, k)
		}
		return def, nil
	}
	p.used[k] = true
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, argf("%s %q: %s=%q is not an integer in [%d, %d]", what, p.text, k, v, lo, hi)
	}
	return n, nil
}

// float returns the finite value of k in [lo, ∞), or def.
func (p *spec) float(what, k string, def, lo float64) (float64, error) {
	v, ok := p.kv[k]
	if !ok {
		return def, nil
	}
	p.used[k] = true
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= lo) || x > 1e300 {
		return 0, argf("%s %q: %s=%q is not a finite number ≥ %g", what, p.text, k, v, lo)
	}
	return x, nil
}

// notZero refuses 0 for k, whose zero would stand for the default def:
// the caller leaves k out for that (issue 27: an explicit 0 is never
// silently the default).
func (p *spec) notZero(what, k, def string) error {
	v, ok := p.kv[k]
	if x, err := strconv.ParseFloat(v, 64); ok && err == nil && x == 0 {
		return argf("%s %q: %s=%s would mean the default, not 0; leave %s out for the default (%s)", what, p.text, k, v, k, def)
	}
	return nil
}

// done reports keys that nothing read.
func (p *spec) done(what string) error {
	for k := range p.kv {
		if !p.used[k] {
			return argf("%s %q: unknown setting %q", what, p.text, k)
		}
	}
	return nil
}

const maxDim = 1 << 20

// newManifold builds a manifold from its spec.
func newManifold(s string) (solver.Manifold, error) {
	p, err := parseSpec("manifold", s)
	if err != nil {
		return nil, err
	}
	const what = "manifold"
	var m solver.Manifold
	switch p.name {
	case "spd":
		n, err := p.int(what, "n", 0, 1, maxDim)
		if err != nil {
			return nil, err
		}
		sp := spd.New(int(n))
		if sp.Retraction, err = spd.ParseRetraction(p.str("retr", "second-order")); err != nil {
			return nil, argf("manifold %q: retr: %v", s, err)
		}
		if sp.TransportMethod, err = spd.ParseTransport(p.str("transport", "identity")); err != nil {
			return nil, argf("manifold %q: transport: %v", s, err)
		}
		m = sp
	case "stiefel":
		n, err := p.int(what, "n", 0, 1, maxDim)
		if err != nil {
			return nil, err
		}
		k, err := p.int(what, "p", 0, 1, n)
		if err != nil {
			return nil, err
		}
		st := stiefel.New(int(n), int(k))
		if st.Retraction, err = stiefel.ParseRetraction(p.str("retr", "qr")); err != nil {
			return nil, argf("manifold %q: retr: %v", s, err)
		}
		m = st
	case "euclid", "euclidean":
		r, err := p.int(what, "r", 0, 1, maxDim)
		if err != nil {
			return nil, err
		}
		c, err := p.int(what, "c", 1, 1, maxDim)
		if err != nil {
			return nil, err
		}
		m = euclid.New(int(r), int(c))
	case "coupling":
		return nil, argf("manifold %q: the coupling manifold needs its marginals: use %v", s, fnTerm("rhgd_manifold_coupling"))
	default:
		return nil, argf("manifold %q: unknown manifold %q (want spd, stiefel or euclid)", s, p.name)
	}
	if err := p.done(what); err != nil {
		return nil, err
	}
	return m, nil
}

func cstring(s *C.char, what string) (string, error) {
	if s == nil {
		return "", argf("%s is %v", what, termNULL)
	}
	return C.GoString(s), nil
}

//export rhgdgo_manifold_new
func rhgdgo_manifold_new(cspec *C.char, out *C.int64_t) C.int {
	return guard(func() error {
		s, err := cstring(cspec, "spec")
		if err != nil {
			return err
		}
		if out == nil {
			return argf("out is %v", termNULL)
		}
		m, err := newManifold(s)
		if err != nil {
			return err
		}
		*out = C.int64_t(handles.add(&manifoldObj{m: m, spec: s}))
		return nil
	})
}

//export rhgdgo_manifold_coupling
func rhgdgo_manifold_coupling(m, n C.int64_t, a, b *C.double, options *C.char, out *C.int64_t) C.int {
	return guard(func() error {
		if _, err := matrix(m, n, "m", "n"); err != nil {
			return err
		}
		if a == nil || b == nil || out == nil {
			return argf("a, b or out is %v", termNULL)
		}
		c, err := coupling.New(view(a, int(m)), view(b, int(n)))
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("coupling:m=%d,n=%d", int64(m), int64(n))
		if options != nil {
			p := &spec{text: C.GoString(options), kv: map[string]string{}, used: map[string]bool{}}
			if err := p.parseKV("coupling options", p.text); err != nil {
				return err
			}
			for _, kd := range [][2]string{{"maxiter", "10000"}, {"tol", "1e-13"}} { // rhgd.h's defaults
				if err := p.notZero("coupling options", kd[0], kd[1]); err != nil {
					return err
				}
			}
			it, err := p.int("coupling options", "maxiter", 0, 0, 1<<30)
			if err != nil {
				return err
			}
			tol, err := p.float("coupling options", "tol", 0, 0)
			if err != nil {
				return err
			}
			if err := p.done("coupling options"); err != nil {
				return err
			}
			c.Sinkhorn.MaxIter, c.Sinkhorn.Tol = int(it), tol
			if p.text != "" {
				desc += "," + p.text
			}
		}
		*out = C.int64_t(handles.add(&manifoldObj{m: c, spec: desc, notes: c.Notes()}))
		return nil
	})
}

//export rhgdgo_manifold_product
func rhgdgo_manifold_product(k C.int64_t, factors *C.int64_t, out *C.int64_t) C.int {
	return guard(func() error {
		if k < 1 || k > 1<<16 {
			return argf("k = %d factors, want 1 to 65536", int64(k))
		}
		if factors == nil || out == nil {
			return argf("factors or out is %v", termNULL)
		}
		hs := unsafeSliceInt64(factors, int(k))
		ms := make([]solver.Manifold, len(hs))
		specs := make([]string, len(hs))
		var notes []string
		for i, h := range hs {
			o, err := lookup[*manifoldObj](&handles, h, "manifold")
			if err != nil {
				return fmt.Errorf("factor %d: %w", i, err)
			}
			if err := o.acquire("manifold"); err != nil {
				return err
			}
			ms[i], specs[i] = solver.Clone(o.m), o.spec
			for _, n := range o.notes {
				notes = append(notes, fmt.Sprintf("factor %d: %s", i, n))
			}
			o.release()
		}
		*out = C.int64_t(handles.add(&manifoldObj{m: product.New(ms...), spec: "product(" + strings.Join(specs, "; ") + ")", notes: notes}))
		return nil
	})
}

//export rhgdgo_manifold_free
func rhgdgo_manifold_free(h C.int64_t) C.int {
	return guard(func() error {
		_, err := remove[*manifoldObj](&handles, int64(h), "manifold")
		return err
	})
}

// withManifold runs fn on the manifold h names, claimed for the call.
func withManifold(h C.int64_t, fn func(m solver.Manifold) error) C.int {
	return guard(func() error {
		o, err := lookup[*manifoldObj](&handles, int64(h), "manifold")
		if err != nil {
			return err
		}
		if err := o.acquire("manifold"); err != nil {
			return err
		}
		defer o.release()
		return fn(o.m)
	})
}

//export rhgdgo_manifold_len
func rhgdgo_manifold_len(h C.int64_t, n, dim *C.int64_t) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		if n != nil {
			*n = C.int64_t(m.Len())
		}
		if dim != nil {
			*dim = C.int64_t(m.Dim())
		}
		return nil
	})
}

//export rhgdgo_manifold_snap_point
func rhgdgo_manifold_snap_point(h C.int64_t, x, out *C.double, buf *C.char, n C.size_t) C.int {
	var note string
	code := withManifold(h, func(m solver.Manifold) error {
		v, err := arrays(m.Len(), []string{"x", "out"}, x, out)
		if err != nil {
			return err
		}
		if err := finite("x", v[0], 1); err != nil {
			return err
		}
		c := append([]float64(nil), v[0]...)
		if note, err = solver.SnapPoint(m, c); err != nil {
			return input("x", err)
		}
		copy(v[1], c)
		return nil
	})
	if code < 0 || note == "" {
		return code
	}
	return copyOut("x: "+note, buf, n)
}

//export rhgdgo_manifold_check_point
func rhgdgo_manifold_check_point(h C.int64_t, x *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		v, err := arrays(m.Len(), []string{"x"}, x)
		if err != nil {
			return err
		}
		return input("x", m.CheckPoint(v[0]))
	})
}

//export rhgdgo_manifold_rand_point
func rhgdgo_manifold_rand_point(h C.int64_t, seed C.uint64_t, x *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		v, err := arrays(m.Len(), []string{"x"}, x)
		if err != nil {
			return err
		}
		m.RandPoint(v[0], rand.New(rand.NewPCG(uint64(seed), 0x5eed)))
		return nil
	})
}

//export rhgdgo_manifold_project
func rhgdgo_manifold_project(h C.int64_t, x, v, out *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "v", "out"}, x, v, out)
		if err != nil {
			return err
		}
		if err := m.CheckPoint(a[0]); err != nil {
			return input("x", err)
		}
		if err := finite("v", a[1], 1); err != nil {
			return err
		}
		dst := a[2]
		if overlaps(a[2], a[0]) || overlaps(a[2], a[1]) {
			dst = make([]float64, m.Len())
		}
		m.Project(dst, a[0], a[1])
		finish(a[2], dst)
		return nil
	})
}

//export rhgdgo_manifold_retract
func rhgdgo_manifold_retract(h C.int64_t, x, u *C.double, t C.double, out *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "u", "out"}, x, u, out)
		if err != nil {
			return err
		}
		if err := m.CheckPoint(a[0]); err != nil {
			return input("x", err)
		}
		if err := finite("u", a[1], 1); err != nil {
			return err
		}
		if err := finite("t", []float64{float64(t)}, 1); err != nil {
			return err
		}
		dst := a[2]
		if overlaps(a[2], a[0]) || overlaps(a[2], a[1]) {
			dst = make([]float64, m.Len())
		}
		err = m.Retract(dst, a[0], a[1], float64(t))
		if err == nil || errors.Is(err, coupling.ErrSinkhornNotConverged) {
			finish(a[2], dst) // a coupling's best plan, also when Sinkhorn did not converge
		}
		return err
	})
}

// specOf writes m as rhgd_manifold_new's spec (a product as
// "product(spec; spec)", a coupling without its marginals), for the
// manifolds of built-in problems, which no spec made.
func specOf(m solver.Manifold) string {
	switch m := m.(type) {
	case *spd.SPD:
		n, _ := m.Dims()
		return fmt.Sprintf("spd:n=%d,retr=%v,transport=%v", n, m.Retraction, m.TransportMethod)
	case *stiefel.Stiefel:
		n, p := m.Dims()
		return fmt.Sprintf("stiefel:n=%d,p=%d,retr=%v", n, p, m.Retraction)
	case *euclid.Euclidean:
		r, c := m.Dims()
		return fmt.Sprintf("euclid:r=%d,c=%d", r, c)
	case *coupling.Coupling:
		r, c := m.Dims()
		s := fmt.Sprintf("coupling:m=%d,n=%d", r, c)
		if m.Sinkhorn.MaxIter != 0 {
			s += fmt.Sprintf(",maxiter=%d", m.Sinkhorn.MaxIter)
		}
		if m.Sinkhorn.Tol != 0 {
			s += fmt.Sprintf(",tol=%g", m.Sinkhorn.Tol)
		}
		return s
	case *product.Product:
		specs := make([]string, m.Factors())
		for i := range specs {
			specs[i] = specOf(m.Factor(i))
		}
		return "product(" + strings.Join(specs, "; ") + ")"
	}
	return fmt.Sprintf("%T:len=%d", m, m.Len())
}

// dimser is a manifold whose points are rows × cols matrices.
type dimser interface{ Dims() (rows, cols int) }

//export rhgdgo_manifold_shape
func rhgdgo_manifold_shape(h C.int64_t, rows, cols, factors *C.int64_t) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		r, c, k := m.Len(), 1, 0
		switch m := m.(type) {
		case *product.Product:
			k = m.Factors()
		case dimser:
			r, c = m.Dims()
		}
		if rows != nil {
			*rows = C.int64_t(r)
		}
		if cols != nil {
			*cols = C.int64_t(c)
		}
		if factors != nil {
			*factors = C.int64_t(k)
		}
		return nil
	})
}

//export rhgdgo_manifold_factor
func rhgdgo_manifold_factor(h, i C.int64_t, out *C.int64_t) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		if out == nil {
			return argf("out is %v", termNULL)
		}
		p, ok := m.(*product.Product)
		if !ok {
			return argf("%s is not a product: it has no factors", specOf(m))
		}
		if i < 0 || int64(i) >= int64(p.Factors()) {
			return argf("factor %d of a product of %d", int64(i), p.Factors())
		}
		f := solver.Clone(p.Factor(int(i)))
		*out = C.int64_t(handles.add(&manifoldObj{m: f, spec: specOf(f)}))
		return nil
	})
}

//export rhgdgo_manifold_describe
func rhgdgo_manifold_describe(h C.int64_t, buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		o, err := lookup[*manifoldObj](&handles, int64(h), "manifold")
		if err != nil {
			return "", err
		}
		return o.spec, nil
	})
}
