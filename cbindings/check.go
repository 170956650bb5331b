//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/solver"
)

// checkReport is one solver.CheckReport as rhgd_problem_check's JSON
// gives it: NaN and ±Inf, which JSON cannot hold, become null.
type checkReport struct {
	Name      string               `json:"name"`
	OK        bool                 `json:"ok"`
	Slope     jsonFloat            `json:"slope"`
	Want      jsonFloat            `json:"want"`
	AtLeast   bool                 `json:"at_least"`
	Exact     bool                 `json:"exact"`
	Fitted    int                  `json:"fitted"`
	Steps     []jsonFloat          `json:"steps"`
	Errors    []jsonFloat          `json:"errors"`
	Residuals map[string]jsonFloat `json:"residuals"`
	Msg       string               `json:"msg"`
}

// checkResult is rhgd_problem_check's JSON: ok when every report is.
type checkResult struct {
	OK      bool          `json:"ok"`
	Reports []checkReport `json:"reports"`
}

// jsonFloat marshals a float64, and a NaN or ±Inf as null.
type jsonFloat float64

// MarshalJSON writes the number, or null when it is not finite.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func jsonFloats(a []float64) []jsonFloat {
	out := make([]jsonFloat, len(a))
	for i, v := range a {
		out[i] = jsonFloat(v)
	}
	return out
}

// parseCheckOptions reads rhgd_problem_check's options, comma-separated
// key=value pairs: seed, tol, second_order_y, critical.
func parseCheckOptions(s string) (solver.ProblemCheck, error) {
	var o solver.ProblemCheck
	var seen []string
	for kv := range strings.SplitSeq(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return o, argf("check option %q: want key=value", kv)
		}
		if slices.Contains(seen, k) {
			return o, argf("check option %s given twice", k)
		}
		seen = append(seen, k)
		var err error
		switch k {
		case "seed":
			o.Seed, err = strconv.ParseUint(v, 10, 64)
		case "tol":
			o.Tol, err = strconv.ParseFloat(v, 64)
			switch {
			case err == nil && o.Tol == 0: // ProblemCheck's zero is its default
				return o, argf("check option tol=%s would mean the default, not 0; leave tol out for the default (1e-6)", v)
			case err == nil && !(o.Tol > 0 && o.Tol <= math.MaxFloat64):
				return o, argf("check option tol = %s: want finite and > 0", v)
			}
		case "second_order_y":
			o.SecondOrderY, err = strconv.ParseBool(v)
		case "critical":
			o.Critical, err = strconv.ParseBool(v)
		default:
			return o, argf("unknown check option %q (want seed, tol, second_order_y, critical)", k)
		}
		if err != nil {
			return o, argf("check option %s = %q: %v", k, v, err)
		}
	}
	return o, nil
}

//export rhgdgo_problem_check
func rhgdgo_problem_check(h C.int64_t, x, y *C.double, copts *C.char, buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		o, err := claim[*problemObj](int64(h), "problem")
		if err != nil {
			return "", err
		}
		defer o.release()
		opt, err := parseCheckOptions(optString(copts))
		if err != nil {
			return "", err
		}
		lx, ly := o.p.Mx.Len(), o.p.My.Len()
		var xs, ys []float64
		switch {
		case x == nil && y == nil:
			if o.x0 == nil {
				return "", argf("x and y are %v and the problem has no starting point (%v)", termNULL, fnTerm("rhgd_problem_set_start"))
			}
			xs, ys = slices.Clone(o.x0), slices.Clone(o.y0)
		case x == nil || y == nil:
			return "", argf("give both x and y, or neither (%v: the starting point)", termNULL)
		default:
			xs, ys = slices.Clone(view(x, lx)), slices.Clone(view(y, ly))
			if err := o.p.Mx.CheckPoint(xs); err != nil {
				return "", input("x", err)
			}
			if err := o.p.My.CheckPoint(ys); err != nil {
				return "", input("y", err)
			}
		}
		res := checkResult{OK: true, Reports: []checkReport{}}
		for _, r := range solver.CheckProblem(o.p, xs, ys, &opt) {
			res.OK = res.OK && r.OK
			cr := checkReport{Name: r.Name, OK: r.OK, Slope: jsonFloat(r.Slope), Want: jsonFloat(r.Want),
				AtLeast: r.AtLeast, Exact: r.Exact, Fitted: r.Fitted, Steps: jsonFloats(r.Steps),
				Errors: jsonFloats(r.Errors), Residuals: map[string]jsonFloat{}, Msg: r.Msg}
			for k, v := range r.Residuals {
				cr.Residuals[k] = jsonFloat(v)
			}
			res.Reports = append(res.Reports, cr)
		}
		b, err := json.Marshal(res)
		return string(b), err
	})
}

// optString is the C string s, or "" for NULL.
func optString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}
