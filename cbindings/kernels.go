//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// maxLen bounds the number of doubles of any one array (2⁴⁰, 8 TiB): a
// size beyond it is surely a mistake, and n·n must not overflow.
const maxLen = 1 << 40

// view returns the caller's array p of n doubles as a slice, for the
// duration of the call only.
func view(p *C.double, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

// matrix checks a dimension pair and returns r·c.
func matrix(r, c C.int64_t, rn, cn string) (int, error) {
	if r < 1 || c < 1 {
		return 0, argf("%s = %d, %s = %d: sizes must be at least 1", rn, int64(r), cn, int64(c))
	}
	if int64(r) > maxLen/int64(c) {
		return 0, argf("%s × %s = %d × %d is too large", rn, cn, int64(r), int64(c))
	}
	return int(r) * int(c), nil
}

// views holds the slices arrays returns: a fixed array, so that the
// views of one call do not need the heap.
type views [4][]float64

// arrays checks that no pointer is NULL and returns their views, each of
// length n.
func arrays(n int, names []string, ps ...*C.double) (views, error) {
	var out views
	for i, p := range ps {
		if p == nil {
			return out, argf("%s is %v", names[i], termNULL)
		}
		out[i] = view(p, n)
	}
	return out, nil
}

// squares checks the order n and that no pointer is NULL, and returns
// their views as n×n matrices.
func squares(n C.int64_t, names []string, ps ...*C.double) (views, error) {
	nn, err := matrix(n, n, "n", "n")
	if err != nil {
		return views{}, err
	}
	return arrays(nn, names, ps...)
}

// finite returns an input error naming the first non-finite entry of a.
func finite(name string, a []float64, cols int) error {
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if cols <= 1 {
				return input(name, fmt.Errorf("%w: entry %d is %v", numerr.ErrNotFinite, i, v))
			}
			return input(name, fmt.Errorf("%w: entry [%d,%d] is %v", numerr.ErrNotFinite, i/cols, i%cols, v))
		}
	}
	return nil
}

// unsafeSliceInt64 returns the caller's array p of n int64 as a slice.
func unsafeSliceInt64(p *C.int64_t, n int) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), n)
}

// unsafeSlicePtr returns the caller's array p of n strings as a slice.
func unsafeSlicePtr(p **C.char, n int) []*C.char {
	return unsafe.Slice(p, n)
}

// overlaps reports whether two arrays share memory.
func overlaps(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b))*8 && b0 < a0+uintptr(len(a))*8
}

// dest returns where to compute the result for out: out itself, or the
// scratch tmp when out shares memory with an input, which the routines
// below allow only partly; finish then copies tmp into out.
func dest(out, tmp []float64, ins ...[]float64) []float64 {
	for _, in := range ins {
		if overlaps(out, in) {
			return tmp
		}
	}
	return out
}

func finish(out, dst []float64) {
	if &out[0] != &dst[0] {
		copy(out, dst)
	}
}

// symInput marks the failures of a symmetric input's factorization (not
// finite, not symmetric) and of a function that needs positive
// eigenvalues (not positive definite) as the caller's.
func symInput(name string, err error) error {
	if errors.Is(err, numerr.ErrNotFinite) || errors.Is(err, numerr.ErrNotSymmetric) || errors.Is(err, numerr.ErrNotPosDef) {
		return input(name, err)
	}
	return err
}

// Workspaces are pooled by size, so that calls from many threads each get
// their own and a steady stream of calls of one size allocates nothing.
type pool[K comparable, V any] struct {
	mu  sync.Mutex
	m   map[K]*sync.Pool
	new func(K) V
}

func (p *pool[K, V]) get(k K) V {
	p.mu.Lock()
	sp := p.m[k]
	if sp == nil {
		if p.m == nil {
			p.m = map[K]*sync.Pool{}
		}
		sp = &sync.Pool{}
		p.m[k] = sp
	}
	p.mu.Unlock()
	if v := sp.Get(); v != nil {
		return v.(V)
	}
	return p.new(k)
}

func (p *pool[K, V]) put(k K, v V) {
	p.mu.Lock()
	sp := p.m[k]
	p.mu.Unlock()
	sp.Put(v)
}

type symWS struct {
	f   *lapackx.SymFunc
	tmp []float64
}

type expmWS struct {
	e   *lapackx.Expm
	tmp []float64
}

type lyapWS struct {
	l   *lapackx.LyapSym
	tmp []float64
}

type spdWS struct {
	m   *spd.SPD
	tmp []float64
}

type stiefelWS struct {
	m   *stiefel.Stiefel
	tmp []float64
}

