package solver

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOracleTable: the oracles are Problem's func fields, in order, each
// with its field name and a key that ParseOracle reads back; not Retain,
// a hint, nor LowerSteps and LowerStepsVJP, many evaluations that stand in
// for GradGy, HessGy and CrossGxy.
func TestOracleTable(t *testing.T) {
	var fields []string
	rt := reflect.TypeFor[Problem]()
	for i := range rt.NumField() {
		if f := rt.Field(i); f.Type.Kind() == reflect.Func && f.Name != "Retain" && f.Name != "LowerSteps" &&
			f.Name != "LowerStepsVJP" {
			fields = append(fields, f.Name)
		}
	}
	var names []string
	for o := range numOracles {
		names = append(names, o.String())
		got, err := ParseOracle(o.Key())
		require.NoError(t, err)
		require.Equal(t, o, got)
	}
	require.Equal(t, fields, names)
	got, err := ParseOracle(" Grad_FX ")
	require.NoError(t, err)
	require.Equal(t, OracleGradFx, got)
	_, err = ParseOracle("GradFx")
	require.True(t, errors.Is(err, ErrBadSetting))
	require.ErrorContains(t, err, "grad_fx")
	require.Equal(t, "Oracle(200)", Oracle(200).String())
}

func TestOracles(t *testing.T) {
	p := Problem{F: func(*Point) (float64, error) { return 0, nil }, HessGyInv: func([]float64, *Point, []float64) error { return nil }}
	av := p.Available()
	require.Equal(t, NewOracles(OracleF, OracleHessGyInv), av)
	require.True(t, p.Has(OracleHessGyInv))
	require.False(t, p.Has(OracleGradFx))
	require.Equal(t, []Oracle{OracleF, OracleHessGyInv}, av.List())
	require.Equal(t, "[F HessGyInv]", av.String())
	require.Equal(t, "[GradFx GradFy HessGy CrossGxy]", (&CG{}).Needs().String())

	err := p.need(NewOracles(OracleF, OracleGradGy, OracleHessGy))
	require.ErrorIs(t, err, ErrMissing)
	require.ErrorContains(t, err, "[GradGy HessGy]; HessGy: give it, or give GradGy")
	require.NoError(t, p.need(NewOracles(OracleF)))
}

func TestMethod(t *testing.T) {
	for m, s := range map[Method]string{MethodExp: "Exp", MethodLog: "Log", MethodDist: "Dist", 9: "Method(9)"} {
		require.Equal(t, s, m.String())
	}
}
