//go:build cgo

package main

/*
#include <stdlib.h>
#include <string.h>
#include "rhgd.h"

// Go cannot call a C function pointer directly: these trampolines do. The
// user pointer travels as uintptr_t on the Go side, so that whatever value
// a caller passes (Python often passes an integer) never reaches the Go
// garbage collector as a pointer.
static int rhgd_call_value_(rhgd_value_fn fn, uintptr_t user, const double *x, const double *y,
                            const int64_t *batch, int64_t nbatch, double *out) {
	return fn((void *)user, x, y, batch, nbatch, out);
}
static int rhgd_call_grad_(rhgd_grad_fn fn, uintptr_t user, const double *x, const double *y,
                           const int64_t *batch, int64_t nbatch, double *out) {
	return fn((void *)user, x, y, batch, nbatch, out);
}
static int rhgd_call_hvp_(rhgd_hvp_fn fn, uintptr_t user, const double *x, const double *y,
                          const int64_t *batch, int64_t nbatch, const double *v, double *out) {
	return fn((void *)user, x, y, batch, nbatch, v, out);
}
static int rhgd_call_hvps_(rhgd_hvps_fn fn, uintptr_t user, const double *x, const double *y,
                           const int64_t *batch, int64_t nbatch, int64_t k, const double *v, double *out) {
	return fn((void *)user, x, y, batch, nbatch, k, v, out);
}

static int rhgd_call_steps_(rhgd_steps_fn fn, uintptr_t user, const double *x, const double *y,
                            const int64_t *batch, int64_t nbatch, int64_t steps, double eta, double *y_out,
                            double *grad_norms) {
	return fn((void *)user, x, y, batch, nbatch, steps, eta, y_out, grad_norms);
}

static int rhgd_call_vjp_(rhgd_vjp_fn fn, uintptr_t user, const double *x, const double *y,
                          const int64_t *batch, int64_t nbatch, int64_t steps, double eta, const double *lam,
                          double *dx, double *dy) {
	return fn((void *)user, x, y, batch, nbatch, steps, eta, lam, dx, dy);
}

// rhgd_oracles_copy_ copies the caller's oracles, of the caller's size, into
// a zeroed struct of the library's: fields beyond the caller's size stay
// NULL/0. The caller checked size >= RHGD_ORACLES_SIZE_1.
static void rhgd_oracles_copy_(rhgd_oracles *dst, const rhgd_oracles *src) {
	size_t n = src->size < sizeof *dst ? src->size : sizeof *dst;
	memset(dst, 0, sizeof *dst);
	memcpy(dst, src, n);
	dst->size = sizeof *dst;
}
static int rhgd_call_epoch_(rhgd_epoch_fn fn, uintptr_t user, const rhgd_epoch *e) {
	return fn((void *)user, e);
}

// rhgd_epoch_buf_ is one allocation holding the epoch record and the
// copies of x, y and the hypergradient that the callback sees: Go memory
// holding Go pointers may not be handed to C, so the record lives in C.
typedef struct {
	rhgd_epoch e;
	double data[];
} rhgd_epoch_buf_;

static rhgd_epoch_buf_ *rhgd_epoch_alloc_(int64_t lx, int64_t ly) {
	rhgd_epoch_buf_ *b = calloc(1, sizeof(rhgd_epoch_buf_) + (size_t)(2 * lx + ly) * sizeof(double));
	if (b == NULL) return NULL;
	b->e.size = sizeof(rhgd_epoch);
	b->e.len_x = lx;
	b->e.len_y = ly;
	b->e.x = b->data;
	b->e.hypergrad = b->data + lx;
	b->e.y = b->data + 2 * lx;
	return b;
}
*/
import "C"

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/rhgd/rhgd/solver"
)

// ptr returns the address of s's first element for C; s is not empty
// (every manifold has a positive length).
func ptr(s []float64) *C.double { return (*C.double)(unsafe.Pointer(&s[0])) }

// cOracles are a callback problem's C function pointers and user value,
// with a one-double buffer for the values of f and g. A C function
// pointer is not a Go heap pointer, so keeping them here is allowed.
type cOracles struct {
	f, g                                       C.rhgd_value_fn
	gradFx, gradFy, gradGx, gradGy, lowerSolve C.rhgd_grad_fn
	hessGy, crossGxy, crossGyx, hessGi         C.rhgd_hvp_fn
	lowerSteps                                 C.rhgd_steps_fn
	lowerVJP                                   C.rhgd_vjp_fn
	hessBatch                                  C.rhgd_hvps_fn
	nf, ng                                     int
	user                                       C.uintptr_t
	scalar                                     []float64
}

// oraclesSize1 is the size of rhgd_oracles' first layout
// (RHGD_ORACLES_SIZE_1), the smallest size accepted.
const oraclesSize1 = C.size_t(unsafe.Offsetof(C.rhgd_oracles{}.n_f))

