//go:build cgo

package main

import (
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/solver"
)

// TestResultFieldsCover: every field of solver.Result and solver.Stats
// reaches C, through the one table resultFields (rhgd_result and
// rhgd_solver_result_value) or a function of its own, and the table
// covers every field of rhgd_result at its C offset.
func TestResultFieldsCover(t *testing.T) {
	covered := map[string]bool{}
	for _, f := range resultFields {
		if f.goField != "" {
			covered[f.goField] = true
		}
	}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for f := range typ.Fields() {
			if !f.IsExported() {
				continue
			}
			name := prefix + f.Name
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == typ.PkgPath() {
				walk(name+".", f.Type)
				continue
			}
			_, elsewhere := resultElsewhere[name]
			assert.True(t, covered[name] || elsewhere, "solver.Result.%s reaches neither rhgd_result nor a function", name)
		}
	}
	walk("", reflect.TypeFor[solver.Result]())

	ct := cResultType()
	byName := map[string]resultField{}
	for _, f := range resultFields {
		byName[f.name] = f
	}
	var cFields []string
	for f := range ct.Fields() {
		if f.Name == "size" || strings.HasPrefix(f.Name, "_") {
			continue
		}
		cFields = append(cFields, f.Name)
		r, ok := byName[f.Name]
		if assert.True(t, ok, "rhgd_result.%s has no row in resultFields", f.Name) {
			assert.Equal(t, f.Offset, r.off, "offset of %s", f.Name)
			assert.Equal(t, map[fieldKind]uintptr{kindInt32: 4, kindInt64: 8, kindDouble: 8}[r.kind], f.Type.Size(), "size of %s", f.Name)
		}
	}
	require.Len(t, cFields, len(resultFields), "resultFields has rows rhgd_result lacks")
	n, names := ctest.ResultNames(4096)
	require.Equal(t, len(names), n)
	require.Equal(t, strings.Join(cFields, ","), names, "rhgd_result_names is the struct's order")
}

// TestHistoryNames: the history's columns are rhgd.h's RHGD_HISTORY_*
// indices and fields of rhgd_epoch, and the library says so.
func TestHistoryNames(t *testing.T) {
	h, err := os.ReadFile("rhgd.h")
	require.NoError(t, err)
	for i, name := range histNames {
		m := regexp.MustCompile(`#define RHGD_HISTORY_` + strings.ToUpper(name) + ` (\d+)`).FindSubmatch(h)
		require.NotNil(t, m, "RHGD_HISTORY_%s", strings.ToUpper(name))
		assert.Equal(t, strconv.Itoa(i), string(m[1]), name)
		_, epoch, _ := strings.Cut(string(h), "typedef struct rhgd_epoch {")
		epoch, _, _ = strings.Cut(epoch, "} rhgd_epoch;")
		assert.Regexp(t, `\b`+name+`\b`, epoch, "rhgd_epoch has no field %s", name)
	}
	n, rc := ctest.HistoryCols()
	require.Equal(t, okC, rc)
	require.Equal(t, int64(histCols), n)
	ln, names := ctest.HistoryNames(4096)
	require.Equal(t, len(names), ln)
	require.Equal(t, strings.Join(histNames[:], ","), names)
}

