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

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
)

// The manifold toolkit: the solver.Manifold methods (and the optional
// Exper, Logger, Distancer) on a manifold handle, the general Sylvester
// and Lyapunov solves and the Fréchet derivatives of the symmetric
// spectral functions. Points are checked with the manifold's CheckPoint,
// vectors for NaN and Inf; exp also checks that u is tangent, since its
// result must be a point.

// point returns an input error naming x unless it is a point of m.
func point(m solver.Manifold, name string, x []float64) error {
	return input(name, m.CheckPoint(x))
}

// checkIn checks the inputs of a toolkit call, named as arrays got them:
// the first points of them must be points of m, the rest finite vectors.
func checkIn(m solver.Manifold, a views, points int, names ...string) error {
	for i, name := range names {
		var err error
		if i < points {
			err = point(m, name, a[i])
		} else {
			err = finite(name, a[i], 1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dstFor returns where a manifold method writes its result for the caller's
// array o: o itself, or a fresh array when o shares memory with an input
// (the methods do not allow aliasing); finish copies it back.
func dstFor(o []float64, ins ...[]float64) []float64 {
	for _, in := range ins {
		if overlaps(o, in) {
			return make([]float64, len(o))
		}
	}
	return o
}

// scalarOut checks the pointer a scalar result goes to.
func scalarOut(p *C.double) error {
	if p == nil {
		return argf("out is %v", termNULL)
	}
	return nil
}

//export rhgdgo_manifold_inner
func rhgdgo_manifold_inner(h C.int64_t, x, u, v, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "u", "v"}, x, u, v)
		if err != nil {
			return err
		}
		if err := scalarOut(res); err != nil {
			return err
		}
		if err := checkIn(m, a, 1, "x", "u", "v"); err != nil {
			return err
		}
		*res = C.double(m.Inner(a[0], a[1], a[2]))
		return nil
	})
}

//export rhgdgo_manifold_norm
func rhgdgo_manifold_norm(h C.int64_t, x, u, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "u"}, x, u)
		if err != nil {
			return err
		}
		if err := scalarOut(res); err != nil {
			return err
		}
		if err := checkIn(m, a, 1, "x", "u"); err != nil {
			return err
		}
		*res = C.double(m.Norm(a[0], a[1]))
		return nil
	})
}

// methodNames are rhgd_manifold_supports' names of the optional methods.
var methodNames = map[string]solver.Method{"exp": solver.MethodExp, "log": solver.MethodLog, "dist": solver.MethodDist}

// unsupported is the invalid-argument error of an optional method that m
// lacks; for a product it names the factors that lack it.
func unsupported(m solver.Manifold, method solver.Method) error {
	what := map[solver.Method]string{solver.MethodExp: "a closed-form exponential map",
		solver.MethodLog: "a closed-form logarithm", solver.MethodDist: "a closed-form geodesic distance"}[method]
	msg := fmt.Sprintf("%s is unsupported: the manifold %s has no %s", strings.ToLower(method.String()), specOf(m), what)
	if p, ok := m.(*product.Product); ok {
		var lack []string
		for i := 0; i < p.Factors(); i++ {
			if f := p.Factor(i); !solver.HasMethod(f, method) {
				lack = append(lack, fmt.Sprintf("%d (%s)", i, specOf(f)))
			}
		}
		msg += "; factors lacking it: " + strings.Join(lack, ", ")
	}
	return argf("%s", msg)
}

//export rhgdgo_manifold_supports
func rhgdgo_manifold_supports(h C.int64_t, cmethod *C.char, res *C.int) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		name, err := cstring(cmethod, "method")
		if err != nil {
			return err
		}
		if res == nil {
			return argf("out is %v", termNULL)
		}
		method, ok := methodNames[strings.ToLower(name)]
		if !ok {
			return argf("method %q: want exp, log or dist", name)
		}
		*res = 0
		if solver.HasMethod(m, method) {
			*res = 1
		}
		return nil
	})
}

//export rhgdgo_manifold_dist
func rhgdgo_manifold_dist(h C.int64_t, x, y, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		d, ok := solver.AsDistancer(m)
		if !ok {
			return unsupported(m, solver.MethodDist)
		}
		a, err := arrays(m.Len(), []string{"x", "y"}, x, y)
		if err != nil {
			return err
		}
		if err := scalarOut(res); err != nil {
			return err
		}
		if err := checkIn(m, a, 2, "x", "y"); err != nil {
			return err
		}
		v, err := d.Dist(a[0], a[1])
		if err != nil {
			return err
		}
		*res = C.double(v)
		return nil
	})
}

