//go:build cgo

package main

/*
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "rhgd.h"

// The calling thread's last error, in thread-specific storage: a Go export
// runs on the thread that called it, for the whole call, so the Go side
// stores the message here through rhgd_store_error_ and rhgd_last_error
// (and rhgd_last_error_terms, the same with its terms marked) reads it
// without entering Go at all. Not a __thread buffer: the Go
// runtime's initial-exec TLS makes the library's whole TLS block static,
// and a library loaded by dlopen (Python's ctypes) gets only a few hundred
// bytes of static TLS. The key's destructor frees a thread's message when
// the thread exits.
typedef struct {
	size_t len, cap;
	char *msg;
} rhgd_errbuf_;

// A thread's last error, as rhgd_last_error and rhgd_last_error_terms
// give it.
typedef struct {
	rhgd_errbuf_ plain, marked;
} rhgd_err_;

static pthread_key_t rhgd_err_key;
static pthread_once_t rhgd_err_once = PTHREAD_ONCE_INIT;

static void rhgd_err_free_(void *p) {
	rhgd_err_ *e = p;
	free(e->plain.msg);
	free(e->marked.msg);
	free(e);
}

static void rhgd_err_init_(void) { pthread_key_create(&rhgd_err_key, rhgd_err_free_); }

static rhgd_err_ *rhgd_err_get_(int create) {
	pthread_once(&rhgd_err_once, rhgd_err_init_);
	rhgd_err_ *e = pthread_getspecific(rhgd_err_key);
	if (e == NULL && create) {
		e = calloc(1, sizeof *e);
		if (e != NULL && pthread_setspecific(rhgd_err_key, e) != 0) {
			free(e);
			e = NULL;
		}
	}
	return e;
}

static void rhgd_store_buf_(rhgd_errbuf_ *b, const char *msg, size_t n) {
	if (n + 1 > b->cap) {
		char *m = realloc(b->msg, n + 1);
		if (m == NULL) {
			b->len = 0;
			return;
		}
		b->msg = m;
		b->cap = n + 1;
	}
	memcpy(b->msg, msg, n);
	b->msg[n] = 0;
	b->len = n;
}

static void rhgd_store_error_(const char *msg, size_t n, const char *marked, size_t m) {
	rhgd_err_ *e = rhgd_err_get_(1);
	if (e == NULL) return;
	rhgd_store_buf_(&e->plain, msg, n);
	rhgd_store_buf_(&e->marked, marked, m);
}

static int rhgd_copy_error_(const rhgd_errbuf_ *b, char *buf, size_t len) {
	size_t n = b != NULL ? b->len : 0;
	if (buf != NULL && len > 0) {
		size_t k = n < len - 1 ? n : len - 1;
		if (k > 0) memcpy(buf, b->msg, k);
		buf[k] = 0;
	}
	return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

int rhgd_last_error(char *buf, size_t len) {
	rhgd_err_ *e = rhgd_err_get_(0);
	return rhgd_copy_error_(e != NULL ? &e->plain : NULL, buf, len);
}

int rhgd_last_error_terms(char *buf, size_t len) {
	rhgd_err_ *e = rhgd_err_get_(0);
	return rhgd_copy_error_(e != NULL ? &e->marked : NULL, buf, len);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// Status codes, as rhgd.h defines them (TestConstants checks).
const (
	codeOK        = 0
	codeInval     = -1
	codeNotConv   = -2
	codeNumeric   = -3
	codeBadHandle = -4
	codeInternal  = -5
	codeCallback  = -6
	codeBusy      = -7
)

// Errors of the C ABI itself; the others come from rhgd's packages.
var (
	// errArg signifies a bad argument: a NULL pointer, a size below one,
	// a value off its domain (numerr.ErrInvalid).
	errArg = numerr.New(numerr.ErrInvalid, "invalid argument")
	// errBadHandle signifies an unknown or freed handle, or one of
	// another kind.
	errBadHandle = errors.New("bad handle")
	// errBusy signifies a handle in use by another call.
	errBusy = errors.New("handle in use by another call")
	// errCallback signifies a caller's callback that returned nonzero.
	errCallback = errors.New("callback failed")
	// errInternal signifies a defect in rhgd: a recovered panic or an
	// error rhgd does not classify.
	errInternal = errors.New("internal error")
)

// inputError marks an error caused by the caller's input (a matrix that
// is not symmetric, not SPD, not finite, off the manifold): it keeps the
// cause for errors.Is and also matches numerr.ErrInvalid, so that it maps
// to RHGD_EINVAL whatever the underlying sentinel.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }
func (e *inputError) Is(target error) bool {
	return target == numerr.ErrInvalid || target == errArg
}

// input marks err, which the named argument caused, as an input error.
func input(name string, err error) error {
	if err == nil {
		return nil
	}
	return &inputError{fmt.Errorf("%s: %w", name, err)}
}

// argf returns an invalid-argument error; its arguments may be terms
// (numerr.Errorf).
func argf(format string, args ...any) error {
	return numerr.Errorf("%w: "+format, append([]any{errArg}, args...)...)
}

// codeOf maps an error to its status code. Input errors come first: an
// SPD check that fails on the caller's matrix is numerr.ErrNotPosDef
// inside but RHGD_EINVAL outside.
func codeOf(err error) int {
	switch {
	case err == nil:
		return codeOK
	case errors.Is(err, errBadHandle):
		return codeBadHandle
	case errors.Is(err, errBusy):
		return codeBusy
	case errors.Is(err, errCallback):
		return codeCallback
	case errors.Is(err, errInternal):
		return codeInternal
	case errors.Is(err, numerr.ErrInvalid):
		return codeInval
	case errors.Is(err, numerr.ErrNotConverged):
		return codeNotConv
	case errors.Is(err, numerr.ErrNotFinite), errors.Is(err, numerr.ErrNotPosDef),
		errors.Is(err, numerr.ErrNotSymmetric), errors.Is(err, numerr.ErrSingular),
		errors.Is(err, numerr.ErrOverflow), errors.Is(err, numerr.ErrUnderflow),
		errors.Is(err, numerr.ErrDiverged):
		return codeNumeric
	}
	return codeInternal
}

// abiOracles are the oracles of rhgd_oracles (and Python's Problem): all
// of the solver's, in its order.
func abiOracles() []solver.Oracle {
	var out []solver.Oracle
	for o := solver.OracleF; o <= solver.OracleHessGyBatch; o++ {
		out = append(out, o)
	}
	return out
}

// lowerStepsKey and lowerStepsVJPKey are rhgd_oracles.lower_steps, the
// fused lower loop (solver.Problem.LowerSteps, not a solver.Oracle: it
// stands in for grad_gy calls), and lower_steps_vjp, its derivative (for
// AD).
var (
	lowerStepsKey    = solver.TermLowerSteps.Key
	lowerStepsVJPKey = solver.TermLowerStepsVJP.Key
)

// The C ABI's own words in its messages, as terms, which its bindings
// spell their own way (Python: None, Solver.run; see rhgd_last_error_terms).
var termNULL = numerr.Term{Kind: numerr.KindNull, Key: "NULL", Go: "NULL"}

// fnTerm, constTerm and argTerm are the terms of a function, a constant
// and an argument of the C ABI, spelled as rhgd.h spells them.
func fnTerm(name string) numerr.Term {
	return numerr.Term{Kind: numerr.KindFunction, Key: name, Go: name}
}

func constTerm(name string) numerr.Term {
	return numerr.Term{Kind: numerr.KindConstant, Key: name, Go: name}
}

func argTerm(name string) numerr.Term {
	return numerr.Term{Kind: numerr.KindArgument, Key: name, Go: name}
}

// callbackError is the failure of a caller's callback (errCallback): its
// message names the callback and its return code, and renders as one
// term (numerr.KindCallback), which Python replaces by the callback's own
// exception.
type callbackError struct {
	name string
	rc   int
}

func (e *callbackError) Error() string {
	return fmt.Sprintf("%v: %s returned %d", errCallback, e.name, e.rc)
}
func (e *callbackError) Unwrap() error { return errCallback }

// Render spells the failure as one term.
func (e *callbackError) Render(sp numerr.Speller) string {
	return sp(numerr.Term{Kind: numerr.KindCallback, Key: e.name, Go: e.Error()})
}

// cSpell spells a name in a message in the C ABI's terms, the keys of
// rhgd_solver_new's settings and of rhgd_oracles, which are also Python's
// keywords (eta_x, grad_gy): a C or Python caller never saw the Go names.
// Every setting is its own key, the lower and upper rules' too
// (upper_max_step, lower_bb: a caller can set each), and a preset is
// preset=name; the min-max problems that only Go builds (solver.MinMax)
// are the built-in minmax. This is the one place where the C ABI spells
// Go's vocabulary.
func cSpell(t numerr.Term) string {
	switch t.Kind {
	case numerr.KindSetting:
		return t.Key
	case numerr.KindPreset:
		return solver.PresetKey + "=" + t.Key
	case numerr.KindOracle, numerr.KindParam:
		return t.Key
	case numerr.KindProblem:
		return "such as the built-in " + t.Key
	}
	return t.Go
}

// markedSpell is cSpell with each term marked for a binding, as
// rhgd_last_error_terms gives it: \x01kind:key\x02text\x03, text being
// cSpell's.
func markedSpell(t numerr.Term) string {
	return "\x01" + string(t.Kind) + ":" + t.Key + "\x02" + cSpell(t) + "\x03"
}

// fail stores err's message, in the C ABI's terms, as the calling thread's
// last error (with its terms marked, for rhgd_last_error_terms) and
// returns its code.
func fail(err error) C.int {
	msg := "rhgd: " + numerr.Render(err, cSpell)
	marked := "rhgd: " + numerr.Render(err, markedSpell)
	C.rhgd_store_error_((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)),
		(*C.char)(unsafe.Pointer(unsafe.StringData(marked))), C.size_t(len(marked)))
	return C.int(codeOf(err))
}

// guard runs fn for an export: it starts the backend, recovers a panic as
// RHGD_EINTERNAL (a deferred closure, since a bare defer recover() does not
// recover), and turns an error into its code and the thread's message. No
// panic crosses the C boundary.
func guard(fn func() error) (code C.int) {
	defer func() {
		if r := recover(); r != nil {
			code = fail(fmt.Errorf("%w: panic: %v\n%s", errInternal, r, firstFrames(debug.Stack(), 12)))
		}
	}()
	if err := startBackend(); err != nil {
		return fail(err)
	}
	if err := fn(); err != nil {
		return fail(err)
	}
	return codeOK
}

// firstFrames keeps the first n lines of a stack trace, enough to locate a
// defect without flooding the caller's buffer.
func firstFrames(stack []byte, n int) string {
	lines := strings.SplitN(string(stack), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// copyOut copies s into the caller's buffer as rhgd_last_error does and
// returns its full length, or an error code.
func copyOut(s string, buf *C.char, n C.size_t) C.int {
	if buf != nil && n > 0 {
		dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
		k := copy(dst[:len(dst)-1], s)
		dst[k] = 0
	}
	if len(s) > int(^uint32(0)>>1) {
		return fail(fmt.Errorf("%w: string of %d bytes", errInternal, len(s)))
	}
	return C.int(len(s))
}

// stringOut runs fn for an export that copies a string out: its result is
// the string's length or an error code.
func stringOut(buf *C.char, n C.size_t, fn func() (string, error)) (code C.int) {
	var s string
	if c := guard(func() error {
		var err error
		s, err = fn()
		return err
	}); c != codeOK {
		return c
	}
	defer func() {
		if r := recover(); r != nil {
			code = fail(fmt.Errorf("%w: panic: %v", errInternal, r))
		}
	}()
	return copyOut(s, buf, n)
}