// newCOracles copies the caller's struct, reading only the fields within
// its size.
func newCOracles(src *C.rhgd_oracles, user C.uintptr_t) (*cOracles, error) {
	if src.size < oraclesSize1 {
		return nil, argf("oracles->size = %d, want sizeof(rhgd_oracles) (at least %v = %d)",
			uint64(src.size), constTerm("RHGD_ORACLES_SIZE_1"), uint64(oraclesSize1))
	}
	var o C.rhgd_oracles
	C.rhgd_oracles_copy_(&o, src)
	if o.n_f < 0 || o.n_g < 0 {
		return nil, argf("oracles->n_f = %d, n_g = %d: want >= 0", int64(o.n_f), int64(o.n_g))
	}
	return &cOracles{f: o.f, g: o.g, gradFx: o.grad_fx, gradFy: o.grad_fy, gradGx: o.grad_gx, gradGy: o.grad_gy,
		hessGy: o.hess_gy, crossGxy: o.cross_gxy, crossGyx: o.cross_gyx, hessGi: o.hess_gy_inv,
		lowerSolve: o.lower_solve, lowerSteps: o.lower_steps, lowerVJP: o.lower_steps_vjp,
		hessBatch: o.hess_gy_batch, nf: int(o.n_f), ng: int(o.n_g),
		user: user, scalar: make([]float64, 1)}, nil
}

// Component indices cross to C as int64_t without a copy.
var _ [unsafe.Sizeof(int(0)) - 8]struct{}

// noBatch stands for an empty, non-nil minibatch: a non-NULL pointer with
// nbatch 0 (NULL means the full sum).
var noBatch C.int64_t

// batch returns pt's minibatch for C: NULL and 0 for the full sum.
func batch(pt *solver.Point) (*C.int64_t, C.int64_t) {
	switch {
	case pt.Batch == nil:
		return nil, 0
	case len(pt.Batch) == 0:
		return &noBatch, 0
	}
	return (*C.int64_t)(unsafe.Pointer(&pt.Batch[0])), C.int64_t(len(pt.Batch))
}

func callbackErr(name string, rc C.int) error { return &callbackError{name: name, rc: int(rc)} }

func (c *cOracles) value(fn C.rhgd_value_fn, name string) func(*solver.Point) (float64, error) {
	if fn == nil {
		return nil
	}
	return func(pt *solver.Point) (float64, error) {
		b, nb := batch(pt)
		if rc := C.rhgd_call_value_(fn, c.user, ptr(pt.X), ptr(pt.Y), b, nb, ptr(c.scalar)); rc != 0 {
			return 0, callbackErr(name, rc)
		}
		return c.scalar[0], nil
	}
}

func (c *cOracles) grad(fn C.rhgd_grad_fn, name string) func([]float64, *solver.Point) error {
	if fn == nil {
		return nil
	}
	return func(dst []float64, pt *solver.Point) error {
		b, nb := batch(pt)
		if rc := C.rhgd_call_grad_(fn, c.user, ptr(pt.X), ptr(pt.Y), b, nb, ptr(dst)); rc != 0 {
			return callbackErr(name, rc)
		}
		return nil
	}
}

func (c *cOracles) hvp(fn C.rhgd_hvp_fn, name string) func([]float64, *solver.Point, []float64) error {
	if fn == nil {
		return nil
	}
	return func(dst []float64, pt *solver.Point, v []float64) error {
		b, nb := batch(pt)
		if rc := C.rhgd_call_hvp_(fn, c.user, ptr(pt.X), ptr(pt.Y), b, nb, ptr(v), ptr(dst)); rc != 0 {
			return callbackErr(name, rc)
		}
		return nil
	}
}

// hvps returns a HessGyBatch calling fn, or nil.
func (c *cOracles) hvps(fn C.rhgd_hvps_fn) func([]float64, *solver.Point, []float64, int) error {
	if fn == nil {
		return nil
	}
	return func(dst []float64, pt *solver.Point, v []float64, k int) error {
		b, nb := batch(pt)
		if rc := C.rhgd_call_hvps_(fn, c.user, ptr(pt.X), ptr(pt.Y), b, nb, C.int64_t(k), ptr(v), ptr(dst)); rc != 0 {
			return callbackErr(solver.OracleHessGyBatch.Key(), rc)
		}
		return nil
	}
}

// steps returns Problem.LowerSteps calling fn, or nil.
func (c *cOracles) steps(fn C.rhgd_steps_fn) func([]float64, *solver.Point, int, float64, []float64) error {
	if fn == nil {
		return nil
	}
	return func(dst []float64, pt *solver.Point, n int, eta float64, norms []float64) error {
		b, nb := batch(pt)
		if rc := C.rhgd_call_steps_(fn, c.user, ptr(pt.X), ptr(pt.Y), b, nb, C.int64_t(n), C.double(eta), ptr(dst),
			ptr(norms)); rc != 0 {
			return callbackErr("lower_steps", rc)
		}
		return nil
	}
}

