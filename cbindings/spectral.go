//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"errors"
	"math"
	"slices"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	specbatch "github.com/rhgd/rhgd/spectral"
)

// The batched spectral kernels (rhgd_spectral_*_batch): specbatch.Batch's
// Eig and Map on the caller's arrays. A Batch holds a chunk of at most
// chunkLen doubles per array (five arrays: 80 MB at most), so that a
// request of 10,000 100×100 matrices runs in chunks of 209 and the
// workspace stays the size of a chunk; a steady stream of calls of one
// (n, count) allocates nothing after the first. A variable for the tests.
var chunkLen = 1 << 21

// batchPool holds the workspaces by (n, matrices per chunk).
var batchPool = pool[[2]int, *specbatch.Batch]{new: func(k [2]int) *specbatch.Batch {
	return specbatch.NewBatch(k[0], k[1])
}}

// batchArgs checks n, count and the pointers, and returns the views of
// the arrays, the i-th of count·n^pows[i] doubles.
func batchArgs(n, count C.int64_t, names []string, pows []int, ps ...*C.double) (views, error) {
	var v views
	nn, err := matrix(n, n, "n", "n")
	if err != nil {
		return v, err
	}
	if _, err := matrix(count, C.int64_t(nn), "count", "n·n"); err != nil {
		return v, err
	}
	for i, p := range ps {
		if p == nil {
			return v, argf("%s is %v", names[i], termNULL)
		}
		l := int(count) * int(n)
		if pows[i] == 2 {
			l *= int(n)
		}
		v[i] = view(p, l)
	}
	return v, nil
}

// unshare returns in, or a copy of it when out overlaps it other than
// exactly (Eig and Map allow out = in, chunk by chunk, but not a shifted
// overlap).
func unshare(in []float64, outs ...[]float64) []float64 {
	for _, out := range outs {
		if overlaps(out, in) && &out[0] != &in[0] {
			return slices.Clone(in)
		}
	}
	return in
}

// withBatch runs fn on a pooled Batch for count matrices of order n.
func withBatch(n, count int, fn func(b *specbatch.Batch) error) error {
	k := [2]int{n, min(count, max(1, chunkLen/(n*n)))}
	b := batchPool.get(k)
	defer batchPool.put(k, b)
	return spectralError(fn(b))
}

// spectralError marks the errors of the caller's data (not finite, not
// symmetric, not positive definite: the message names the argument and
// the matrix) as input errors; an overflow of exp stays RHGD_ENUMERIC.
func spectralError(err error) error {
	if errors.Is(err, numerr.ErrNotFinite) || errors.Is(err, numerr.ErrNotSymmetric) || errors.Is(err, numerr.ErrNotPosDef) {
		return &inputError{err}
	}
	return err
}

//export rhgdgo_spectral_eig_batch
func rhgdgo_spectral_eig_batch(n, count C.int64_t, a, w, v *C.double) C.int {
	return guard(func() error {
		x, err := batchArgs(n, count, []string{"a", "w", "v"}, []int{2, 1, 2}, a, w, v)
		if err != nil {
			return err
		}
		if overlaps(x[1], x[2]) {
			return argf("w and v overlap")
		}
		in := unshare(x[0], x[1], x[2])
		return withBatch(int(n), int(count), func(b *specbatch.Batch) error {
			return b.Eig(x[1], x[2], in, int(count))
		})
	})
}

// spectralMap is the forward (g == nil) and backward kernels: out = f(A_i)
// or out = Df(A_i)*[G_i].
func spectralMap(n, count C.int64_t, a, g, out *C.double, f lapackx.Func) C.int {
	return guard(func() error {
		names, ps := []string{"a", "out"}, []*C.double{a, out}
		if g != nil {
			names, ps = []string{"a", "out", "g"}, []*C.double{a, out, g}
		}
		x, err := batchArgs(n, count, names, []int{2, 2, 2}, ps...)
		if err != nil {
			return err
		}
		in := unshare(x[0], x[1])
		return withBatch(int(n), int(count), func(b *specbatch.Batch) error {
			if g == nil {
				return b.Map(x[1], nil, in, nil, int(count), f)
			}
			return b.Map(nil, x[1], in, unshare(x[2], x[1]), int(count), f)
		})
	})
}

// reEig returns ReEig(eps), or an argument error for a non-finite eps.
func reEig(eps C.double) (lapackx.Func, error) {
	e := float64(eps)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return nil, argf("eps = %v is not finite", e)
	}
	return specbatch.ReEig(e), nil
}

//export rhgdgo_spectral_exp_batch
func rhgdgo_spectral_exp_batch(n, count C.int64_t, a, out *C.double) C.int {
	return spectralMap(n, count, a, nil, out, lapackx.ExpFunc)
}

//export rhgdgo_spectral_log_batch
func rhgdgo_spectral_log_batch(n, count C.int64_t, a, out *C.double) C.int {
	return spectralMap(n, count, a, nil, out, lapackx.LogFunc)
}

//export rhgdgo_spectral_reeig_batch
func rhgdgo_spectral_reeig_batch(n, count C.int64_t, eps C.double, a, out *C.double) C.int {
	f, err := reEig(eps)
	if err != nil {
		return guard(func() error { return err })
	}
	return spectralMap(n, count, a, nil, out, f)
}

// spectralBackward is the backward kernels: g must not be NULL (a NULL g
// would make spectralMap run the forward map).
func spectralBackward(n, count C.int64_t, a, g, grad *C.double, f lapackx.Func) C.int {
	if g == nil {
		return guard(func() error { return argf("g is %v", termNULL) })
	}
	return spectralMap(n, count, a, g, grad, f)
}

//export rhgdgo_spectral_exp_batch_backward
func rhgdgo_spectral_exp_batch_backward(n, count C.int64_t, a, g, grad *C.double) C.int {
	return spectralBackward(n, count, a, g, grad, lapackx.ExpFunc)
}

//export rhgdgo_spectral_log_batch_backward
func rhgdgo_spectral_log_batch_backward(n, count C.int64_t, a, g, grad *C.double) C.int {
	return spectralBackward(n, count, a, g, grad, lapackx.LogFunc)
}

//export rhgdgo_spectral_reeig_batch_backward
func rhgdgo_spectral_reeig_batch_backward(n, count C.int64_t, eps C.double, a, g, grad *C.double) C.int {
	f, err := reEig(eps)
	if err != nil {
		return guard(func() error { return err })
	}
	return spectralBackward(n, count, a, g, grad, f)
}
