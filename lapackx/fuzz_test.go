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

// sylvesterCheck returns the residual of A X + X B = C and the bound it
// must meet, computed on the equation scaled by powers of two so that
// neither a product overflows nor the bound is Inf·0 (the fuzzer's
// 331b2b68bf58c60c: A = −4.4e304, B = 1.8e308, C = 0, X = 0 made
// (‖A‖+‖B‖)·‖X‖ NaN): Â = A/2^ea, B̂ = B/2^ea with max(|A|, |B|) < 2^ea,
// X̂ = X/2^ex with max|X| < 2^ex, Ĉ = C/2^(ea+ex). Every entry of Â, B̂ and
// X̂ is below one, so the products and norms are finite; Ĉ overflows only
// when ‖C‖ exceeds (‖A‖+‖B‖)‖X‖ by more than the float64 range, in which
// case X cannot be a solution and ok is false. The bound is the backward
// error 1e3·k·ε·((‖Â‖+‖B̂‖)‖X̂‖ + ‖Ĉ‖), k = m+n, plus the rounding of
// entries below the normal range: those of the scaled quantities
// (k²·2^−1021) and those of a solution whose entries underflow,
// 4k(1+‖A‖+‖B‖)·2^−1022 in the original units, about the smallest normal
// number times the coefficients' size, and so
// 4k(2^−ea + ‖Â‖+‖B̂‖)·2^(−1022−ex) in the scaled ones.
func sylvesterCheck(a, b, c, x []float64, m, n int) (res, bound float64, ok bool) {
	ea := fuzzing.ExpAbove(math.Max(fuzzing.MaxAbs(a), fuzzing.MaxAbs(b)))
	ex := fuzzing.ExpAbove(fuzzing.MaxAbs(x))
	as, bs, xs, cs := fuzzing.LdexpAll(a, -ea), fuzzing.LdexpAll(b, -ea), fuzzing.LdexpAll(x, -ex), fuzzing.LdexpAll(c, -ea-ex)
	if !fuzzing.Finite(cs) {
		return math.Inf(1), 0, false
	}
	ax, xb := fuzzing.MulPlain(as, xs, m, m, n), fuzzing.MulPlain(xs, bs, m, n, n)
	r := make([]float64, m*n)
	for i := range r {
		r[i] = ax[i] + xb[i] - cs[i]
	}
	k := float64(m + n)
	an, bn := fuzzing.Frob(as), fuzzing.Frob(bs)
	bound = 1e3*k*0x1p-52*((an+bn)*fuzzing.Frob(xs)+fuzzing.Frob(cs)) + k*k*0x1p-1021 +
		math.Ldexp(4*k, -ea-1022-ex) + math.Ldexp(4*k*(an+bn), -1022-ex)
	return fuzzing.Frob(r), bound, true
}

// symSeed returns an input for FuzzSymFunc: order n, operation op and a
// symmetric positive definite matrix in moderate values (diagonal 3 + i/8,
// off-diagonal entries within ±1/8), so that every operation succeeds.
func symSeed(n, op int) []byte {
	d := []byte{0, byte(n - 1), byte(op)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := int8(48 + 2*i)
			if j != i {
				v = int8((i+2*j)%5 - 2)
			}
			d = append(d, byte(v), 0)
		}
	}
	return d
}

// matSeed returns an input for FuzzExpm of order n in moderate values,
// scaled by 2^(int8(e)/8).
func matSeed(n int, e byte) []byte {
	d := []byte{0, byte(n - 1)}
	for k := 0; k < n*n; k++ {
		d = append(d, byte(int8((k*7)%33-16)), e)
	}
	return d
}

func seeds(f *testing.F) {
	f.Add([]byte{0, 3, 16, 0, 8, 0, 4, 0, 2, 0, 1, 0, 7, 0})
	f.Add([]byte{0, 4, 0, 1, 80, 20, 3, 250, 17, 5, 1, 1, 9, 200, 33, 0})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f})
	f.Add([]byte{0, 5, 127, 127, 127, 127, 128, 128, 1, 1, 127, 127, 3, 3, 0, 0, 127, 127})
}

