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
// reads it without entering Go at all. Not a __thread buffer: the Go
// runtime's initial-exec TLS makes the library's whole TLS block static,
// and a library loaded by dlopen (Python's ctypes) gets only a few hundred
// bytes of static TLS. The key's destructor frees a thread's message when
// the thread exits.
typedef struct {
	size_t len, cap;
	char *msg;
} rhgd_err_;

static pthread_key_t rhgd_err_key;
static pthread_once_t rhgd_err_once = PTHREAD_ONCE_INIT;

static void rhgd_err_free_(void *p) {
	rhgd_err_ *e = p;
	free(e->msg);
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

static void rhgd_store_error_(const char *msg, size_t n) {
	rhgd_err_ *e = rhgd_err_get_(1);
	if (e == NULL) return;
	if (n + 1 > e->cap) {
		char *m = realloc(e->msg, n + 1);
		if (m == NULL) {
			e->len = 0;
			return;
		}
		e->msg = m;
		e->cap = n + 1;
	}
	memcpy(e->msg, msg, n);
	e->msg[n] = 0;
	e->len = n;
}

int rhgd_last_error(char *buf, size_t len) {
	rhgd_err_ *e = rhgd_err_get_(0);
	size_t n = e != NULL ? e->len : 0;
	if (buf != NULL && len > 0) {
		size_t k = n < len - 1 ? n : len - 1;
		if (k > 0) memcpy(buf, e->msg, k);
		buf[k] = 0;
	}
	return n > 0x7fffffff ? 0x7fffffff : (int)n;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"regexp"
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

// argf returns an invalid-argument error.
func argf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errArg}, args...)...)
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

// renamed is err with its message in the C ABI's terms (see abiTerms);
// errors.Is still sees err.
type renamed struct {
	msg string
	err error
}

func (e *renamed) Error() string { return e.msg }
func (e *renamed) Unwrap() error { return e.err }

// goName matches what the solver's messages call a setting or an oracle:
// a field of solver.Settings or solver.Problem.
var goName = regexp.MustCompile(`\bSettings\.Lower must be zero|\bProblem\.ZeroSum, made by MinMax|\bAdaptiveSettings\b|` +
	`\bSettings\.[A-Z][A-Za-z]*(?:\.[A-Z][A-Za-z]*)?|\b(` +
	strings.Join(oracleFields(), "|") + `)\b`)

// abiOracles are the oracles of rhgd_oracles (and Python's Problem): all
// of the solver's, in its order.
func abiOracles() []solver.Oracle {
	var out []solver.Oracle
	for o := solver.OracleF; o <= solver.OracleLowerSolve; o++ {
		out = append(out, o)
	}
	return out
}

// lowerStepsField and lowerStepsKey name solver.Problem.LowerSteps, the
// fused lower loop of rhgd_oracles.lower_steps, which is not a
// solver.Oracle (it stands in for grad_gy calls), and the VJP names its
// derivative, rhgd_oracles.lower_steps_vjp (for AD).
const (
	lowerStepsField, lowerStepsKey       = "LowerSteps", "lower_steps"
	lowerStepsVJPField, lowerStepsVJPKey = "LowerStepsVJP", "lower_steps_vjp"
)

// oracleFields are the Go names of abiOracles, LowerSteps and
// LowerStepsVJP.
func oracleFields() []string {
	var out []string
	for _, o := range abiOracles() {
		out = append(out, o.String())
	}
	return append(out, lowerStepsField, lowerStepsVJPField)
}

// abiNames are the C ABI's names (the keys of rhgd_solver_new's settings,
// the fields of rhgd_oracles, which are also the Python keywords) of what
// goName matches; Lower and Upper, which only the adaptive preset sets,
// are the preset.
var abiNames = settingNames(map[string]string{
	"Settings.Batches":            "batches",
	"Settings.Lower must be zero": "it needs preset=paper",
	"AdaptiveSettings":            "preset=adaptive",
	// Only Go builds min-max problems (solver.MinMax); from C and Python
	// the built-in one is the problem "minmax".
	"Problem.ZeroSum, made by MinMax": "such as the built-in minmax",
})

// settingNames adds to names the settings of solver.SettingsTable, but
// for the rules Lower and Upper, which abiTerms calls the preset, and the
// oracles of rhgd_oracles, by their keys.
func settingNames(names map[string]string) map[string]string {
	for _, o := range abiOracles() {
		names[o.String()] = o.Key()
	}
	names[lowerStepsField] = lowerStepsKey
	names[lowerStepsVJPField] = lowerStepsVJPKey
	for _, e := range solver.SettingsTable() {
		if !strings.HasPrefix(e.Field, "Lower.") && !strings.HasPrefix(e.Field, "Upper.") {
			names["Settings."+e.Field] = e.Key
		}
	}
	return names
}

// abiTerms renames, in a message from rhgd's Go packages, the Go names
// of settings and oracles (Settings.EtaX, GradGy) to the C ABI's (eta_x,
// grad_gy): a C or Python caller never saw the Go names. This is the one
// place where the C ABI translates Go's vocabulary.
func abiTerms(msg string) string {
	return goName.ReplaceAllStringFunc(msg, func(name string) string {
		if n, ok := abiNames[name]; ok {
			return n
		}
		if strings.HasPrefix(name, "Settings.Lower") || strings.HasPrefix(name, "Settings.Upper") {
			return "preset=adaptive"
		}
		return name
	})
}

// fail stores err's message, in the C ABI's terms, as the calling thread's
// last error and returns its code.
func fail(err error) C.int {
	msg := "rhgd: " + abiTerms(err.Error())
	C.rhgd_store_error_((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
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