// vjp returns Problem.LowerStepsVJP calling fn, or nil; with Euclidean
// oracles fn's dx is the Euclidean gradient in x, converted by Mx.
func (c *cOracles) vjp(fn C.rhgd_vjp_fn, mx solver.Manifold, euclidean bool) func(dx, dy []float64, pt *solver.Point, n int, eta float64, lam []float64) error {
	if fn == nil {
		return nil
	}
	var bx []float64
	if euclidean {
		bx = make([]float64, mx.Len())
	}
	return func(dx, dy []float64, pt *solver.Point, n int, eta float64, lam []float64) error {
		b, nb := batch(pt)
		out := dx
		if euclidean {
			out = bx
		}
		if rc := C.rhgd_call_vjp_(fn, c.user, ptr(pt.X), ptr(pt.Y), b, nb, C.int64_t(n), C.double(eta), ptr(lam),
			ptr(out), ptr(dy)); rc != 0 {
			return callbackErr(lowerStepsVJPKey, rc)
		}
		if euclidean {
			mx.EGradToRGrad(dx, pt.X, bx)
		}
		return nil
	}
}

// problem returns the solver.Problem the oracles describe on mx × my,
// Riemannian as given or converted from Euclidean ones. Three oracles
// mean the same with either flag: lower_solve (a point), hess_gy_inv
// (the Riemannian inverse Hessian, taken as given: no manifold method
// converts to it, and a caller with Euclidean derivatives often has it in
// closed form) and lower_steps (Euclidean steps on a Euclidean My, where
// they are the Riemannian ones).
func (c *cOracles) problem(mx, my solver.Manifold, euclidean bool) (solver.Problem, error) {
	for _, r := range []struct {
		ok   bool
		name string
	}{{c.f != nil, "f"}, {c.gradFx != nil, "grad_fx"}, {c.gradFy != nil, "grad_fy"}, {c.gradGy != nil, "grad_gy"}} {
		if !r.ok {
			return solver.Problem{}, argf("oracle %s is %v; f, grad_fx, grad_fy and grad_gy are required", r.name, termNULL)
		}
	}
	if c.lowerVJP != nil && c.lowerSteps == nil {
		return solver.Problem{}, argf("lower_steps_vjp is given without lower_steps: it differentiates the fused lower loop that lower_steps runs")
	}
	if c.lowerSteps != nil && !solver.IsEuclideanSpace(my) {
		return solver.Problem{}, argf("lower_steps is given on My = %s, which is not a Euclidean space: it takes Euclidean gradient steps, which are the solver's lower steps only on euclid manifolds and products of them",
			specOf(my))
	}
	var p solver.Problem
	if euclidean {
		p = solver.Euclidean(solver.EuclideanProblem{Mx: mx, My: my, NF: c.nf, NG: c.ng,
			F: c.value(c.f, "f"), GradFx: c.grad(c.gradFx, "grad_fx"), GradFy: c.grad(c.gradFy, "grad_fy"),
			G: c.value(c.g, "g"), GradGx: c.grad(c.gradGx, "grad_gx"), GradGy: c.grad(c.gradGy, "grad_gy"),
			HessGy: c.hvp(c.hessGy, "hess_gy"), HessGyBatch: c.hvps(c.hessBatch), CrossGxy: c.hvp(c.crossGxy, "cross_gxy"),
			CrossGyx: c.hvp(c.crossGyx, "cross_gyx")})
	} else {
		p = solver.Problem{Mx: mx, My: my, NF: c.nf, NG: c.ng,
			F: c.value(c.f, "f"), GradFx: c.grad(c.gradFx, "grad_fx"), GradFy: c.grad(c.gradFy, "grad_fy"),
			G: c.value(c.g, "g"), GradGx: c.grad(c.gradGx, "grad_gx"), GradGy: c.grad(c.gradGy, "grad_gy"),
			HessGy: c.hvp(c.hessGy, "hess_gy"), HessGyBatch: c.hvps(c.hessBatch), CrossGxy: c.hvp(c.crossGxy, "cross_gxy"),
			CrossGyx: c.hvp(c.crossGyx, "cross_gyx")}
	}
	p.HessGyInv = c.hvp(c.hessGi, "hess_gy_inv")
	p.LowerSolve = c.grad(c.lowerSolve, "lower_solve")
	p.LowerSteps = c.steps(c.lowerSteps)
	p.LowerStepsVJP = c.vjp(c.lowerVJP, mx, euclidean)
	return p, nil
}

