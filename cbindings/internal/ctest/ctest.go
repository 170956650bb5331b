//go:build cgo

package ctest

/*
#cgo CFLAGS: -Wall
#cgo LDFLAGS: -lm -lpthread
#include <stdlib.h>
#include "ctest.h"

static rhgd_oracles ctest_noop_oracles_ = {.size = sizeof(rhgd_oracles)};
static rhgd_oracles *ctest_noop_oracles(void) {
	ctest_noop_oracles_.f = ctest_noop_grad;
	ctest_noop_oracles_.grad_fx = ctest_noop_grad;
	ctest_noop_oracles_.grad_fy = ctest_noop_grad;
	ctest_noop_oracles_.grad_gy = ctest_noop_grad;
	return &ctest_noop_oracles_;
}

// Constants of rhgd.h, so that the Go tests compare them with the
// library's.
static int64_t ctest_const(int i) {
	switch (i) {
	case 0: return RHGD_OK;
	case 1: return RHGD_EINVAL;
	case 2: return RHGD_ENOTCONV;
	case 3: return RHGD_ENUMERIC;
	case 4: return RHGD_EBADHANDLE;
	case 5: return RHGD_EINTERNAL;
	case 6: return RHGD_ECALLBACK;
	case 7: return RHGD_EBUSY;
	case 8: return RHGD_STATUS_NOT_TERMINATED;
	case 9: return RHGD_STATUS_GRADIENT_THRESHOLD;
	case 10: return RHGD_STATUS_ITERATION_LIMIT;
	case 11: return RHGD_STATUS_RUNTIME_LIMIT;
	case 12: return RHGD_STATUS_CANCELLED;
	case 13: return RHGD_STATUS_DIVERGED;
	case 14: return RHGD_STATUS_FAILURE;
	case 15: return RHGD_HISTORY_COLS;
	case 16: return RHGD_RIEMANNIAN;
	case 17: return RHGD_EUCLIDEAN;
	}
	return -1000;
}

static const char *ctest_header_version(void) { return RHGD_VERSION; }

// Go may not take the address of a static C function: this hands it over.
static rhgd_epoch_fn ctest_epoch_fn(void) { return ctest_epoch_cb; }
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// ConstNames are the constants Const returns, in order.
var ConstNames = []string{"RHGD_OK", "RHGD_EINVAL", "RHGD_ENOTCONV", "RHGD_ENUMERIC", "RHGD_EBADHANDLE",
	"RHGD_EINTERNAL", "RHGD_ECALLBACK", "RHGD_EBUSY",
	"RHGD_STATUS_NOT_TERMINATED", "RHGD_STATUS_GRADIENT_THRESHOLD", "RHGD_STATUS_ITERATION_LIMIT",
	"RHGD_STATUS_RUNTIME_LIMIT", "RHGD_STATUS_CANCELLED", "RHGD_STATUS_DIVERGED", "RHGD_STATUS_FAILURE",
	"RHGD_HISTORY_COLS", "RHGD_RIEMANNIAN", "RHGD_EUCLIDEAN"}

// Const returns the value rhgd.h gives ConstNames[i].
func Const(i int) int64 { return int64(C.ctest_const(C.int(i))) }

// HeaderVersion returns RHGD_VERSION; Version the library's.
func HeaderVersion() string { return C.GoString(C.ctest_header_version()) }

// Version returns rhgd_version().
func Version() string { return C.GoString(C.rhgd_version()) }

// Strerror returns rhgd_strerror(code).
func Strerror(code int) string { return C.GoString(C.rhgd_strerror(C.int(code))) }

// StatusString returns rhgd_status_string(s).
func StatusString(s int) string { return C.GoString(C.rhgd_status_string(C.int(s))) }

// Do runs f on one OS thread and returns its code with the thread's last
// error message when the code is negative: the message is per thread, and
// a goroutine may otherwise move between the call and the read.
func Do(f func() int) (int, string) {
	return do(f, func() string { _, msg := LastError(4096); return msg })
}

// DoTerms is Do, returning rhgd_last_error_terms's message.
func DoTerms(f func() int) (int, string) {
	return do(f, func() string {
		_, msg := copyOut(4096, func(b *C.char, n C.size_t) C.int { return C.rhgd_last_error_terms(b, n) })
		return msg
	})
}

// do runs f on one OS thread and, when its code is negative, read.
func do(f func() int, read func() string) (int, string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	code := f()
	if code >= 0 {
		return code, ""
	}
	return code, read()
}

// LastError calls rhgd_last_error with a buffer of size bytes (nil when
// size is 0) and returns its result and the buffer's string.
func LastError(size int) (int, string) {
	if size == 0 {
		return int(C.rhgd_last_error(nil, 0)), ""
	}
	buf := make([]byte, size)
	n := C.rhgd_last_error((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(size))
	return int(n), C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
}

// CopyOut calls a string-returning function f(buf, len) with a buffer of
// size bytes.
func copyOut(size int, f func(*C.char, C.size_t) C.int) (int, string) {
	if size == 0 {
		return int(f(nil, 0)), ""
	}
	buf := make([]byte, size)
	n := f((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(size))
	return int(n), C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
}

// p returns s's data for C, NULL for a nil slice.
func p(s []float64) *C.double {
	if s == nil {
		return nil
	}
	if len(s) == 0 {
		return (*C.double)(unsafe.Pointer(unsafe.SliceData(s)))
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

func cstr(s string) *C.char {
	return C.CString(s)
}

func free(s *C.char) { C.free(unsafe.Pointer(s)) }

// Init calls rhgd_init.
func Init(backend string, threads int64, shared int) int {
	var b *C.char
	if backend != "" {
		b = cstr(backend)
		defer free(b)
	}
	return int(C.rhgd_init(b, C.int64_t(threads), C.int(shared)))
}

// SetThreads calls rhgd_set_threads.
func SetThreads(n int64) int { return int(C.rhgd_set_threads(C.int64_t(n))) }

// Info calls rhgd_info with a buffer of size bytes.
func Info(size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_info(b, n) })
}

// The kernels, on Go slices (nil for NULL).

func Expsym(n int64, a, out []float64) int  { return int(C.rhgd_expsym(C.int64_t(n), p(a), p(out))) }
func Logsym(n int64, a, out []float64) int  { return int(C.rhgd_logsym(C.int64_t(n), p(a), p(out))) }
func Sqrtsym(n int64, a, out []float64) int { return int(C.rhgd_sqrtsym(C.int64_t(n), p(a), p(out))) }
func Expm(n int64, a, out []float64) int    { return int(C.rhgd_expm(C.int64_t(n), p(a), p(out))) }

// The batched spectral kernels.

func SpectralEigBatch(n, count int64, a, w, v []float64) int {
	return int(C.rhgd_spectral_eig_batch(C.int64_t(n), C.int64_t(count), p(a), p(w), p(v)))
}
func SpectralExpBatch(n, count int64, a, out []float64) int {
	return int(C.rhgd_spectral_exp_batch(C.int64_t(n), C.int64_t(count), p(a), p(out)))
}
func SpectralLogBatch(n, count int64, a, out []float64) int {
	return int(C.rhgd_spectral_log_batch(C.int64_t(n), C.int64_t(count), p(a), p(out)))
}
func SpectralReEigBatch(n, count int64, eps float64, a, out []float64) int {
	return int(C.rhgd_spectral_reeig_batch(C.int64_t(n), C.int64_t(count), C.double(eps), p(a), p(out)))
}
func SpectralExpBatchBackward(n, count int64, a, g, grad []float64) int {
	return int(C.rhgd_spectral_exp_batch_backward(C.int64_t(n), C.int64_t(count), p(a), p(g), p(grad)))
}
func SpectralLogBatchBackward(n, count int64, a, g, grad []float64) int {
	return int(C.rhgd_spectral_log_batch_backward(C.int64_t(n), C.int64_t(count), p(a), p(g), p(grad)))
}
func SpectralReEigBatchBackward(n, count int64, eps float64, a, g, grad []float64) int {
	return int(C.rhgd_spectral_reeig_batch_backward(C.int64_t(n), C.int64_t(count), C.double(eps), p(a), p(g), p(grad)))
}
func Lyap(n int64, a, c, x []float64) int {
	return int(C.rhgd_lyapunov_sym(C.int64_t(n), p(a), p(c), p(x)))
}
func LyapMany(n, count int64, a, c, x []float64) int {
	return int(C.rhgd_lyapunov_sym_many(C.int64_t(n), C.int64_t(count), p(a), p(c), p(x)))
}
func SPDExp(n int64, x, u, out []float64) int {
	return int(C.rhgd_spd_exp(C.int64_t(n), p(x), p(u), p(out)))
}
func SPDLog(n int64, x, y, out []float64) int {
	return int(C.rhgd_spd_log(C.int64_t(n), p(x), p(y), p(out)))
}

// SPDDist calls rhgd_spd_dist; nilDist passes NULL for dist.
func SPDDist(n int64, x, y []float64, nilDist bool) (float64, int) {
	var d C.double
	dp := &d
	if nilDist {
		dp = nil
	}
	rc := C.rhgd_spd_dist(C.int64_t(n), p(x), p(y), dp)
	return float64(d), int(rc)
}
func StiefelQR(n, k int64, x, u, out []float64) int {
	return int(C.rhgd_stiefel_retr_qr(C.int64_t(n), C.int64_t(k), p(x), p(u), p(out)))
}
func CouplingRetr(m, n int64, a, b, g, u, out []float64) int {
	return int(C.rhgd_coupling_retr(C.int64_t(m), C.int64_t(n), p(a), p(b), p(g), p(u), p(out)))
}

// Manifolds.

func ManifoldNew(spec string) (int64, int) {
	s := cstr(spec)
	defer free(s)
	var h C.rhgd_manifold
	rc := C.rhgd_manifold_new(s, &h)
	return int64(h.id), int(rc)
}

func ManifoldCoupling(m, n int64, a, b []float64, opts string) (int64, int) {
	var o *C.char
	if opts != "" {
		o = cstr(opts)
		defer free(o)
	}
	var h C.rhgd_manifold
	rc := C.rhgd_manifold_coupling(C.int64_t(m), C.int64_t(n), p(a), p(b), o, &h)
	return int64(h.id), int(rc)
}

func ManifoldProduct(hs []int64) (int64, int) {
	var h C.rhgd_manifold
	var fp *C.rhgd_manifold
	if len(hs) > 0 {
		fp = (*C.rhgd_manifold)(unsafe.Pointer(&hs[0]))
	}
	rc := C.rhgd_manifold_product(C.int64_t(len(hs)), fp, &h)
	return int64(h.id), int(rc)
}

func ManifoldFree(h int64) int { return int(C.rhgd_manifold_free(mh(h))) }

func ManifoldLen(h int64) (n, dim int64, rc int) {
	var l, d C.int64_t
	rc = int(C.rhgd_manifold_len(mh(h), &l, &d))
	return int64(l), int64(d), rc
}

// ManifoldShape calls rhgd_manifold_shape.
func ManifoldShape(h int64) (rows, cols, factors int64, rc int) {
	var r, c, k C.int64_t
	rc = int(C.rhgd_manifold_shape(mh(h), &r, &c, &k))
	return int64(r), int64(c), int64(k), rc
}

// ManifoldFactor calls rhgd_manifold_factor.
func ManifoldFactor(h, i int64) (int64, int) {
	var out C.rhgd_manifold
	rc := int(C.rhgd_manifold_factor(mh(h), C.int64_t(i), &out))
	return int64(out.id), rc
}

// ManifoldDescribe calls rhgd_manifold_describe with a buffer of size bytes.
func ManifoldDescribe(h int64, size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_manifold_describe(mh(h), b, n) })
}

// SnapPoint calls rhgd_manifold_snap_point with a note buffer of size bytes.
func SnapPoint(h int64, x, out []float64, size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int {
		return C.rhgd_manifold_snap_point(mh(h), p(x), p(out), b, n)
	})
}

func CheckPoint(h int64, x []float64) int {
	return int(C.rhgd_manifold_check_point(mh(h), p(x)))
}
func RandPoint(h int64, seed uint64, x []float64) int {
	return int(C.rhgd_manifold_rand_point(mh(h), C.uint64_t(seed), p(x)))
}
func Project(h int64, x, v, out []float64) int {
	return int(C.rhgd_manifold_project(mh(h), p(x), p(v), p(out)))
}
func Retract(h int64, x, u []float64, t float64, out []float64) int {
	return int(C.rhgd_manifold_retract(mh(h), p(x), p(u), C.double(t), p(out)))
}

// Problems.

// DefaultSeed returns rhgd_default_seed().
func DefaultSeed() uint64 { return uint64(C.rhgd_default_seed()) }

// ProblemManifolds calls rhgd_problem_manifolds.
func ProblemManifolds(h int64) (mx, my int64, rc int) {
	var a, b C.rhgd_manifold
	rc = int(C.rhgd_problem_manifolds(ph(h), &a, &b))
	return int64(a.id), int64(b.id), rc
}

func ProblemNames(size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_problem_names(b, n) })
}

func ProblemParams(name string, size int) (int, string) {
	s := cstr(name)
	defer free(s)
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_problem_params(s, b, n) })
}

// Builtin calls rhgd_problem_builtin; data "" passes NULL.
func Builtin(name string, params []string, data string, seed uint64) (int64, int) {
	s := cstr(name)
	defer free(s)
	var ps **C.char
	if len(params) > 0 {
		arr := (*[1 << 16]*C.char)(C.malloc(C.size_t(len(params)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
		for i, v := range params {
			arr[i] = cstr(v)
		}
		defer func() {
			for i := range params {
				free(arr[i])
			}
			C.free(unsafe.Pointer(arr))
		}()
		ps = &arr[0]
	}
	var d *C.char
	if data != "" {
		d = cstr(data)
		defer free(d)
	}
	var h C.rhgd_problem
	rc := C.rhgd_problem_builtin(s, C.int64_t(len(params)), ps, d, C.uint64_t(seed), &h)
	return int64(h.id), int(rc)
}

// Quad is the quadratic test problem's data in C memory.
type Quad struct{ q *C.ctest_quad }

// NewQuad copies the data of the quadratic problem (a: m, b: m×k, c: m)
// into C memory; grad_gy fails from call failAt on (0: never).
func NewQuad(k, m int, lambda float64, a, b, c []float64, failAt int) *Quad {
	q := (*C.ctest_quad)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ctest_quad{}))))
	arr := func(s []float64) *C.double {
		d := (*C.double)(C.malloc(C.size_t(len(s) * 8)))
		copy(unsafe.Slice((*float64)(unsafe.Pointer(d)), len(s)), s)
		return d
	}
	q.k, q.m, q.lambda = C.int(k), C.int(m), C.double(lambda)
	q.a, q.b, q.c = arr(a), arr(b), arr(c)
	q.fail_at = C.long(failAt)
	return &Quad{q}
}

// Calls returns the number of oracle calls so far.
func (q *Quad) Calls() int { return int(q.q.calls) }

// StepsCalls returns the grad_gy calls, the lower_steps calls and the
// calls of lower_steps with a batch or of the trap (ctest_trap_steps).
func (q *Quad) StepsCalls() (gradGys, lowerSteps, bad int) {
	return int(q.q.grad_gys), int(q.q.lower_steps), int(q.q.steps_batches)
}

// VJPCalls returns the lower_steps_vjp calls.
func (q *Quad) VJPCalls() int { return int(q.q.vjps) }

// Free releases the C memory.
func (q *Quad) Free() {
	C.free(unsafe.Pointer(q.q.a))
	C.free(unsafe.Pointer(q.q.b))
	C.free(unsafe.Pointer(q.q.c))
	C.free(unsafe.Pointer(q.q))
}

// QuadProblem builds the quadratic problem on the manifolds mx, my through
// rhgd_problem_callbacks (full as ctest_quad_oracles takes it; dropRequired
// removes grad_gy).
func QuadProblem(q *Quad, mx, my int64, full, flags int, dropRequired bool) (int64, int) {
	o := C.ctest_quad_oracles(C.int(full))
	if dropRequired {
		o.grad_gy = nil
	}
	var h C.rhgd_problem
	rc := C.rhgd_problem_callbacks(mh(mx), mh(my), &o, C.int(flags), unsafe.Pointer(q.q), &h)
	return int64(h.id), int(rc)
}

// QuadProblemSteps builds the quadratic problem with lower_steps (mode 1)
// or, as a caller of the layout before lower_steps would, with a trap
// beyond its size (mode 2); see ctest_quad_problem_steps.
func QuadProblemSteps(q *Quad, mx, my int64, full, flags, mode int) (int64, int) {
	var h C.rhgd_problem
	rc := C.ctest_quad_problem_steps(q.q, mh(mx), mh(my), C.int(full), C.int(flags), C.int(mode), &h)
	return int64(h.id), int(rc)
}

// NoopOracles returns a static rhgd_oracles (C memory) whose required
// oracles do nothing, to time one callback crossing.
func NoopOracles() unsafe.Pointer { return unsafe.Pointer(C.ctest_noop_oracles()) }

// NoopProblem builds a callback problem from NoopOracles.
func NoopProblem(mx, my int64) (int64, int) {
	var h C.rhgd_problem
	rc := C.rhgd_problem_callbacks(mh(mx), mh(my), C.ctest_noop_oracles(), C.RHGD_RIEMANNIAN, nil, &h)
	return int64(h.id), int(rc)
}

func ProblemFree(h int64) int { return int(C.rhgd_problem_free(ph(h))) }

func ProblemDims(h int64) (lx, ly int64, rc int) {
	var a, b C.int64_t
	rc = int(C.rhgd_problem_dims(ph(h), &a, &b))
	return int64(a), int64(b), rc
}

func ProblemStart(h int64, x0, y0 []float64) int {
	return int(C.rhgd_problem_start(ph(h), p(x0), p(y0)))
}
func ProblemSetStart(h int64, x0, y0 []float64) int {
	return int(C.rhgd_problem_set_start(ph(h), p(x0), p(y0)))
}
func ProblemDescribe(h int64, size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_problem_describe(ph(h), b, n) })
}
func ProblemNotes(h int64, size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_problem_notes(ph(h), b, n) })
}
func Oracle(h int64, name string, x, y, v, out []float64) int {
	s := cstr(name)
	defer free(s)
	return int(C.rhgd_problem_oracle(ph(h), s, p(x), p(y), p(v), p(out)))
}

// ProblemCheck calls rhgd_problem_check; options "" passes NULL.
func ProblemCheck(h int64, x, y []float64, options string, size int) (int, string) {
	var o *C.char
	if options != "" {
		o = cstr(options)
		defer free(o)
	}
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_problem_check(ph(h), p(x), p(y), o, b, n) })
}

// Accuracy calls rhgd_problem_accuracy.
func Accuracy(h int64, x, y []float64) (float64, int) {
	var a C.double
	rc := int(C.rhgd_problem_accuracy(ph(h), p(x), p(y), &a))
	return float64(a), rc
}

// Solvers.

func SolverNew(h int64, est, settings string) (int64, int) {
	var e, st *C.char
	if est != "" {
		e = cstr(est)
		defer free(e)
	}
	if settings != "" {
		st = cstr(settings)
		defer free(st)
	}
	var s C.rhgd_solver
	rc := C.rhgd_solver_new(ph(h), e, st, &s)
	return int64(s.id), int(rc)
}

func SolverSettings(h int64, size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_solver_settings(sh(h), b, n) })
}

// Epochs is the epoch callback's record, in C memory.
type Epochs struct{ e *C.ctest_epochs }

// NewEpochs returns a record whose callback cancels at epoch cancelAt
// (negative: never), by returning nonzero or, with viaCancel, by calling
// rhgd_solver_cancel; with rerun it first tries to run the solver again
// from inside the callback.
func NewEpochs(solver int64, cancelAt int, viaCancel, rerun bool) *Epochs {
	e := (*C.ctest_epochs)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ctest_epochs{}))))
	e.cancel_at, e.solver = C.long(cancelAt), sh(solver)
	if viaCancel {
		e.cancel_via = 1
	}
	if rerun {
		e.rerun = 1
	}
	return &Epochs{e}
}

func (e *Epochs) Calls() int         { return int(e.e.calls) }
func (e *Epochs) F(k int) float64    { return float64(e.e.f[k]) }
func (e *Epochs) X0() float64        { return float64(e.e.x0) }
func (e *Epochs) Y0() float64        { return float64(e.e.y0) }
func (e *Epochs) HG0() float64       { return float64(e.e.hg0) }
func (e *Epochs) Lens() (x, y int64) { return int64(e.e.len_x), int64(e.e.len_y) }
func (e *Epochs) RerunCode() int     { return int(e.e.rerun_code) }
func (e *Epochs) Free()              { C.free(unsafe.Pointer(e.e)) }

// SolverRun calls rhgd_solver_run, with the epoch callback when e is not
// nil.
func SolverRun(h int64, x0, y0 []float64, e *Epochs) int {
	if e == nil {
		return int(C.rhgd_solver_run(sh(h), p(x0), p(y0), nil, nil))
	}
	return int(C.rhgd_solver_run(sh(h), p(x0), p(y0), C.ctest_epoch_fn(), unsafe.Pointer(e.e)))
}

func SolverCancel(h int64) int { return int(C.rhgd_solver_cancel(sh(h))) }

// SolverSetCheckpoint calls rhgd_solver_set_checkpoint; path "" passes
// NULL.
func SolverSetCheckpoint(h int64, path string, every int64) int {
	var cp *C.char
	if path != "" {
		cp = cstr(path)
		defer free(cp)
	}
	return int(C.rhgd_solver_set_checkpoint(sh(h), cp, C.int64_t(every)))
}

// SolverResume calls rhgd_solver_resume, with the epoch callback when e
// is not nil.
func SolverResume(h int64, path string, e *Epochs) int {
	cp := cstr(path)
	defer free(cp)
	if e == nil {
		return int(C.rhgd_solver_resume(sh(h), cp, nil, nil))
	}
	return int(C.rhgd_solver_resume(sh(h), cp, C.ctest_epoch_fn(), unsafe.Pointer(e.e)))
}

// SolverHypergradient calls rhgd_solver_hypergradient; nil slices and a
// nil norm pass NULL.
func SolverHypergradient(h, lx int64, x []float64, ly int64, y, hg, yOut []float64, norm *float64) int {
	return int(C.rhgd_solver_hypergradient(sh(h), C.int64_t(lx), p(x), C.int64_t(ly), p(y), p(hg), p(yOut),
		(*C.double)(unsafe.Pointer(norm))))
}

// Result mirrors rhgd_result.
type Result struct {
	Status, Error                                           int
	Epochs                                                  int64
	F, BestF, HyperGradNorm, Runtime                        float64
	UpperGrads, LowerGrads, HessVecs, CrossVecs, Iterations int64
	Residual                                                float64
	LowerValues, LowerSolves, RetractFailures               int64
}

func SolverResult(h int64) (Result, int) {
	r := C.rhgd_result{size: C.sizeof_rhgd_result}
	rc := int(C.rhgd_solver_result(sh(h), &r))
	return Result{int(r.status), int(r.error), int64(r.epochs), float64(r.f), float64(r.best_f),
		float64(r.hypergrad_norm), float64(r.runtime), int64(r.upper_grads), int64(r.lower_grads),
		int64(r.hess_vecs), int64(r.cross_vecs), int64(r.iterations), float64(r.residual),
		int64(r.lower_values), int64(r.lower_solves), int64(r.retract_failures)}, rc
}

func SolverX(h, n int64, out []float64) int {
	return int(C.rhgd_solver_x(sh(h), C.int64_t(n), p(out)))
}
func SolverY(h, n int64, out []float64) int {
	return int(C.rhgd_solver_y(sh(h), C.int64_t(n), p(out)))
}

// SolverHistory calls rhgd_solver_history with room for maxRows rows.
func SolverHistory(h int64, maxRows int) ([]float64, int64, int) {
	var rows []float64
	if maxRows > 0 {
		rows = make([]float64, maxRows*int(C.RHGD_HISTORY_COLS))
	}
	var n C.int64_t
	rc := int(C.rhgd_solver_history(sh(h), C.int64_t(maxRows), C.RHGD_HISTORY_COLS, p(rows), &n))
	return rows, int64(n), rc
}

func SolverFree(h int64) int { return int(C.rhgd_solver_free(sh(h))) }

func LiveHandles() (int64, int) {
	var n C.int64_t
	rc := int(C.rhgd_live_handles(&n))
	return int64(n), rc
}

// Threads runs ctest_threads: nthreads pthreads on independent handles,
// compared with serial runs.
func Threads(nthreads, rounds int) string {
	buf := make([]byte, 1024)
	if C.ctest_threads(C.int(nthreads), C.int(rounds), (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf))) != 0 {
		return C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
	}
	return ""
}

// Timing loops: iters calls made from C.

func LoopExpsym(iters int, n int64, a, out []float64) int {
	return int(C.ctest_loop_expsym(C.long(iters), C.int64_t(n), p(a), p(out)))
}
func LoopLogsym(iters int, n int64, a, out []float64) int {
	return int(C.ctest_loop_logsym(C.long(iters), C.int64_t(n), p(a), p(out)))
}
func LoopLyap(iters int, n int64, a, c, out []float64) int {
	return int(C.ctest_loop_lyap(C.long(iters), C.int64_t(n), p(a), p(c), p(out)))
}
func LoopOracle(iters int, h int64, name string, x, y, v, out []float64) int {
	s := cstr(name)
	defer free(s)
	return int(C.ctest_loop_oracle(C.long(iters), ph(h), s, p(x), p(y), p(v), p(out)))
}

// mh, ph and sh make the handle structs of rhgd.h from ids.
func mh(id int64) C.rhgd_manifold { return C.rhgd_manifold{id: C.uint64_t(id)} }
func ph(id int64) C.rhgd_problem  { return C.rhgd_problem{id: C.uint64_t(id)} }
func sh(id int64) C.rhgd_solver   { return C.rhgd_solver{id: C.uint64_t(id)} }

// Fsum is the finite-sum problem of ctest.h (C memory), with the batches
// its oracles saw.
type Fsum struct{ q *C.ctest_fsum }

// NewFsum allocates its counters.
func NewFsum() *Fsum {
	return &Fsum{(*C.ctest_fsum)(C.calloc(1, C.sizeof_ctest_fsum))}
}

// Free releases the C memory.
func (f *Fsum) Free() { C.free(unsafe.Pointer(f.q)) }

// Calls returns the oracle calls with the full sum and with minibatches,
// the bad batches seen and the lower_solve calls.
func (f *Fsum) Calls() (full, batch, bad, lowerSolves int64) {
	return int64(f.q.full_calls), int64(f.q.batch_calls), int64(f.q.bad_batches), int64(f.q.lower_solves)
}

// FsumXStar returns the closed-form x*.
func FsumXStar() []float64 {
	x := make([]float64, 2)
	C.ctest_fsum_xstar((*C.double)(unsafe.Pointer(&x[0])))
	return x
}

// FsumProblem builds the finite-sum problem on mx, my (R^2 each) with
// rhgd_oracles.size = size (0: sizeof) and lower_solve when lowerSolve.
func FsumProblem(f *Fsum, mx, my int64, lowerSolve bool, size int) (int64, int) {
	ls := 0
	if lowerSolve {
		ls = 1
	}
	o := C.ctest_fsum_oracles(C.int(ls), C.size_t(size))
	var h C.rhgd_problem
	rc := C.rhgd_problem_callbacks(mh(mx), mh(my), &o, C.RHGD_EUCLIDEAN, unsafe.Pointer(f.q), &h)
	return int64(h.id), int(rc)
}

// FsumProblemHinv builds the finite-sum problem (Euclidean oracles) with
// hess_gy_inv; HinvBatches returns that oracle's minibatch calls and the
// size of the last minibatch.
func FsumProblemHinv(f *Fsum, mx, my int64) (int64, int) {
	var h C.rhgd_problem
	rc := C.ctest_fsum_problem_hinv(f.q, mh(mx), mh(my), &h)
	return int64(h.id), int(rc)
}

func (f *Fsum) HinvBatches() (calls, last int64) {
	return int64(f.q.hinv_batches), int64(f.q.hinv_nbatch)
}

// SPD is the counters of the problem on R^2 × SPD(2) of ctest.h (C
// memory).
type SPD struct{ q *C.ctest_spd }

// NewSPD allocates its counters; Free releases them.
func NewSPD() *SPD              { return &SPD{(*C.ctest_spd)(C.calloc(1, C.sizeof_ctest_spd))} }
func (s *SPD) Free()            { C.free(unsafe.Pointer(s.q)) }
func (s *SPD) HinvCalls() int64 { return int64(s.q.hinv_calls) }

// HessCalls returns the hess_gy calls, the hess_gy_batch calls and the
// last one's k.
func (s *SPD) HessCalls() (hess, batch, k int64) {
	return int64(s.q.hess_calls), int64(s.q.batch_calls), int64(s.q.batch_k)
}

// SPDProblem builds it on mx = R^2 and my = SPD(2), with hess_gy_inv as
// ctest_spd_problem's hinv says (0 none, 1 Riemannian, 2 Euclidean; 3
// none, with hess_gy_batch; 4 the same beyond an older caller's size).
func SPDProblem(s *SPD, mx, my int64, hinv int) (int64, int) {
	var h C.rhgd_problem
	rc := C.ctest_spd_problem(s.q, mh(mx), mh(my), C.int(hinv), &h)
	return int64(h.id), int(rc)
}

// OraclesSize1 and ResultSize1 are RHGD_ORACLES_SIZE_1 and
// RHGD_RESULT_SIZE_1; ResultSize is sizeof(rhgd_result).
func OraclesSize1() int { return int(C.RHGD_ORACLES_SIZE_1) }
func ResultSize1() int  { return int(C.RHGD_RESULT_SIZE_1) }
func ResultSize() int   { return int(C.sizeof_rhgd_result) }

// SolverResultSized calls rhgd_solver_result with out->size = size on a
// buffer of sizeof(rhgd_result) + 64 bytes filled with 0xA5, and returns
// the buffer after the call.
func SolverResultSized(h int64, size int) ([]byte, int) {
	n := C.sizeof_rhgd_result + 64
	buf := (*C.rhgd_result)(C.malloc(C.size_t(n)))
	defer C.free(unsafe.Pointer(buf))
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), n)
	for i := range b {
		b[i] = 0xA5
	}
	buf.size = C.size_t(size)
	rc := int(C.rhgd_solver_result(sh(h), buf))
	return append([]byte(nil), b...), rc
}

// ResultNames calls rhgd_result_names.
func ResultNames(size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_result_names(b, n) })
}

// SolverResultValue calls rhgd_solver_result_value.
func SolverResultValue(h int64, name string) (float64, int) {
	s := cstr(name)
	defer free(s)
	var v C.double
	rc := int(C.rhgd_solver_result_value(sh(h), s, &v))
	return float64(v), rc
}

// SolverBest calls rhgd_solver_best.
func SolverBest(h, lx int64, x []float64, ly int64, y []float64) int {
	return int(C.rhgd_solver_best(sh(h), C.int64_t(lx), p(x), C.int64_t(ly), p(y)))
}

// SolverHistoryCols calls rhgd_solver_history with rows of cols doubles.
func SolverHistoryCols(h int64, maxRows, cols int) ([]float64, int64, int) {
	var rows []float64
	if maxRows > 0 && cols > 0 {
		rows = make([]float64, maxRows*cols)
	}
	var n C.int64_t
	rc := int(C.rhgd_solver_history(sh(h), C.int64_t(maxRows), C.int64_t(cols), p(rows), &n))
	return rows, int64(n), rc
}

// HistoryCols calls rhgd_history_cols; HistoryNames rhgd_history_names.
func HistoryCols() (int64, int) {
	var n C.int64_t
	rc := int(C.rhgd_history_cols(&n))
	return int64(n), rc
}
func HistoryNames(size int) (int, string) {
	return copyOut(size, func(b *C.char, n C.size_t) C.int { return C.rhgd_history_names(b, n) })
}