// FuzzSymFunc: exp, log, √ and 1/√ of a symmetric matrix are exactly
// symmetric, finite, commute with A (to the eigensolver's backward error),
// and each meets an independent check:
//
//	exp    agrees with Expm (Padé scaling and squaring, not an
//	       eigendecomposition) to 1e3·n·ε·max(1, ‖A‖) relative: the
//	       relative condition number of exp at a symmetric A is ‖A‖;
//	log    Expm(log A) = A to 1e3·n·ε·max(1, ‖log A‖) relative to ‖A‖:
//	       log A is exact for A + ΔA, ‖ΔA‖ ≈ nε‖A‖, up to rounding of size
//	       nε‖log A‖, which exp amplifies by ‖log A‖;
//	√      √A·√A = A to 1e3·n·ε·‖A‖;
//	1/√    F·A·F = I to 1e3·n·ε·‖F‖²‖A‖ (F A F − I ≈ F ΔA F).
//
// Each runs on A scaled by a power of two (exact) so that no product or
// bound overflows or underflows; eigenvalues of a subnormal A carry an
// absolute error of a few 2^−1074, which the bounds allow.
func FuzzSymFunc(f *testing.F) {
	seeds(f)
	for op := 0; op < 4; op++ {
		f.Add(symSeed(3, op))
		f.Add(symSeed(5, op))
	}
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
		an, dn := fuzzing.Frob(a), fuzzing.Frob(dst)
		// The commutator is taken with A scaled by a power of two to norm
		// about 1 (exact), so that a subnormal A with a huge F (InvSqrt)
		// is judged relative to ‖A‖‖F‖ rather than against an absolute
		// floor that ‖A‖‖F‖ never reaches, and the bound cannot underflow.
		// Rounding of subnormal entries of F is absolute: up to 2^-1074
		// per operation, which 0x1p-1022 covers.
		as := scaledPow2(a, an)
		asn := fuzzing.Frob(as)
		if c := fuzzing.Frob(fuzzing.Sub(fuzzing.MulPlain(as, dst, n, n, n), fuzzing.MulPlain(dst, as, n, n, n))); c > 1e3*float64(n)*0x1p-52*asn*dn+0x1p-1022 {
			t.Fatalf("op %d on %v: ‖ÂF − FÂ‖ = %.3g with Â = A/2^k, ‖Â‖ = %.3g, ‖F‖ = %.3g", op, a, c, asn, dn)
		}
		const eps = 0x1p-52
		fn := float64(n)
		k := fuzzing.ExpAbove(fuzzing.MaxAbs(a)) // max|A| < 2^k
		switch op {
		case 0:
			pade := make([]float64, n*n)
			if err := NewExpm(n).Exp(pade, a); err != nil {
				// Only the overflow boundary may separate the two, and
				// Expm's documented limit: for n ≥ 3 it reports an
				// overflow when the powers of A that choose its scaling
				// do (A¹⁰ with max|A| above 2^100/n).
				if errors.Is(err, numerr.ErrOverflow) && (fuzzing.MaxAbs(dst) > 0x1p1000 || n >= 3 && fuzzing.MaxAbs(a)*fn > 0x1p100) {
					return
				}
				t.Fatalf("exp: SymFunc gives %v but Expm fails (%v) on %v", dst, err, a)
			}
			d := fuzzing.Frob(fuzzing.Sub(dst, pade))
			scale := math.Max(dn, fuzzing.Frob(pade))
			if bound := 1e3*fn*eps*math.Max(1, an)*scale + fn*0x1p-1022; !(d <= bound) {
				t.Fatalf("exp: ‖SymFunc − Expm‖ = %.3g > %.3g (‖A‖ = %.3g, ‖e^A‖ = %.3g): A %v", d, bound, an, scale, a)
			}
		case 1:
			// e^(log A − k ln2·I) = A/2^k: shifted so that neither side
			// overflows; the shift's rounding (ε·k ln2 absolute) is inside
			// the ‖log A‖ term, since ‖log A‖ ≥ |log λ_max| ≈ |k ln2|.
			lc := append([]float64(nil), dst...)
			for i := 0; i < n; i++ {
				lc[i*n+i] -= float64(k) * math.Ln2
			}
			e := make([]float64, n*n)
			if err := NewExpm(n).Exp(e, lc); err != nil {
				t.Fatalf("log: Expm(log A − %d ln2·I) fails (%v): A %v, log A %v", k, err, a, dst)
			}
			ah := fuzzing.LdexpAll(a, -k)
			d := fuzzing.Frob(fuzzing.Sub(e, ah))
			bound := 1e3*fn*eps*math.Max(1, dn)*fuzzing.Frob(ah) + 16*fn*math.Ldexp(1, -1074-k) + fn*0x1p-1022
			if !(d <= bound) {
				t.Fatalf("log: ‖e^(log A) − A‖/2^%d = %.3g > %.3g (‖log A‖ = %.3g): A %v, log A %v", k, d, bound, dn, a, dst)
			}
		case 2, 3:
			// Â = A/4^j ≤ 1 in max, and F̂ = F·2^(∓j): ŜŜ = Â and F̂ÂF̂ = FAF
			// exactly where the scaling is exact.
			j := (k + 1) / 2
			if k < 0 {
				j = k / 2
			}
			ah := fuzzing.LdexpAll(a, -2*j)
			ahn := fuzzing.Frob(ah)
			if op == 2 {
				sh := fuzzing.LdexpAll(dst, -j)
				shn := fuzzing.Frob(sh)
				r := fuzzing.Frob(fuzzing.Sub(fuzzing.MulPlain(sh, sh, n, n, n), ah))
				// 2^−1022 absolute in the original units, as before, and
				// the rounding of entries of √A below the normal range.
				bound := 1e3*fn*eps*ahn + math.Ldexp(1, -1022-2*j) + math.Ldexp(4*fn*(1+shn), -1022-j) + 4*fn*fn*0x1p-1022
				if !(r <= bound) {
					t.Fatalf("√A·√A − A = %.3g > %.3g (scaled by 4^%d), ‖Â‖ = %.3g on %v", r, bound, j, ahn, a)
				}
				return
			}
			fh := fuzzing.LdexpAll(dst, j)
			fhn := fuzzing.Frob(fh)
			r := fuzzing.Frob(fuzzing.Sub(fuzzing.MulPlain(fuzzing.MulPlain(fh, ah, n, n, n), fh, n, n, n), fuzzing.Eye(n)))
			// F ΔA F with ‖ΔA‖ ≤ nε‖A‖ + a few 2^−1074 (original units):
			// ‖F̂‖² times the scaled perturbation; never Inf·0, as ‖F̂‖ > 0.
			bound := fhn * fhn * (1e3*fn*eps*ahn + 16*fn*math.Ldexp(1, -1074-2*j))
			if !(r <= bound+4*fn*fn*0x1p-1022) {
				t.Fatalf("‖F A F − I‖ = %.3g > %.3g, ‖F̂‖ = %.3g, ‖Â‖ = %.3g (F = A^−½ scaled by 2^%d) on %v", r, bound, fhn, ahn, j, a)
			}
		}
	})
}