var (
	symPool  = pool[int, *symWS]{new: func(n int) *symWS { return &symWS{lapackx.NewSymFunc(n), make([]float64, n*n)} }}
	expmPool = pool[int, *expmWS]{new: func(n int) *expmWS { return &expmWS{lapackx.NewExpm(n), make([]float64, n*n)} }}
	lyapPool = pool[int, *lyapWS]{new: func(n int) *lyapWS { return &lyapWS{lapackx.NewLyapSym(n), make([]float64, n*n)} }}
	spdPool  = pool[int, *spdWS]{new: func(n int) *spdWS {
		m := spd.New(n)
		m.Retraction = spd.Exponential
		return &spdWS{m, make([]float64, n*n)}
	}}
	stiefelPool = pool[[2]int, *stiefelWS]{new: func(k [2]int) *stiefelWS {
		return &stiefelWS{stiefel.New(k[0], k[1]), make([]float64, k[0]*k[1])}
	}}
)

// symFunc is rhgd_expsym, rhgd_logsym and rhgd_sqrtsym: out = f(A).
func symFunc(n C.int64_t, a, out *C.double, f func(s *lapackx.SymFunc, dst, a []float64) error) C.int {
	return guard(func() error {
		v, err := squares(n, []string{"a", "out"}, a, out)
		if err != nil {
			return err
		}
		ws := symPool.get(int(n))
		defer symPool.put(int(n), ws)
		dst := dest(v[1], ws.tmp, v[0])
		if err := f(ws.f, dst, v[0]); err != nil {
			return symInput("a", err)
		}
		finish(v[1], dst)
		return nil
	})
}

//export rhgdgo_expsym
func rhgdgo_expsym(n C.int64_t, a, out *C.double) C.int {
	return symFunc(n, a, out, (*lapackx.SymFunc).Exp)
}

//export rhgdgo_logsym
func rhgdgo_logsym(n C.int64_t, a, out *C.double) C.int {
	return symFunc(n, a, out, (*lapackx.SymFunc).Log)
}

//export rhgdgo_sqrtsym
func rhgdgo_sqrtsym(n C.int64_t, a, out *C.double) C.int {
	return symFunc(n, a, out, (*lapackx.SymFunc).Sqrt)
}

//export rhgdgo_expm
func rhgdgo_expm(n C.int64_t, a, out *C.double) C.int {
	return guard(func() error {
		v, err := squares(n, []string{"a", "out"}, a, out)
		if err != nil {
			return err
		}
		if err := finite("a", v[0], int(n)); err != nil {
			return err
		}
		ws := expmPool.get(int(n))
		defer expmPool.put(int(n), ws)
		dst := dest(v[1], ws.tmp, v[0])
		if err := ws.e.Exp(dst, v[0]); err != nil {
			return err
		}
		finish(v[1], dst)
		return nil
	})
}

//export rhgdgo_lyapunov_sym
func rhgdgo_lyapunov_sym(n C.int64_t, a, c, x *C.double) C.int {
	return guard(func() error {
		v, err := squares(n, []string{"a", "c", "x"}, a, c, x)
		if err != nil {
			return err
		}
		ws := lyapPool.get(int(n))
		defer lyapPool.put(int(n), ws)
		if err := ws.l.Factorize(v[0]); err != nil {
			return symInput("a", err)
		}
		dst := dest(v[2], ws.tmp, v[0], v[1])
		if err := ws.l.SolveFactorized(dst, v[1]); err != nil {
			return symInput("c", err)
		}
		finish(v[2], dst)
		return nil
	})
}

//export rhgdgo_lyapunov_sym_many
func rhgdgo_lyapunov_sym_many(n, count C.int64_t, a, c, x *C.double) C.int {
	return guard(func() error {
		av, err := squares(n, []string{"a"}, a)
		if err != nil {
			return err
		}
		v, err := batchArgs(n, count, []string{"c", "x"}, []int{2, 2}, c, x)
		if err != nil {
			return err
		}
		// x = c solves block by block in place; a shifted overlap would
		// overwrite a C_j before its solve. A is read only by Factorize.
		cs, nn := unshare(v[0], v[1]), int(n)*int(n)
		ws := lyapPool.get(int(n))
		defer lyapPool.put(int(n), ws)
		if err := ws.l.Factorize(av[0]); err != nil {
			return symInput("a", err)
		}
		for i := range int(count) {
			blk := i * nn
			if err := ws.l.SolveFactorized(v[1][blk:blk+nn], cs[blk:blk+nn]); err != nil {
				return symInput("c", fmt.Errorf("matrix %d: %w", i, err))
			}
		}
		return nil
	})
}

