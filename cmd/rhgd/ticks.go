package main

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// The tick markers of the plots: at least three labelled ticks on every
// axis, at round values, all labels of an axis in one number format.
// gonum's defaults label 0/90/180 on a 200-epoch axis, one decade or none
// on a log axis spanning less than two, and mix "0.0001" with "1e-05".

// minLabels and maxLabels bound the labelled ticks of an axis.
const minLabels, maxLabels = 3, 8

// linearTicks marks a linear axis at the multiples of 1, 2 or 5 × 10^k
// that give at least four labels in [min, max].
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	step := linearStep(min, max)
	var vals []float64
	for i := math.Ceil(min/step - 1e-9); i*step <= max+step*1e-9; i++ {
		v := i * step
		if i == 0 {
			v = 0 // not −0
		}
		vals = append(vals, v)
	}
	ticks := labelled(vals)
	minor := step / 5
	if m := mantissa(step); m == 2 {
		minor = step / 4
	}
	for i := math.Ceil(min/minor - 1e-9); i*minor <= max+minor*1e-9; i++ {
		if v := i * minor; !near(v, vals, minor/2) {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// linearStep is the largest step 1, 2 or 5 × 10^k with at least four
// multiples in [min, max] (min < max).
func linearStep(min, max float64) float64 {
	step := math.Pow(10, math.Ceil(math.Log10(max-min)))
	for range 40 { // a range of 10⁻¹² of its values or more is found by 13
		for _, f := range []float64{1, 0.5, 0.2} {
			if s := step * f; count(min, max, s) >= minLabels+1 {
				return s
			}
		}
		step /= 10
	}
	return (max - min) / minLabels
}

// count is the number of multiples of step in [min, max].
func count(min, max, step float64) int {
	return int(math.Floor(max/step+1e-9) - math.Ceil(min/step-1e-9) + 1)
}

// bracket returns the multiples of the axis's label step at or just
// outside [min, max], so that a linear axis starts and ends at a label.
func bracket(min, max float64) (float64, float64) {
	if !(max > min) {
		return min, max
	}
	step := linearStep(min, max)
	return math.Floor(min/step+1e-9) * step, math.Ceil(max/step-1e-9) * step
}

// logTicks marks a logarithmic axis (min > 0): the powers of ten (every
// second or more when there are many), or 1, 2, 5 × 10^k, or 1…9 × 10^k,
// whichever first gives three labels in [min, max]; over less than a
// decade, or when none does, the linear ticks.
type logTicks struct{}

// logMantissas are the label sets of a log axis, sparsest first.
var logMantissas = [][]float64{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}

// logMajor returns the labelled values of a log axis over [min, max] and
// the mantissas they were chosen from, or nil for less than a decade or
// when fewer than three values 1…9 × 10^k lie in the range.
func logMajor(min, max float64) (major, mantissas []float64) {
	if max < 10*min { // less than a decade: the linear ticks read better
		return nil, nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	for _, ms := range logMantissas {
		major = major[:0]
		for k := lo; k <= hi; k++ {
			for _, m := range ms {
				if v := m * math.Pow(10, float64(k)); inLog(v, min, max) {
					major = append(major, v)
				}
			}
		}
		if len(major) >= minLabels {
			for len(major) > maxLabels { // many decades: every other label, from the top
				var thin []float64
				for i := len(major) - 1; i >= 0; i -= 2 {
					thin = append([]float64{major[i]}, thin...)
				}
				major = thin
			}
			return major, ms
		}
	}
	return nil, nil
}

func inLog(v, min, max float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return linearTicks{}.Ticks(min, max)
	}
	major, _ := logMajor(min, max)
	if major == nil {
		return linearTicks{}.Ticks(min, max)
	}
	ticks := labelled(major)
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	for k := lo; k <= hi; k++ {
		for m := 1; m <= 9; m++ {
			if m > 1 && hi-lo > 12 { // minor ticks at every m × 10^k would blacken the axis
				break
			}
			if v := float64(m) * math.Pow(10, float64(k)); inLog(v, min, max) && !near(v, major, v*1e-9) {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// logBracket returns the label values of a log axis at or just outside
// [min, max] (min > 0), so that the axis starts and ends at a label.
func logBracket(min, max float64) (float64, float64) {
	if !(min > 0) || !(max > min) {
		return min, max
	}
	_, ms := logMajor(min, max)
	if ms == nil {
		lo, hi := bracket(min, max)
		if lo <= 0 {
			lo = min
		}
		return lo, hi
	}
	k := math.Floor(math.Log10(min))
	lo := math.Pow(10, k) // 1 × 10^k ≤ min
	for _, m := range ms {
		if v := m * math.Pow(10, k); v <= min*(1+1e-9) {
			lo = v
		}
	}
	k = math.Floor(math.Log10(max))
	hi := math.Pow(10, k+1)
	for i := len(ms) - 1; i >= 0; i-- {
		if v := ms[i] * math.Pow(10, k); v >= max*(1-1e-9) {
			hi = v
		}
	}
	return lo, hi
}

// mantissa returns m of v = m × 10^k, 1 ≤ m < 10, rounded to the nearest
// integer when within rounding of one.
func mantissa(v float64) float64 {
	v = math.Abs(v)
	if v == 0 {
		return 0
	}
	m := v / math.Pow(10, math.Floor(math.Log10(v)))
	if r := math.Round(m); math.Abs(m-r) < 1e-9*r {
		m = r
	}
	if m >= 10 {
		m /= 10
	}
	return m
}

func near(v float64, vals []float64, tol float64) bool {
	for _, u := range vals {
		if math.Abs(u-v) <= tol {
			return true
		}
	}
	return false
}

// labelled returns ticks at vals with labels in one format: fixed-point
// with the same number of decimals when every value is 0 or between 10⁻³
// and 10⁵ in magnitude, else m×10^{k} (in the scripts handler's syntax).
func labelled(vals []float64) []plot.Tick {
	ticks := make([]plot.Tick, len(vals))
	fixed, decimals := true, 0
	for _, v := range vals {
		a := math.Abs(v)
		if v != 0 && (a < 1e-3 || a >= 1e5) {
			fixed = false
		}
		s := strconv.FormatFloat(roundSig(v), 'f', -1, 64)
		if _, frac, ok := strings.Cut(s, "."); ok {
			decimals = max(decimals, len(frac))
		}
	}
	for i, v := range vals {
		label := powerLabel(v)
		if fixed {
			label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ticks[i] = plot.Tick{Value: v, Label: strings.Replace(label, "-", "−", 1)}
	}
	return ticks
}

// roundSig rounds v to 12 significant digits, removing the noise that
// i·step leaves in the last bits (0.30000000000000004).
func roundSig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// powerLabel writes v as m×10^{k}, or 10^{k} when m is 1.
func powerLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	k := int(math.Floor(math.Log10(math.Abs(v))))
	m := roundSig(v / math.Pow(10, float64(k)))
	if math.Abs(m) >= 10 {
		m /= 10
		k++
	}
	exp := "10^{" + strings.Replace(strconv.Itoa(k), "-", "−", 1) + "}"
	switch m {
	case 1:
		return exp
	case -1:
		return "-" + exp
	}
	return strconv.FormatFloat(m, 'g', -1, 64) + "×" + exp
}
