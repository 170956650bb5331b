package lapackx

import (
	"errors"
	"math"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
)

// The fuzz targets assert that a nil error means a finite result that an
// independent check accepts, and that an error is one of the shared
// sentinels. They run on the backend RHGD_BLAS selects; `make fuzz` runs
// each on both. The seeds (and the corpus under testdata/fuzz) run with
// every `go test`.

// classified reports whether err wraps a shared sentinel.
func classified(err error) bool {
	for _, s := range []error{numerr.ErrNotFinite, numerr.ErrNotSymmetric, numerr.ErrNotPosDef,
		numerr.ErrSingular, numerr.ErrOverflow, numerr.ErrUnderflow, numerr.ErrNotConverged, numerr.ErrInvalid} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// mulPlain returns the m×n product of a (m×k) and b (k×n) by plain
// loops, independent of BLAS.
func mulPlain(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for l := 0; l < k; l++ {
			x := a[i*k+l]
			for j := 0; j < n; j++ {
				c[i*n+j] += x * b[l*n+j]
			}
		}
	}
	return c
}

func frobPlain(a []float64) float64 {
	var s, scale float64
	for _, v := range a {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 {
		return 0
	}
	for _, v := range a {
		s += (v / scale) * (v / scale)
	}
	return scale * math.Sqrt(s)
}

// scaledPow2 returns a divided by the power of two nearest above norm,
// which is exact for every entry not pushed below the normal range.
func scaledPow2(a []float64, norm float64) []float64 {
	out := append([]float64(nil), a...)
	if norm == 0 || math.IsInf(norm, 0) {
		return out
	}
	_, e := math.Frexp(norm)
	for i := range out {
		out[i] = math.Ldexp(out[i], -e)
	}
	return out
}

func sub(a, b []float64) []float64 {
	c := make([]float64, len(a))
	for i := range a {
		c[i] = a[i] - b[i]
	}
	return c
}

// underflowSlack is the residual that solution entries below the float64
// range leave when they round to zero or to subnormals: about the smallest
// normal number times the coefficients' size.
func underflowSlack(k int, a, b []float64) float64 {
	return 4 * float64(k) * (1 + frobPlain(a) + frobPlain(b)) * 0x1p-1022
}

func seeds(f *testing.F) {
	f.Add([]byte{0, 3, 16, 0, 8, 0, 4, 0, 2, 0, 1, 0, 7, 0})
	f.Add([]byte{0, 4, 0, 1, 80, 20, 3, 250, 17, 5, 1, 1, 9, 200, 33, 0})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f})
	f.Add([]byte{0, 5, 127, 127, 127, 127, 128, 128, 1, 1, 127, 127, 3, 3, 0, 0, 127, 127})
}

// FuzzSymFunc: exp, log, √ and 1/√ of a symmetric matrix commute with it
// (to the eigensolver's backward error), are exactly symmetric and
// finite, and √A·√A = A.
func FuzzSymFunc(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n, op := src.Int(1, 6), src.Int(0, 3)
		a := src.Symmetric(n)
		sf, dst := NewSymFunc(n), make([]float64, n*n)
		var err error
		switch op {
		case 0:
			err = sf.Exp(dst, a)
		case 1:
			err = sf.Log(dst, a)
		case 2:
			err = sf.Sqrt(dst, a)
		case 3:
			err = sf.InvSqrt(dst, a)
		}
		if err != nil {
			if !classified(err) {
				t.Fatalf("op %d: unclassified error %v", op, err)
			}
			return
		}
		if !fuzzing.Finite(dst) || !isSymmetricExactly(dst, n) {
			t.Fatalf("op %d on %v: nil error but %v", op, a, dst)
		}
		an, dn := frobPlain(a), frobPlain(dst)
		// The commutator is taken with A scaled by a power of two to norm
		// about 1 (exact), so that a subnormal A with a huge F (InvSqrt)
		// is judged relative to ‖A‖‖F‖ rather than against an absolute
		// floor that ‖A‖‖F‖ never reaches, and the bound cannot underflow.
		// Rounding of subnormal entries of F is absolute: up to 2^-1074
		// per operation, which 0x1p-1022 covers.
		as := scaledPow2(a, an)
		asn := frobPlain(as)
		if c := frobPlain(sub(mulPlain(as, dst, n, n, n), mulPlain(dst, as, n, n, n))); c > 1e3*float64(n)*0x1p-52*asn*dn+0x1p-1022 {
			t.Fatalf("op %d on %v: ‖ÂF − FÂ‖ = %.3g with Â = A/2^k, ‖Â‖ = %.3g, ‖F‖ = %.3g", op, a, c, asn, dn)
		}
		if op == 2 {
			if r := frobPlain(sub(mulPlain(dst, dst, n, n, n), a)); r > 1e3*float64(n)*0x1p-52*an+0x1p-1022 {
				t.Fatalf("√A·√A − A = %.3g, ‖A‖ = %.3g on %v", r, an, a)
			}
		}
	})
}

