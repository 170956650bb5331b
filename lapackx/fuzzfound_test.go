package lapackx

import (
	"errors"
	"math"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
)

// Defects the fuzz targets found, each with its closed form.

// TestLogSubnormal: log and fractional powers of matrices with subnormal
// eigenvalues. Go's math.Log on amd64 returns log 2^−1023 for every
// subnormal (golang/go#56600), and math.Pow inherits it: SymFunc.Log of
// [2.37e−322] was −709.09 instead of −740.57 (FuzzSymFunc 716514f590ce7ab3).
func TestLogSubnormal(t *testing.T) {
	for _, k := range []int{1023, 1030, 1060, 1074} {
		x := math.Ldexp(1, -k) // log x = −k ln 2
		want := -float64(k) * math.Ln2
		if got := logPos(x); math.Abs(got-want) > 4e-16*math.Abs(want) {
			t.Errorf("logPos(2^−%d) = %.17g, want %.17g", k, got, want)
		}
		// math.Pow's own error is about ε·|p·log x| ≈ 4e−14 here.
		if got, want := powPos(x, 0.25), math.Ldexp(1, -k/4)*math.Exp2(-float64(k%4)/4); math.Abs(got-want) > 2e-13*want {
			t.Errorf("powPos(2^−%d, ¼) = %.17g, want %.17g", k, got, want)
		}
		if got, want := powPos(x, -1.5), math.Exp2(1.5*float64(k)); !(math.Abs(got-want) <= 2e-13*want) && !(math.IsInf(got, 1) && math.IsInf(want, 1)) {
			t.Errorf("powPos(2^−%d, −1.5) = %.17g, want %.17g", k, got, want)
		}
	}
	// On a matrix: diag(2^−1060, 2^−1050) (a rotation would round 2^−1060
	// away in the entries, and beside an eigenvalue of order one it lies
	// below the pure-Go eigensolver's backward error, which then reports
	// a singular matrix).
	sf, dst := NewSymFunc(2), make([]float64, 4)
	if err := sf.Log(dst, []float64{math.Ldexp(1, -1060), 0, 0, math.Ldexp(1, -1050)}); err != nil {
		t.Fatal(err)
	}
	if want := []float64{-1060 * math.Ln2, 0, 0, -1050 * math.Ln2}; relErr(dst, want) > 1e-15 {
		t.Errorf("log diag(2^−1060, 2^−1050) = %v, want %v", dst, want)
	}
}

// TestPowSubnormal1x1: [2^−1072]^¼ = [2^−268].
func TestPowSubnormal1x1(t *testing.T) {
	sf, dst := NewSymFunc(1), make([]float64, 1)
	if err := sf.Apply(dst, []float64{math.Ldexp(1, -1072)}, PowFunc(0.25)); err != nil {
		t.Fatal(err)
	}
	if want := math.Ldexp(1, -268); math.Abs(dst[0]-want) > 2e-13*want {
		t.Fatalf("[2^−1072]^¼ = %v, want %v", dst[0], want)
	}
}

