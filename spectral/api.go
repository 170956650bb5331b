package spectral

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// This file is the entry points for outside data: whole arrays of any
// number of matrices, checked (lengths, finite entries, symmetry), run
// through a Batch in chunks of at most its capacity, so that a Batch of a
// few hundred matrices serves a request of millions without holding
// their factorizations all at once.

// Func is the function of a spectral layer: lapackx.ExpFunc,
// lapackx.LogFunc, ReEig(ε) and the others of lapackx.
type Func = lapackx.Func

// Eig computes the eigendecompositions A_i = V_iᵀ diag(λ_i) V_i of count
// symmetric n×n row-major matrices stored one after the other in a: w
// receives their eigenvalues, ascending, n per matrix, and v their unit
// eigenvectors, in the rows of one n×n block per matrix (Values and
// Vectors of each). It works through a in chunks of at most Cap()
// matrices; afterwards the Batch holds the last chunk's factorization.
//
// It takes outside data: it returns an error wrapping numerr.ErrInvalid
// for an array of the wrong length, numerr.ErrNotFinite for a NaN or
// infinite entry and numerr.ErrNotSymmetric for a matrix with
// |a_pq − a_qp| > lapackx.SymTol · max|a|, naming the argument and the
// first bad matrix. v may be a; w and v must not otherwise overlap a.
func (b *Batch) Eig(w, v, a []float64, count int) error {
	n := b.n
	if err := b.checkArgs(count, "a", a, "w", w, n, "v", v, n*n); err != nil {
		return err
	}
	nn := n * n
	for lo := 0; lo < count; lo += b.cap {
		hi := min(count, lo+b.cap)
		b.checkSym, b.base = true, lo
		err := b.factorize(a[lo*nn:hi*nn], hi-lo)
		b.checkSym, b.base = false, 0
		if err != nil {
			return fmt.Errorf("%w (argument a)", err)
		}
		copy(w[lo*n:hi*n], b.lam[:(hi-lo)*n])
		copy(v[lo*nn:hi*nn], b.v[:(hi-lo)*nn])
	}
	return nil
}

// Map applies the spectral function f to count symmetric n×n matrices
// stored one after the other in a, in chunks of at most Cap() matrices
// with one eigendecomposition each: when out is not nil it receives
// f(A_i), and when grad is not nil it receives the backward map
// Df(A_i)*[G_i] = Df(A_i)[(G_i + G_iᵀ)/2] of the blocks G_i of g (the
// gradient of a loss with respect to f(A_i); for a symmetric G_i it is the
// Fréchet derivative Df(A_i)[G_i], by the Daleckii–Krein formula). That
// is the forward and the backward pass of a layer X ↦ f(X) in one call,
// as an autograd framework would run them. Afterwards the Batch holds the
// last chunk's factorization and f.
//
// It checks its arguments as Eig does (g for finite entries only) and
// returns the errors of Apply: numerr.ErrNotPosDef when f needs positive
// eigenvalues (log) and a matrix has one ≤ 0, numerr.ErrOverflow when
// f(λ) overflows (exp of an eigenvalue above about 709). out and grad may
// be a or g; they must not overlap each other.
func (b *Batch) Map(out, grad, a, g []float64, count int, f Func) error {
	n, nn := b.n, b.n*b.n
	if f == nil {
		return fmt.Errorf("spectral: %w: Map: f is nil", numerr.ErrInvalid)
	}
	if grad != nil && g == nil {
		return fmt.Errorf("spectral: %w: Map: grad needs the upstream gradient g, which is nil", numerr.ErrInvalid)
	}
	if err := b.checkArgs(count, "a", a, "out", out, nn, "grad", grad, nn); err != nil {
		return err
	}
	if grad != nil {
		if len(g) != count*nn {
			return fmt.Errorf("spectral: %w: Map: len(g) = %d, want count·n·n = %d", numerr.ErrInvalid, len(g), count*nn)
		}
		for k, x := range g {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("spectral: %w: argument g: matrix %d, entry [%d,%d] = %v", numerr.ErrNotFinite, k/nn, k%nn/n, k%n, x)
			}
		}
	}
	for lo := 0; lo < count; lo += b.cap {
		hi := min(count, lo+b.cap)
		b.checkSym, b.base = true, lo
		err := b.factorize(a[lo*nn:hi*nn], hi-lo)
		b.checkSym = false
		if err != nil {
			b.base = 0
			return fmt.Errorf("%w (argument a)", err)
		}
		var dst []float64
		if out != nil {
			dst = out[lo*nn : hi*nn]
		}
		err = b.Apply(dst, f)
		b.base = 0
		if err != nil {
			return fmt.Errorf("%w (argument a)", err)
		}
		if grad != nil {
			b.BackwardAll(grad[lo*nn:hi*nn], g[lo*nn:hi*nn])
		}
	}
	return nil
}

// checkArgs checks count, the input a (count·n·n entries) and the outputs
// x and y (count·kx and count·ky entries, or nil).
func (b *Batch) checkArgs(count int, an string, a []float64, xn string, x []float64, kx int, yn string, y []float64, ky int) error {
	nn := b.n * b.n
	switch {
	case count < 0:
		return fmt.Errorf("spectral: %w: count = %d is negative", numerr.ErrInvalid, count)
	case count > 0 && b.cap == 0:
		return fmt.Errorf("spectral: %w: count = %d matrices for a Batch of capacity 0", numerr.ErrInvalid, count)
	case len(a) != count*nn:
		return fmt.Errorf("spectral: %w: len(%s) = %d, want count·n·n = %d·%d·%d", numerr.ErrInvalid, an, len(a), count, b.n, b.n)
	case x != nil && len(x) != count*kx:
		return fmt.Errorf("spectral: %w: len(%s) = %d, want %d", numerr.ErrInvalid, xn, len(x), count*kx)
	case y != nil && len(y) != count*ky:
		return fmt.Errorf("spectral: %w: len(%s) = %d, want %d", numerr.ErrInvalid, yn, len(y), count*ky)
	}
	return nil
}

// checkLower checks the strict lower triangle of the n×n block a, whose
// upper triangle is finite with largest entry amax in magnitude: finite,
// and within lapackx.SymTol · amax of the upper one. It returns the
// largest asymmetry beyond that.
func checkLower(a []float64, n int, amax float64) error {
	tol := lapackx.SymTol * amax
	var dmax float64
	dp, dq := 0, 0
	for p := 0; p < n; p++ {
		for q := p + 1; q < n; q++ {
			x := a[q*n+p]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: entry [%d,%d] = %v", numerr.ErrNotFinite, q, p, x)
			}
			if d := math.Abs(a[p*n+q] - x); d > dmax {
				dmax, dp, dq = d, p, q
			}
		}
	}
	if dmax > tol {
		return fmt.Errorf("%w: |a[%d,%d] − a[%d,%d]| = %.3g > %.3g (lapackx.SymTol·max|a|)", numerr.ErrNotSymmetric, dp, dq, dq, dp, dmax, tol)
	}
	return nil
}