// TestGrowingStructs: sizes below the first layouts are rejected, a
// result of the first layout's size is written only that far, history rows
// narrower than the library's get its first columns and wider ones NaN,
// and the result reads back by name and its best iterates by
// rhgd_solver_best.
func TestGrowingStructs(t *testing.T) {
	mx := testManifold(t, "euclid:r=2")
	my := testManifold(t, "euclid:r=2")
	f := ctest.NewFsum()
	defer f.Free()
	wantCode(t, "oracles size too small", einval, func() int {
		_, rc := ctest.FsumProblem(f, mx, my, false, ctest.OraclesSize1()-1)
		return rc
	}, "RHGD_ORACLES_SIZE_1")
	p, rc := ctest.FsumProblem(f, mx, my, false, 0)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	s := testSolver(t, p, "cg", "epochs=5,inner=3")
	require.Equal(t, okC, ctest.SolverRun(s, []float64{0.5, 0.5}, []float64{0, 0}, nil))

	wantCode(t, "result size too small", einval, func() int {
		_, rc := ctest.SolverResultSized(s, ctest.ResultSize1()-1)
		return rc
	}, "RHGD_RESULT_SIZE_1")
	full, rc := ctest.SolverResultSized(s, ctest.ResultSize())
	require.Equal(t, okC, rc)
	first, rc := ctest.SolverResultSized(s, ctest.ResultSize1())
	require.Equal(t, okC, rc)
	k := ctest.ResultSize1()
	assert.Equal(t, full[8:k], first[8:k], "the first layout's fields")
	for i, b := range first[k:] {
		require.Equal(t, byte(0xA5), b, "byte %d past the caller's size written", k+i)
	}
	for i, b := range full[ctest.ResultSize():] {
		require.Equal(t, byte(0xA5), b, "byte %d past sizeof(rhgd_result) written", ctest.ResultSize()+i)
	}

	r, rc := ctest.SolverResult(s)
	require.Equal(t, okC, rc)
	for name, want := range map[string]float64{"epochs": float64(r.Epochs), "best_f": r.BestF, "status": float64(r.Status),
		"upper_grads": float64(r.UpperGrads), "residual": r.Residual, "error": float64(r.Error)} {
		v, rc := ctest.SolverResultValue(s, name)
		require.Equal(t, okC, rc, name)
		assert.Equal(t, want, v, name)
	}
	wantCode(t, "unknown result field", einval, func() int {
		_, rc := ctest.SolverResultValue(s, "speed")
		return rc
	}, `"speed"`)
	bx, by := make([]float64, 2), make([]float64, 2)
	require.Equal(t, okC, ctest.SolverBest(s, 2, bx, 2, by))
	assert.False(t, bx[0] == 0 && bx[1] == 0, "best_x copied")
	wantCode(t, "best with a wrong length", einval, func() int { return ctest.SolverBest(s, 3, bx, 2, nil) }, "best_x")

	lib, n, rc := ctest.SolverHistoryCols(s, 5, histCols)
	require.Equal(t, okC, rc)
	require.Equal(t, int64(5), n)
	narrow, _, rc := ctest.SolverHistoryCols(s, 5, 11)
	require.Equal(t, okC, rc)
	wide, _, rc := ctest.SolverHistoryCols(s, 5, histCols+3)
	require.Equal(t, okC, rc)
	for i := range 5 {
		assert.Equal(t, lib[i*histCols:i*histCols+11], narrow[i*11:(i+1)*11], "row %d, first 11 columns", i)
		row := wide[i*(histCols+3) : (i+1)*(histCols+3)]
		assert.Equal(t, lib[i*histCols:(i+1)*histCols], row[:histCols], "row %d", i)
		for _, v := range row[histCols:] {
			assert.True(t, math.IsNaN(v), "row %d: columns beyond the library's are NaN", i)
		}
	}
	wantCode(t, "history cols 0", einval, func() int {
		_, _, rc := ctest.SolverHistoryCols(s, 5, 0)
		return rc
	}, "cols = 0")
}

// TestCallbackBatches: a finite-sum callback problem receives RSHGD's
// minibatches (valid indices, never an empty batch), the full sum as NULL
// otherwise, and its lower_solve with lower_solve=true.
func TestCallbackBatches(t *testing.T) {
	mx := testManifold(t, "euclid:r=2")
	my := testManifold(t, "euclid:r=2")
	xstar := ctest.FsumXStar()

	f := ctest.NewFsum()
	defer f.Free()
	p, rc := ctest.FsumProblem(f, mx, my, true, 0)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)

	s := testSolver(t, p, "cg", "epochs=50,inner=5,eta_x=0.5,eta_y=0.2,batch_lower=2,batch_upper=2,batch_cross=3,batch_hess=3,seed=3")
	require.Equal(t, okC, ctest.SolverRun(s, []float64{0, 0}, []float64{0, 0}, nil))
	full, batch, bad, solves := f.Calls()
	assert.Positive(t, batch, "minibatch calls")
	assert.Zero(t, bad, "bad batches")
	assert.Zero(t, solves, "lower_solve without lower_solve=true")
	t.Logf("RSHGD: %d full-sum calls, %d minibatch calls", full, batch)

	s2 := testSolver(t, p, "cg", "epochs=200,eta_x=0.5,lower_solve=true,grad_tol=1e-11")
	require.Equal(t, okC, ctest.SolverRun(s2, []float64{0, 0}, []float64{0, 0}, nil))
	_, _, bad, solves = f.Calls()
	assert.Zero(t, bad)
	assert.Positive(t, solves, "lower_solve calls")
	r, _ := ctest.SolverResult(s2)
	assert.Equal(t, solves, r.LowerSolves)
	ystar := make([]float64, 2)
	require.Equal(t, okC, ctest.Oracle(p, "lower_solve", []float64{1, 2}, []float64{0, 0}, nil, ystar))
	_, _, _, after := f.Calls()
	assert.Equal(t, solves+1, after, "rhgd_problem_oracle(\"lower_solve\") calls lower_solve")
	x := make([]float64, 2)
	require.Equal(t, okC, ctest.SolverX(s2, 2, x))
	assert.InDeltaSlice(t, xstar, x, 1e-8, "x* with the exact lower solve")
}