// TestSylvesterHugeCoefficients: coefficients near the top of the float64
// range made Ta_kk + Tb_ll overflow inside dtrsyl, and X came out 0 with a
// nil error (FuzzSylvester 2f10d3915de6f645); the Lyapunov solver had the
// same with λ_i + λ_j.
func TestSylvesterHugeCoefficients(t *testing.T) {
	a, b, c := []float64{1.7808371800175375e+308}, []float64{1.859860601957164e+306}, []float64{1.060912188235294e+06}
	x := make([]float64, 1)
	if err := NewSylvester(1, 1).Solve(x, a, b, c); err != nil {
		t.Fatal(err)
	}
	if want := c[0] / 2 / (a[0]/2 + b[0]/2); math.Abs(x[0]-want) > 1e-15*want {
		t.Fatalf("X = %v, want %v", x[0], want)
	}
	// 3×2 with a non-normal A and a B of opposite sign, residual judged on
	// the scaled equation.
	a = []float64{1.5e308, 1e308, 0, 0, 1.2e308, 3e307, 0, 0, 1.7e308}
	b = []float64{-1e307, 2e306, 0, -3e306}
	c = []float64{1, 2, 3, 4, 5, 6}
	x = make([]float64, 6)
	if err := NewSylvester(3, 2).Solve(x, a, b, c); err != nil {
		t.Fatal(err)
	}
	if res, bound, ok := sylvesterCheck(a, b, c, x, 3, 2); !ok || !(res <= bound) || fuzzing.Frob(x) == 0 {
		t.Fatalf("X = %v: scaled residual %.3g > %.3g", x, res, bound)
	}
	// Lyapunov: A = 1.5e308·I, C = I: X = I/3e308, subnormal but representable.
	x = make([]float64, 4)
	if err := NewLyapSym(2).Solve(x, []float64{1.5e308, 0, 0, 1.5e308}, []float64{1, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if want := 1 / 3e308; math.Abs(x[0]-want) > 1e-6*want || x[1] != 0 {
		t.Fatalf("Lyapunov X = %v, want %v·I", x, want)
	}
}

// TestLyapSymOverflow: a solution beyond the float64 range is ErrOverflow,
// not +Inf with a nil error (FuzzLyapSym 8800da7a9129940a: A = 1.39e−76,
// C = 8.4e270).
func TestLyapSymOverflow(t *testing.T) {
	x := make([]float64, 1)
	err := NewLyapSym(1).Solve(x, []float64{1.39e-76}, []float64{8.4e270})
	if !errors.Is(err, numerr.ErrOverflow) {
		t.Fatalf("X = %v, error %v; want ErrOverflow", x, err)
	}
}

// TestExpm2x2Extremes: the 2×2 closed form stays finite wherever e^A is.
// h² = ((a1 − a4)/2)² overflowed for |a1 − a4| > 2.7e154 (FuzzSymFunc
// 9a44e5a3622cd3dc: Expm reported an overflow for
// [[−1.6e237, 2.4e−322], [2.4e−322, 0]], whose exponential is diag(0, 1)),
// μ = 0 with |m| > 700 divided by zero, and e^m underflowed against a huge
// off-diagonal entry.
func TestExpm2x2Extremes(t *testing.T) {
	e := NewExpm(2)
	em705 := math.Exp(705)
	for _, tc := range []struct {
		a, want []float64
		tol     float64
	}{
		{[]float64{-1.6470853665776294e+237, 2.37e-322, 2.37e-322, 0}, []float64{0, 0, 0, 1}, 0},
		// eigenvalues −3e200 − 1/3e200 and 1/3e200: e12 = (e^λ1 − e^λ2)/(λ1 − λ2)
		{[]float64{-3e200, 1, 1, 0}, []float64{0, 1 / 3e200, 1 / 3e200, 1}, 1e-15},
		// m = 705, μ = 0: e^705·[[1, 1], [0, 1]], finite
		{[]float64{705, 1, 0, 705}, []float64{em705, em705, 0, em705}, 1e-13},
		// e^−800·[[1, 1e300], [0, 1]]: e12 = 1e300·e^−800 ≈ 3.7e−48
		{[]float64{-800, 1e300, 0, -800}, []float64{0, 1e300 * math.Exp(-400) * math.Exp(-400), 0, 0}, 1e-13},
	} {
		dst := make([]float64, 4)
		if err := e.Exp(dst, tc.a); err != nil {
			t.Errorf("e^%v: %v", tc.a, err)
			continue
		}
		for i, w := range tc.want {
			if !(math.Abs(dst[i]-w) <= tc.tol*math.Abs(w)) {
				t.Errorf("e^%v = %v, want %v", tc.a, dst, tc.want)
				break
			}
		}
	}
	// A genuine overflow is still an error.
	if err := e.Exp(make([]float64, 4), []float64{1e200, 1, 1, 0}); !errors.Is(err, numerr.ErrOverflow) {
		t.Errorf("e^[[1e200, 1], [1, 0]]: %v, want ErrOverflow", err)
	}
}

// TestExpmTriangularRounding: e^A of the upper triangular rank-one A with
// first row r, A² = r₀A, is I + (e^{r₀} − 1)/r₀·A; rounding in the strict
// lower triangle used to double through 114 squarings and turn the
// (0, 2) entry −0.99976 into −8e14.
func TestExpmTriangularRounding(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		r := []float64{-8.407440567247337e+34, 1.398043286095289e-76, -8.405412326286968e+34, -1.2042048399170213e+35}
		a := make([]float64, 16)
		copy(a, r)
		dst := make([]float64, 16)
		if err := NewExpm(4).Exp(dst, a); err != nil {
			t.Fatal(err)
		}
		phi := (math.Exp(r[0]) - 1) / r[0]
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				want := phi * a[i*4+j]
				if i == j {
					want += 1
				}
				if d := math.Abs(dst[i*4+j] - want); d > 1e-14*math.Max(1, math.Abs(want)) {
					t.Errorf("e^A[%d,%d] = %g, want %g", i, j, dst[i*4+j], want)
				}
			}
		}
	})
}