//export rhgdgo_manifold_exp
func rhgdgo_manifold_exp(h C.int64_t, x, u *C.double, t C.double, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		e, ok := solver.AsExper(m)
		if !ok {
			return unsupported(m, solver.MethodExp)
		}
		a, err := arrays(m.Len(), []string{"x", "u", "out"}, x, u, res)
		if err != nil {
			return err
		}
		if err := point(m, "x", a[0]); err != nil {
			return err
		}
		if err := input("u", m.CheckTangent(a[0], a[1])); err != nil {
			return err
		}
		if err := finite("t", []float64{float64(t)}, 1); err != nil {
			return err
		}
		dst := dstFor(a[2], a[0], a[1])
		if err := e.Exp(dst, a[0], a[1], float64(t)); err != nil {
			return err
		}
		finish(a[2], dst)
		return nil
	})
}

//export rhgdgo_manifold_log
func rhgdgo_manifold_log(h C.int64_t, x, y, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		l, ok := solver.AsLogger(m)
		if !ok {
			return unsupported(m, solver.MethodLog)
		}
		a, err := arrays(m.Len(), []string{"x", "y", "out"}, x, y, res)
		if err != nil {
			return err
		}
		if err := checkIn(m, a, 2, "x", "y"); err != nil {
			return err
		}
		dst := dstFor(a[2], a[0], a[1])
		if err := l.Log(dst, a[0], a[1]); err != nil {
			return err
		}
		finish(a[2], dst)
		return nil
	})
}

//export rhgdgo_manifold_egrad2rgrad
func rhgdgo_manifold_egrad2rgrad(h C.int64_t, x, egrad, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "egrad", "out"}, x, egrad, res)
		if err != nil {
			return err
		}
		if err := checkIn(m, a, 1, "x", "egrad"); err != nil {
			return err
		}
		dst := dstFor(a[2], a[0], a[1])
		m.EGradToRGrad(dst, a[0], a[1])
		finish(a[2], dst)
		return nil
	})
}

//export rhgdgo_manifold_ehess2rhess
func rhgdgo_manifold_ehess2rhess(h C.int64_t, x, egrad, ehess, u, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "egrad", "ehess", "u"}, x, egrad, ehess, u)
		if err != nil {
			return err
		}
		if res == nil {
			return argf("out is %v", termNULL)
		}
		o := view(res, m.Len())
		if err := checkIn(m, a, 1, "x", "egrad", "ehess", "u"); err != nil {
			return err
		}
		dst := dstFor(o, a[0], a[1], a[2], a[3])
		m.EHessToRHess(dst, a[0], a[1], a[2], a[3])
		finish(o, dst)
		return nil
	})
}

//export rhgdgo_manifold_transport
func rhgdgo_manifold_transport(h C.int64_t, x, y, u, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "y", "u", "out"}, x, y, u, res)
		if err != nil {
			return err
		}
		if err := checkIn(m, a, 2, "x", "y", "u"); err != nil {
			return err
		}
		dst := dstFor(a[3], a[0], a[1], a[2])
		m.Transport(dst, a[0], a[1], a[2])
		finish(a[3], dst)
		return nil
	})
}

//export rhgdgo_manifold_rand_tangent
func rhgdgo_manifold_rand_tangent(h C.int64_t, x *C.double, seed C.uint64_t, res *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "out"}, x, res)
		if err != nil {
			return err
		}
		if err := point(m, "x", a[0]); err != nil {
			return err
		}
		dst := dstFor(a[1], a[0])
		m.RandTangent(dst, a[0], rand.New(rand.NewPCG(uint64(seed), 0x5eed)))
		finish(a[1], dst)
		return nil
	})
}

//export rhgdgo_manifold_check_tangent
func rhgdgo_manifold_check_tangent(h C.int64_t, x, u *C.double) C.int {
	return withManifold(h, func(m solver.Manifold) error {
		a, err := arrays(m.Len(), []string{"x", "u"}, x, u)
		if err != nil {
			return err
		}
		if err := point(m, "x", a[0]); err != nil {
			return err
		}
		return input("u", m.CheckTangent(a[0], a[1]))
	})
}

