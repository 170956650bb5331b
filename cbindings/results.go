//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"reflect"
	"strings"
	"unsafe"

	"github.com/rhgd/rhgd/solver"
)

// resultField is one field of rhgd_result: its C name (rhgd_result_names,
// rhgd_solver_result_value), the field of solver.Result it copies (a
// path such as "Stats.UpperGrads", which TestResultFieldsCover checks
// against the Go struct), its offset and C type in rhgd_result, and how to
// read it.
type resultField struct {
	name, goField string
	off           uintptr
	kind          fieldKind
	get           func(r *solver.Result) float64
}

// fieldKind is the C type of a struct field.
type fieldKind int

const (
	kindInt32 fieldKind = iota
	kindInt64
	kindDouble
)

var cres C.rhgd_result

// resultFields is the one table of rhgd_result: it drives
// rhgd_solver_result's fill, rhgd_result_names and
// rhgd_solver_result_value. A field added to solver.Result or
// solver.Stats fails TestResultFieldsCover until it has a row here (and a
// field appended to rhgd_result) or is listed in resultElsewhere. The
// error field is the code rhgd_solver_run returned, not a Go field.
var resultFields = []resultField{
	{"status", "Status", unsafe.Offsetof(cres.status), kindInt32, func(r *solver.Result) float64 { return float64(r.Status) }},
	{"error", "", unsafe.Offsetof(cres.error), kindInt32, nil},
	{"epochs", "Stats.Epochs", unsafe.Offsetof(cres.epochs), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.Epochs) }},
	{"f", "F", unsafe.Offsetof(cres.f), kindDouble, func(r *solver.Result) float64 { return r.F }},
	{"best_f", "BestF", unsafe.Offsetof(cres.best_f), kindDouble, func(r *solver.Result) float64 { return r.BestF }},
	{"hypergrad_norm", "HyperGradNorm", unsafe.Offsetof(cres.hypergrad_norm), kindDouble, func(r *solver.Result) float64 { return r.HyperGradNorm }},
	{"runtime", "Stats.Runtime", unsafe.Offsetof(cres.runtime), kindDouble, func(r *solver.Result) float64 { return r.Stats.Runtime.Seconds() }},
	{"upper_grads", "Stats.UpperGrads", unsafe.Offsetof(cres.upper_grads), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.UpperGrads) }},
	{"lower_grads", "Stats.LowerGrads", unsafe.Offsetof(cres.lower_grads), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.LowerGrads) }},
	{"hess_vecs", "Stats.HessVecs", unsafe.Offsetof(cres.hess_vecs), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.HessVecs) }},
	{"cross_vecs", "Stats.CrossVecs", unsafe.Offsetof(cres.cross_vecs), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.CrossVecs) }},
	{"iterations", "Stats.Iterations", unsafe.Offsetof(cres.iterations), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.Iterations) }},
	{"residual", "Stats.Residual", unsafe.Offsetof(cres.residual), kindDouble, func(r *solver.Result) float64 { return r.Stats.Residual }},
	{"lower_values", "Stats.LowerValues", unsafe.Offsetof(cres.lower_values), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.LowerValues) }},
	{"lower_solves", "Stats.LowerSolves", unsafe.Offsetof(cres.lower_solves), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.LowerSolves) }},
	{"retract_failures", "Stats.RetractFailures", unsafe.Offsetof(cres.retract_failures), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.RetractFailures) }},
	{"lower_x_grads", "Stats.LowerXGrads", unsafe.Offsetof(cres.lower_x_grads), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.LowerXGrads) }},
	{"upper_y_grads", "Stats.UpperYGrads", unsafe.Offsetof(cres.upper_y_grads), kindInt64, func(r *solver.Result) float64 { return float64(r.Stats.UpperYGrads) }},
}

// resultElsewhere are the fields of solver.Result that are arrays, read
// by functions of their own rather than through rhgd_result.
var resultElsewhere = map[string]string{
	"X": "rhgd_solver_x", "Y": "rhgd_solver_y", "BestX": "rhgd_solver_best", "BestY": "rhgd_solver_best",
}

// resultSize1 is the size of rhgd_result's first layout
// (RHGD_RESULT_SIZE_1), the smallest size rhgd_solver_result accepts.
const resultSize1 = C.size_t(unsafe.Offsetof(cres.lower_values))

// resultNames is rhgd_result_names' list.
var resultNames = func() string {
	names := make([]string, len(resultFields))
	for i, f := range resultFields {
		names[i] = f.name
	}
	return strings.Join(names, ",")
}()

// value returns field f of the run s, whose code was code; res is nil when
// the run did not start.
func (f *resultField) value(res *solver.Result, code int) float64 {
	switch {
	case f.name == "error":
		return float64(code)
	case res == nil && f.name == "status":
		return float64(solver.Failure)
	case res == nil:
		return 0
	}
	return f.get(res)
}

// fillResult writes the outcome into the C struct out, of the caller's
// size: the library's fields that lie within it, never past it, and never
// out.size itself.
func fillResult(out *C.rhgd_result, res *solver.Result, code int) error {
	size := out.size
	if size < resultSize1 {
		return argf("out->size = %d, want sizeof(rhgd_result) (at least %v = %d)", uint64(size), constTerm("RHGD_RESULT_SIZE_1"), uint64(resultSize1))
	}
	base := unsafe.Pointer(out)
	for i := range resultFields {
		f := &resultFields[i]
		v := f.value(res, code)
		switch f.kind {
		case kindInt32:
			if f.off+4 <= uintptr(size) {
				*(*int32)(unsafe.Add(base, f.off)) = int32(v)
			}
		case kindInt64:
			if f.off+8 <= uintptr(size) {
				*(*int64)(unsafe.Add(base, f.off)) = int64(v)
			}
		case kindDouble:
			if f.off+8 <= uintptr(size) {
				*(*float64)(unsafe.Add(base, f.off)) = v
			}
		}
	}
	return nil
}

// cResultType is rhgd_result as cgo sees it, for the test that the table
// covers every C field at its offset (_test.go files cannot use cgo).
func cResultType() reflect.Type { return reflect.TypeOf(cres) }
