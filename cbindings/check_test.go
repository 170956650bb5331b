//go:build cgo

package main

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestProblemCheck: rhgd_problem_check passes every check of a built-in
// problem's exact oracles, at its start and at a given point, returns the
// reports as JSON (null for slopes not measured), and names bad options.
func TestProblemCheck(t *testing.T) {
	p, rc := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	n, _ := ctest.ProblemCheck(p, nil, nil, "", 0)
	require.Greater(t, n, 0)
	n2, s := ctest.ProblemCheck(p, nil, nil, "", n+1)
	require.Equal(t, n, n2, "the same checks, the same report")
	var res struct {
		OK      bool `json:"ok"`
		Reports []struct {
			Name  string   `json:"name"`
			OK    bool     `json:"ok"`
			Slope *float64 `json:"slope"`
			Msg   string   `json:"msg"`
		} `json:"reports"`
	}
	require.NoError(t, json.Unmarshal([]byte(s), &res), s)
	require.NotEmpty(t, res.Reports)
	names := map[string]bool{}
	for _, r := range res.Reports {
		names[r.Name] = true
	}
	for _, want := range []string{"GradFx: gradient", "GradGy: gradient", "HessGy: Hessian", "CrossGxy: cross derivative",
		"HessGyInv", "caches"} {
		assert.Contains(t, names, want)
	}

	// At a point with M away from the identity (at M = I, the start,
	// grad_W g vanishes: tr(M⁻¹ W YᵀY Wᵀ) is constant on the Stiefel
	// manifold there), every check passes.
	x, y := make([]float64, 24), make([]float64, 64)
	require.Equal(t, okC, ctest.ProblemStart(p, x, y))
	rnd := rand.New(rand.NewPCG(1, 2))
	b := make([]float64, 64)
	for i := range b {
		b[i] = rnd.NormFloat64()
	}
	for i := range 8 {
		for j := range 8 {
			y[i*8+j] = 0
			for k := range 8 {
				y[i*8+j] += b[i*8+k] * b[j*8+k] / 8
			}
		}
		y[i*8+i]++
	}
	_, s = ctest.ProblemCheck(p, x, y, "seed=3,tol=1e-6", 1<<20)
	res.Reports = nil
	require.NoError(t, json.Unmarshal([]byte(s), &res))
	for _, r := range res.Reports {
		assert.True(t, r.OK, "%s: %s", r.Name, r.Msg)
	}
	assert.True(t, res.OK)

	wantCode(t, "unknown option", einval, func() int { rc, _ := ctest.ProblemCheck(p, nil, nil, "sede=1", 64); return rc }, "sede")
	wantCode(t, "bad tol", einval, func() int { rc, _ := ctest.ProblemCheck(p, nil, nil, "tol=-1", 64); return rc }, "tol")
	wantCode(t, "x only", einval, func() int { rc, _ := ctest.ProblemCheck(p, x, nil, "", 64); return rc }, "both x and y")
	off := make([]float64, 24)
	wantCode(t, "x off the manifold", einval, func() int { rc, _ := ctest.ProblemCheck(p, off, y, "", 64); return rc }, "x")
	wantCode(t, "freed", ebadh, func() int { rc, _ := ctest.ProblemCheck(-1, nil, nil, "", 64); return rc })
}