// recorder keeps a solver's per-epoch history and calls the caller's epoch
// callback, which may cancel the run. It is the solver's Recorder for all
// its runs; begin and end bracket each run.
type recorder struct {
	history []histRow
	fn      C.rhgd_epoch_fn
	user    C.uintptr_t
	buf     *C.rhgd_epoch_buf_
	cancel  context.CancelFunc
}

// histRow is one epoch of the history, in the column order of rhgd.h.
type histRow [histCols]float64

// histNames are the history's columns, in order: the RHGD_HISTORY_*
// indices of rhgd.h, and the names of rhgd_epoch's fields they copy
// (TestHistoryNames checks both). Columns are only ever appended.
var histNames = [...]string{"epoch", "f", "hypergrad_norm", "lower_grad_norm", "elapsed", "upper_grads", "lower_grads",
	"hess_vecs", "cross_vecs", "iterations", "residual", "lower_steps", "upper_step", "lower_solves",
	"lower_min_eig", "hypergrad_err_bound"}

const histCols = len(histNames)

// begin prepares a run: the history's capacity for the epochs expected
// (so that recording allocates nothing), and the C record for fn.
func (r *recorder) begin(epochs, lx, ly int, fn C.rhgd_epoch_fn, user C.uintptr_t, cancel context.CancelFunc) error {
	if c := min(epochs, 1<<16); cap(r.history) < c {
		r.history = make([]histRow, 0, c)
	}
	r.history = r.history[:0]
	r.fn, r.user, r.cancel = fn, user, cancel
	if fn != nil {
		r.buf = C.rhgd_epoch_alloc_(C.int64_t(lx), C.int64_t(ly))
		if r.buf == nil {
			return fmt.Errorf("%w: out of memory for the epoch record", errInternal)
		}
	}
	return nil
}

// end releases the C record.
func (r *recorder) end() {
	if r.buf != nil {
		C.free(unsafe.Pointer(r.buf))
		r.buf = nil
	}
	r.fn, r.cancel = nil, nil
}

// Record stores the epoch and calls the callback; a nonzero return cancels
// the run through its context (status Cancelled, not a failure).
func (r *recorder) Record(e *solver.EpochStats) error {
	st := e.Stats
	r.history = append(r.history, histRow{float64(e.Epoch), e.F, e.HyperGradNorm, e.LowerGradNorm, e.Elapsed.Seconds(),
		float64(st.UpperGrads), float64(st.LowerGrads), float64(st.HessVecs), float64(st.CrossVecs),
		float64(st.Iterations), st.Residual, float64(e.LowerSteps), e.UpperStep, float64(st.LowerSolves),
		e.Estimate.MinEig, e.HyperGradErrBound})
	if r.fn == nil {
		return nil
	}
	ce := &r.buf.e
	ce.epoch = C.int64_t(e.Epoch)
	ce.f, ce.hypergrad_norm, ce.lower_grad_norm = C.double(e.F), C.double(e.HyperGradNorm), C.double(e.LowerGradNorm)
	ce.elapsed = C.double(e.Elapsed.Seconds())
	ce.upper_grads, ce.lower_grads = C.int64_t(st.UpperGrads), C.int64_t(st.LowerGrads)
	ce.hess_vecs, ce.cross_vecs, ce.iterations = C.int64_t(st.HessVecs), C.int64_t(st.CrossVecs), C.int64_t(st.Iterations)
	ce.residual = C.double(st.Residual)
	ce.lower_steps, ce.upper_step, ce.lower_solves = C.int64_t(e.LowerSteps), C.double(e.UpperStep), C.int64_t(st.LowerSolves)
	ce.lower_min_eig, ce.hypergrad_err_bound = C.double(e.Estimate.MinEig), C.double(e.HyperGradErrBound)
	copy(unsafe.Slice((*float64)(unsafe.Pointer(ce.x)), int(ce.len_x)), e.X)
	copy(unsafe.Slice((*float64)(unsafe.Pointer(ce.y)), int(ce.len_y)), e.Y)
	copy(unsafe.Slice((*float64)(unsafe.Pointer(ce.hypergrad)), int(ce.len_x)), e.HyperGrad)
	if C.rhgd_call_epoch_(r.fn, r.user, ce) != 0 {
		r.cancel()
	}
	return nil
}

// problemFromOracles is rhgd_problem_callbacks on Go manifolds, for the
// benchmark of one callback crossing: o points to a C rhgd_oracles.
func problemFromOracles(o unsafe.Pointer, user uintptr, mx, my solver.Manifold, euclidean bool) (solver.Problem, error) {
	c, err := newCOracles((*C.rhgd_oracles)(o), C.uintptr_t(user))
	if err != nil {
		return solver.Problem{}, err
	}
	return c.problem(mx, my, euclidean)
}