// sylvWS is a Sylvester workspace with room for a result that must not
// land in the caller's array (aliasing) and for Aᵀ (rhgd_lyapunov).
type sylvWS struct {
	s       *lapackx.Sylvester
	tmp, bt []float64
}

var sylvPool = pool[[2]int, *sylvWS]{new: func(k [2]int) *sylvWS {
	return &sylvWS{lapackx.NewSylvester(k[0], k[1]), make([]float64, k[0]*k[1]), make([]float64, k[1]*k[1])}
}}

// sylvester solves A X + X B = C into x; b nil means B = Aᵀ (m = n).
func sylvester(m, n C.int64_t, a, b, c, x *C.double, bName string) error {
	mn, err := matrix(m, n, "m", "n")
	if err != nil {
		return err
	}
	if _, err := matrix(m, m, "m", "m"); err != nil {
		return err
	}
	if _, err := matrix(n, n, "n", "n"); err != nil {
		return err
	}
	if a == nil || c == nil || x == nil {
		return argf("a, c or x is %v", termNULL)
	}
	va, vc, vx := view(a, int(m*m)), view(c, mn), view(x, mn)
	if err := finite("a", va, int(m)); err != nil {
		return err
	}
	if err := finite("c", vc, int(n)); err != nil {
		return err
	}
	k := [2]int{int(m), int(n)}
	ws := sylvPool.get(k)
	defer sylvPool.put(k, ws)
	var vb []float64
	if bName == "" {
		vb = ws.bt
		for i := 0; i < int(n); i++ {
			for j := 0; j < int(n); j++ {
				vb[j*int(n)+i] = va[i*int(n)+j]
			}
		}
	} else {
		if b == nil {
			return argf("%s is %v", bName, termNULL)
		}
		vb = view(b, int(n*n))
		if err := finite(bName, vb, int(n)); err != nil {
			return err
		}
	}
	dst := dest(vx, ws.tmp, va, vb, vc)
	if err := ws.s.Solve(dst, va, vb, vc); err != nil {
		return err
	}
	finish(vx, dst)
	return nil
}

//export rhgdgo_sylvester
func rhgdgo_sylvester(m, n C.int64_t, a, b, c, x *C.double) C.int {
	return guard(func() error { return sylvester(m, n, a, b, c, x, "b") })
}

//export rhgdgo_lyapunov
func rhgdgo_lyapunov(n C.int64_t, a, c, x *C.double) C.int {
	return guard(func() error {
		if _, err := matrix(n, n, "n", "n"); err != nil {
			return err
		}
		return sylvester(n, n, a, nil, c, x, "")
	})
}

// frechet is rhgd_expsym_frechet and its kin: out = Df(A)[E].
func frechet(n C.int64_t, a, e, res *C.double, f lapackx.Func) C.int {
	return guard(func() error {
		v, err := squares(n, []string{"a", "e", "out"}, a, e, res)
		if err != nil {
			return err
		}
		if err := finite("e", v[1], int(n)); err != nil {
			return err
		}
		ws := symPool.get(int(n))
		defer symPool.put(int(n), ws)
		if err := ws.f.Factorize(v[0]); err != nil {
			return symInput("a", err)
		}
		dst := dest(v[2], ws.tmp, v[0], v[1])
		if err := ws.f.Frechet(dst, v[1], f); err != nil {
			switch {
			case errors.Is(err, numerr.ErrNotPosDef):
				return input("a", err)
			case errors.Is(err, numerr.ErrNotSymmetric):
				return input("e", err)
			}
			return err
		}
		finish(v[2], dst)
		return nil
	})
}

//export rhgdgo_expsym_frechet
func rhgdgo_expsym_frechet(n C.int64_t, a, e, res *C.double) C.int {
	return frechet(n, a, e, res, lapackx.ExpFunc)
}

//export rhgdgo_logsym_frechet
func rhgdgo_logsym_frechet(n C.int64_t, a, e, res *C.double) C.int {
	return frechet(n, a, e, res, lapackx.LogFunc)
}

//export rhgdgo_sqrtsym_frechet
func rhgdgo_sqrtsym_frechet(n C.int64_t, a, e, res *C.double) C.int {
	return frechet(n, a, e, res, lapackx.SqrtFunc)
}