// spdOp is the SPD kernels: it checks n, the pointers and that x and y
// (when not nil) are SPD points and u a symmetric finite tangent.
func spdOp(n C.int64_t, names []string, ps []*C.double, fn func(m *spd.SPD, tmp []float64, v views) error) C.int {
	return guard(func() error {
		v, err := squares(n, names, ps...)
		if err != nil {
			return err
		}
		ws := spdPool.get(int(n))
		defer spdPool.put(int(n), ws)
		return fn(ws.m, ws.tmp, v)
	})
}

//export rhgdgo_spd_exp
func rhgdgo_spd_exp(n C.int64_t, x, u, out *C.double) C.int {
	return spdOp(n, []string{"x", "u", "out"}, []*C.double{x, u, out}, func(m *spd.SPD, tmp []float64, v views) error {
		if err := m.CheckPoint(v[0]); err != nil {
			return input("x", err)
		}
		if err := m.CheckTangent(v[0], v[1]); err != nil {
			return input("u", err)
		}
		dst := dest(v[2], tmp, v[0], v[1])
		if err := m.Exp(dst, v[0], v[1], 1); err != nil {
			return err
		}
		finish(v[2], dst)
		return nil
	})
}

//export rhgdgo_spd_log
func rhgdgo_spd_log(n C.int64_t, x, y, out *C.double) C.int {
	return spdOp(n, []string{"x", "y", "out"}, []*C.double{x, y, out}, func(m *spd.SPD, tmp []float64, v views) error {
		if err := m.CheckPoint(v[0]); err != nil {
			return input("x", err)
		}
		if err := m.CheckPoint(v[1]); err != nil {
			return input("y", err)
		}
		dst := dest(v[2], tmp, v[0], v[1])
		if err := m.Log(dst, v[0], v[1]); err != nil {
			return err
		}
		finish(v[2], dst)
		return nil
	})
}

//export rhgdgo_spd_dist
func rhgdgo_spd_dist(n C.int64_t, x, y, dist *C.double) C.int {
	if dist == nil {
		return guard(func() error { return argf("dist is %v", termNULL) })
	}
	return spdOp(n, []string{"x", "y"}, []*C.double{x, y}, func(m *spd.SPD, _ []float64, v views) error {
		if err := m.CheckPoint(v[0]); err != nil {
			return input("x", err)
		}
		if err := m.CheckPoint(v[1]); err != nil {
			return input("y", err)
		}
		d, err := m.Dist(v[0], v[1])
		if err != nil {
			return err
		}
		*dist = C.double(d)
		return nil
	})
}

//export rhgdgo_stiefel_retr_qr
func rhgdgo_stiefel_retr_qr(n, p C.int64_t, x, u, out *C.double) C.int {
	return guard(func() error {
		np, err := matrix(n, p, "n", "p")
		if err != nil {
			return err
		}
		if p > n {
			return argf("p = %d > n = %d: St(n, p) needs p ≤ n", int64(p), int64(n))
		}
		v, err := arrays(np, []string{"x", "u", "out"}, x, u, out)
		if err != nil {
			return err
		}
		k := [2]int{int(n), int(p)}
		ws := stiefelPool.get(k)
		defer stiefelPool.put(k, ws)
		if err := ws.m.CheckPoint(v[0]); err != nil {
			return input("x", err)
		}
		if err := finite("u", v[1], int(p)); err != nil {
			return err
		}
		dst := dest(v[2], ws.tmp, v[0], v[1])
		if err := ws.m.Retract(dst, v[0], v[1], 1); err != nil {
			return err
		}
		finish(v[2], dst)
		return nil
	})
}

//export rhgdgo_coupling_retr
func rhgdgo_coupling_retr(m, n C.int64_t, a, b, gamma, u, out *C.double) C.int {
	return guard(func() error {
		mn, err := matrix(m, n, "m", "n")
		if err != nil {
			return err
		}
		if a == nil || b == nil {
			return argf("marginal a or b is %v", termNULL)
		}
		v, err := arrays(mn, []string{"gamma", "u", "out"}, gamma, u, out)
		if err != nil {
			return err
		}
		c, err := coupling.New(view(a, int(m)), view(b, int(n)))
		if err != nil {
			return err
		}
		if err := c.CheckPoint(v[0]); err != nil {
			return input("gamma", err)
		}
		if err := finite("u", v[1], int(n)); err != nil {
			return err
		}
		dst := v[2]
		if overlaps(v[2], v[0]) || overlaps(v[2], v[1]) {
			dst = make([]float64, mn)
		}
		err = c.Retract(dst, v[0], v[1], 1)
		finish(v[2], dst) // the best plan, also on ErrSinkhornNotConverged
		return err
	})
}
