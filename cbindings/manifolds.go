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
	"strings"

	"github.com/rhgd/rhgd/coupling"
	mspec "github.com/rhgd/rhgd/manifold/spec"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
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

// newManifold builds a manifold from its spec (manifold/spec's table).
func newManifold(s string) (solver.Manifold, error) {
	m, err := mspec.New(s)
	if errors.Is(err, mspec.ErrMarginals) {
		return nil, argf("manifold %q: the coupling manifold needs its marginals: use %v", s, fnTerm("rhgd_manifold_coupling"))
	}
	return m, err
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
		var opts string
		if options != nil {
			opts = C.GoString(options)
		}
		c, desc, err := mspec.Coupling(view(a, int(m)), view(b, int(n)), opts)
		if err != nil {
			return err
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
		ms, specs, notes, err := cloneManifolds(unsafeSliceInt64(factors, int(k)), func(i int) string { return fmt.Sprintf("factor %d", i) })
		if err != nil {
			return err
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

// cloneManifolds returns clones of the manifolds that hs name (each
// claimed while it is cloned), their specs and their notes, each note
// and error prefixed by its manifold's label.
func cloneManifolds(hs []int64, label func(i int) string) ([]solver.Manifold, []string, []string, error) {
	ms, specs := make([]solver.Manifold, len(hs)), make([]string, len(hs))
	var notes []string
	for i, h := range hs {
		o, err := lookup[*manifoldObj](&handles, h, "manifold")
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", label(i), err)
		}
		if err := o.acquire("manifold"); err != nil {
			return nil, nil, nil, err
		}
		ms[i], specs[i] = solver.Clone(o.m), o.spec
		for _, n := range o.notes {
			notes = append(notes, label(i)+": "+n)
		}
		o.release()
	}
	return ms, specs, notes, nil
}

// withManifold runs fn on the manifold h names, claimed for the call.
func withManifold(h C.int64_t, fn func(m solver.Manifold) error) C.int {
	return guard(func() error {
		o, err := claim[*manifoldObj](int64(h), "manifold")
		if err != nil {
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

// specOf writes m as rhgd_manifold_new's spec (mspec.String).
func specOf(m solver.Manifold) string { return mspec.String(m) }

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
