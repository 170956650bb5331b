//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

// hypergradient is rhgd_solver_hypergradient: the estimate at x, at the
// caller's y or (y NULL) at the lower iterate the solver's lower solve
// reaches at x from the problem's start y0.
func (s *solverObj) hypergradient(lx C.int64_t, x *C.double, ly C.int64_t, y, hg, yOut, gyNorm *C.double) error {
	release, err := s.acquireBoth()
	if err != nil {
		return err
	}
	defer release()
	o := s.prob
	mx, my := o.p.Mx, o.p.My
	if int64(lx) != int64(mx.Len()) || int64(ly) != int64(my.Len()) {
		return argf("len_x = %d, len_y = %d, but the problem's x and y have %d and %d entries (%v)",
			int64(lx), int64(ly), mx.Len(), my.Len(), fnTerm("rhgd_problem_dims"))
	}
	if x == nil || hg == nil {
		return argf("x or hypergrad is %v", termNULL)
	}
	// Copies: the oracles never see the caller's memory, and hypergrad
	// and y_out may overlap x and y.
	xs, nx, err := snapStart("x", mx, append([]float64(nil), view(x, mx.Len())...))
	if err != nil {
		return err
	}
	var ys, est []float64
	var ny string
	if y != nil {
		if ys, ny, err = snapStart("y", my, append([]float64(nil), view(y, my.Len())...)); err != nil {
			return err
		}
		o.addNotes(nx, ny)
		est, err = s.r.Estimate(xs, ys)
	} else {
		if o.y0 == nil {
			return argf("y is %v and the problem has no starting point to start the lower solve from (%v)", termNULL, fnTerm("rhgd_problem_set_start"))
		}
		o.addNotes(nx)
		est, ys, err = s.r.EstimateLower(xs, o.y0)
	}
	if err != nil {
		if codeOf(err) == codeInval {
			return input("point", err)
		}
		return err
	}
	var n float64
	if gyNorm != nil {
		if n, err = s.r.LowerGradNorm(xs, ys); err != nil {
			return err
		}
	}
	copy(view(hg, len(est)), est)
	if yOut != nil {
		copy(view(yOut, len(ys)), ys)
	}
	if gyNorm != nil {
		*gyNorm = C.double(n)
	}
	return nil
}

//export rhgdgo_solver_hypergradient
func rhgdgo_solver_hypergradient(h, lx C.int64_t, x *C.double, ly C.int64_t, y, hg, yOut, gyNorm *C.double) C.int {
	return guard(func() error {
		s, err := lookup[*solverObj](&handles, int64(h), "solver")
		if err != nil {
			return err
		}
		return s.hypergradient(lx, x, ly, y, hg, yOut, gyNorm)
	})
}
