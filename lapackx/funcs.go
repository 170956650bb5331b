package lapackx

import "math"

// Func is a scalar function f applied to a symmetric matrix through its
// eigenvalues: f(A) = Vᵀ diag(f(λ)) V.
type Func interface {
	// Eval returns f(x).
	Eval(x float64) float64
	// DivDiff returns the divided difference f[x, y] = (f(x) − f(y))/(x − y),
	// and f′(x) when x = y. The built-in functions compute it to a few ulps
	// even when x ≈ y, where the quotient as written cancels.
	DivDiff(x, y float64) float64
	// Positive reports whether f is defined only for x > 0.
	Positive() bool
}

// The built-in spectral functions.
var (
	ExpFunc     Func = expFunc{}     // e^x
	LogFunc     Func = logFunc{}     // log x, x > 0
	SqrtFunc    Func = powFunc{0.5}  // √x, x > 0
	InvSqrtFunc Func = powFunc{-0.5} // 1/√x, x > 0
)

// PowFunc returns x ↦ x^p for x > 0 (any real p).
func PowFunc(p float64) Func { return powFunc{p} }

// UserFunc returns the spectral function f with derivative df, defined on
// all reals (positive reals if positive is true). df may be nil if no
// Fréchet derivative is needed. Its divided difference is the quotient for
// well-separated arguments and the mean of df at both ends when
// |x − y| ≤ ε^⅓·max(|x|, |y|), which keeps the error near ε^⅔ relative for
// smooth f; the built-in functions are exact to a few ulps instead.
func UserFunc(f, df func(float64) float64, positive bool) Func {
	return userFunc{f, df, positive}
}

type expFunc struct{}

func (expFunc) Eval(x float64) float64 { return math.Exp(x) }
func (expFunc) Positive() bool         { return false }

// DivDiff uses e^{(x+y)/2}·sinh(h)/h with h = (x − y)/2, free of
// cancellation, and once |h| > 1 the form e^{max(x,y)}·(−expm1(−2|h|))/(2|h|),
// so that e^{(x+y)/2} cannot underflow while the result is representable.
func (expFunc) DivDiff(x, y float64) float64 {
	if x == y {
		return math.Exp(x)
	}
	h := 0.5 * (x - y)
	if math.Abs(h) <= 1 {
		return math.Exp(0.5*(x+y)) * sinhc(h)
	}
	return math.Exp(max(x, y)) * -math.Expm1(-2*math.Abs(h)) / (2 * math.Abs(h))
}

// sinhc returns sinh(h)/h.
func sinhc(h float64) float64 {
	if h == 0 {
		return 1
	}
	return math.Sinh(h) / h
}

type logFunc struct{}

func (logFunc) Eval(x float64) float64 { return logPos(x) }
func (logFunc) Positive() bool         { return true }

// DivDiff uses (log x − log y)/(x − y) = 2·atanh(z)/(x − y) with
// z = (x − y)/(x + y), which has no cancellation for x ≈ y; for x and y
// more than a factor 2 apart the plain quotient has none either.
func (logFunc) DivDiff(x, y float64) float64 {
	d := x - y
	switch {
	case d == 0:
		return 1 / x
	case farApart(x, y):
		return (logPos(x) - logPos(y)) / d
	}
	return 2 * math.Atanh(d/(x+y)) / d
}

// logPos is math.Log, right for subnormal x too: Go's math.Log on amd64
// and s390x (assembly) ignores the subnormal exponent and returns
// log 2^−1023 ≈ −709.09 for every x below 2^−1022, e.g. for 5e−324, whose
// log is −744.44 (golang/go#56600, open; the fuzz target FuzzSymFunc found
// it as log of a 1×1 matrix). The scaling by 2^54 is exact.
func logPos(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// powPos is math.Pow(x, p) for x > 0, right for subnormal x too:
// math.Pow forms Exp(y·Log(x)) for the fractional part of y and inherits
// math.Log's error below 2^−1022 (see logPos). The intermediate
// (2^54 x)^p lies between 1 and the result, so it overflows only when
// the result does.
func powPos(x, p float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Pow(x*0x1p54, p) * math.Exp2(-54*p)
	}
	return math.Pow(x, p)
}

// farApart reports whether positive x and y differ by more than a factor 2,
// where f(x) − f(y) does not cancel for the monotone functions here.
func farApart(x, y float64) bool { return x > 2*y || y > 2*x }

type powFunc struct{ p float64 }

func (f powFunc) Eval(x float64) float64 {
	switch f.p {
	case 0.5:
		return math.Sqrt(x)
	case -0.5:
		return 1 / math.Sqrt(x)
	}
	return powPos(x, f.p)
}

func (powFunc) Positive() bool { return true }

// DivDiff: for √x it is 1/(√x + √y) and for 1/√x it is
// −1/(√x·√y·(√x + √y)); otherwise, for x and y within a factor 2,
// (x^p − y^p)/(x − y) = y^p·expm1(p·t)/(x − y) with t = log1p((x − y)/y),
// and the plain quotient beyond.
func (f powFunc) DivDiff(x, y float64) float64 {
	switch f.p {
	case 0.5:
		return 1 / (math.Sqrt(x) + math.Sqrt(y))
	case -0.5:
		sx, sy := math.Sqrt(x), math.Sqrt(y)
		return -1 / (sx * sy * (sx + sy))
	}
	d := x - y
	switch {
	case d == 0:
		return f.p * powPos(x, f.p-1)
	case farApart(x, y):
		return (powPos(x, f.p) - powPos(y, f.p)) / d
	}
	t := math.Log1p(d / y)
	return powPos(y, f.p) * math.Expm1(f.p*t) / d
}

type userFunc struct {
	f, df    func(float64) float64
	positive bool
}

func (u userFunc) Eval(x float64) float64 { return u.f(x) }
func (u userFunc) Positive() bool         { return u.positive }

// cbrtEps is ε^⅓, the switch between quotient and derivative mean.
var cbrtEps = math.Cbrt(0x1p-52)

func (u userFunc) DivDiff(x, y float64) float64 {
	d := x - y
	if math.Abs(d) <= cbrtEps*max(math.Abs(x), math.Abs(y)) {
		return 0.5 * (u.df(x) + u.df(y))
	}
	return (u.f(x) - u.f(y)) / d
}