// FuzzExpm: e^A of a general matrix commutes with A and is finite.
func FuzzExpm(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 5)
		a := src.Matrix(n, n)
		e, dst := NewExpm(n), make([]float64, n*n)
		if err := e.Exp(dst, a); err != nil {
			if !classified(err) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if !fuzzing.Finite(dst) {
			t.Fatalf("nil error but %v for %v", dst, a)
		}
		an, en := frobPlain(a), frobPlain(dst)
		// Scaling and squaring has a forward error of about κ_exp(A)·ε;
		// the commutator bounds it loosely but catches garbage.
		if c := frobPlain(sub(mulPlain(a, dst, n, n, n), mulPlain(dst, a, n, n, n))); c > 1e-6*an*en+1e-300 {
			t.Fatalf("‖AE − EA‖ = %.3g with ‖A‖ = %.3g, ‖E‖ = %.3g, A = %v", c, an, en, a)
		}
	})
}

// FuzzSylvester: a solution of A X + X B = C has a small residual.
func FuzzSylvester(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		m, n := src.Int(1, 4), src.Int(1, 4)
		a, b, c := src.Matrix(m, m), src.Matrix(n, n), src.Matrix(m, n)
		x := make([]float64, m*n)
		if err := NewSylvester(m, n).Solve(x, a, b, c); err != nil {
			if !classified(err) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if !fuzzing.Finite(x) {
			t.Fatalf("nil error but %v", x)
		}
		ax, xb := mulPlain(a, x, m, m, n), mulPlain(x, b, m, n, n)
		r := make([]float64, m*n)
		for i := range r {
			r[i] = ax[i] + xb[i] - c[i]
		}
		scale := (frobPlain(a)+frobPlain(b))*frobPlain(x) + frobPlain(c)
		if res := frobPlain(r); !(res <= 1e3*float64(m+n)*0x1p-52*scale+underflowSlack(m+n, a, b)) {
			t.Fatalf("residual %.3g, scale %.3g: A %v B %v C %v", res, scale, a, b, c)
		}
	})
}

// FuzzLyapSym: a solution of A X + X A = C (A symmetric) has a small
// residual.
func FuzzLyapSym(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 5)
		a, c := src.Symmetric(n), src.Symmetric(n)
		x := make([]float64, n*n)
		if err := NewLyapSym(n).Solve(x, a, c); err != nil {
			if !classified(err) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if !fuzzing.Finite(x) {
			t.Fatalf("nil error but %v", x)
		}
		ax, xa := mulPlain(a, x, n, n, n), mulPlain(x, a, n, n, n)
		r := make([]float64, n*n)
		for i := range r {
			r[i] = ax[i] + xa[i] - c[i]
		}
		scale := 2*frobPlain(a)*frobPlain(x) + frobPlain(c)
		if res := frobPlain(r); !(res <= 1e3*float64(n)*0x1p-52*scale+underflowSlack(2*n, a, a)) {
			t.Fatalf("residual %.3g, scale %.3g: A %v C %v", res, scale, a, c)
		}
	})
}