// expTaylor returns e^A by plain loops, independent of BLAS, LAPACK and
// Padé: A is scaled by 2^−s so that ‖A/2^s‖₁ ≤ ¼, the Taylor series of
// degree 18 is summed by Horner's rule (its truncation error is below
// (¼)^19/19! ≈ 3e−29), and the result squared s times.
func expTaylor(a []float64, n int) []float64 {
	var nrm float64
	for j := 0; j < n; j++ {
		var c float64
		for i := 0; i < n; i++ {
			c += math.Abs(a[i*n+j])
		}
		nrm = math.Max(nrm, c)
	}
	s := 0
	if nrm > 0.25 {
		s = fuzzing.ExpAbove(nrm) + 2
	}
	x := fuzzing.LdexpAll(a, -s)
	t := fuzzing.Eye(n)
	for k := 18; k >= 1; k-- {
		xt := fuzzing.MulPlain(x, t, n, n, n)
		for i := range t {
			t[i] = xt[i] / float64(k)
		}
		for i := 0; i < n; i++ {
			t[i*n+i]++
		}
	}
	for ; s > 0; s-- {
		t = fuzzing.MulPlain(t, t, n, n, n)
	}
	return t
}

// FuzzExpm: e^A of a general matrix is finite, commutes with A, and
// agrees with an independent Taylor series with scaling and squaring
// (expTaylor): to 1e3·n·ε relative when ‖A‖_F ≤ 1, where exp is well
// conditioned (κ_exp ≤ ‖A‖e^‖A‖/‖e^A‖ ≤ e²) and both methods are accurate
// to a few ε; beyond, to 1e3·n^1.5·ε·‖A‖_F·e^‖A‖_F/‖e^A‖_F, the a priori
// bound on the forward error of a backward-stable method (Van Loan's
// bound on κ_exp) and of the squaring phase (Higham: about 2^s·nε·e^‖A‖
// with 2^s ≈ ‖A‖), with √n from ‖·‖₂ ≥ ‖·‖_F/√n. It is checked where it is
// below 10^−3 and ‖A‖_F ≤ 50: for a dominant positive eigenvalue or a
// nilpotent part it stays tight, and for a spectrum far in the left half
// plane, where e^‖A‖/‖e^A‖ is huge, it says nothing and is skipped.
func FuzzExpm(f *testing.F) {
	seeds(f)
	for n := 1; n <= 5; n++ {
		f.Add(matSeed(n, 0))   // entries within 1
		f.Add(matSeed(n, 232)) // within 1/8: the strict ‖A‖ ≤ 1 check
		f.Add(matSeed(n, 16))  // within 4
	}
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
		// Scaling and squaring has a forward error of about κ_exp(A)·ε;
		// the commutator bounds it loosely but catches garbage. E is scaled
		// by a power of two (exact) so that AE cannot overflow. Entries of E
		// in the subnormal range are only accurate to 2^-1074 absolute,
		// which the scaling turns into the slack term.
		k := fuzzing.ExpAbove(fuzzing.Frob(dst))
		es := fuzzing.LdexpAll(dst, -k)
		an, en := fuzzing.Frob(a), fuzzing.Frob(es)
		slack := an * 4 * float64(n) * math.Ldexp(0x1p-1074, -k)
		if c := fuzzing.Frob(fuzzing.Sub(fuzzing.MulPlain(a, es, n, n, n), fuzzing.MulPlain(es, a, n, n, n))); c > 1e-6*an*en+slack+1e-300 {
			t.Fatalf("‖AÊ − ÊA‖ = %.3g with ‖A‖ = %.3g, ‖Ê‖ = %.3g (Ê = E/2^k), A = %v", c, an, en, a)
		}
		if !(an <= 50) {
			return
		}
		ref := expTaylor(a, n)
		rn := fuzzing.Frob(ref)
		fn := float64(n)
		tol := 1e3 * fn * 0x1p-52
		if an > 1 {
			tol *= math.Sqrt(fn) * an * math.Exp(an) / rn
		}
		if tol > 1e-3 {
			return
		}
		if d := fuzzing.Frob(fuzzing.Sub(dst, ref)) / rn; !(d <= tol) {
			t.Fatalf("‖Expm − Taylor‖/‖Taylor‖ = %.3g > %.3g (‖A‖ = %.3g, ‖e^A‖ = %.3g): A %v, Expm %v, Taylor %v", d, tol, an, rn, a, dst, ref)
		}
	})
}

// FuzzSylvester: a solution of A X + X B = C has a small residual
// (sylvesterCheck).
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
		if res, bound, ok := sylvesterCheck(a, b, c, x, m, n); !ok || !(res <= bound) {
			t.Fatalf("scaled residual %.3g > %.3g (C beyond (‖A‖+‖B‖)‖X‖: %v): A %v B %v C %v X %v", res, bound, !ok, a, b, c, x)
		}
	})
}

// FuzzLyapSym: a solution of A X + X A = C (A symmetric) has a small
// residual (sylvesterCheck with B = A).
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
		if res, bound, ok := sylvesterCheck(a, a, c, x, n, n); !ok || !(res <= bound) {
			t.Fatalf("scaled residual %.3g > %.3g (C beyond 2‖A‖‖X‖: %v): A %v C %v X %v", res, bound, !ok, a, c, x)
		}
	})
}
