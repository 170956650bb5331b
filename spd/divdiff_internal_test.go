package spd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDD2Branches: dd2's two formulas agree where both are accurate:
// the recurrence (E_bc − E_ab)/(c − a) and the series, summed to 40
// terms, for triples spanning [½, 2), across the switch at 1.
func TestDD2Branches(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	p := &eigPoint{ell: make([]float64, 3), lam: make([]float64, 3), d: make([]float64, 9)}
	worst := 0.0
	for range 2000 {
		span := 0.5 + 1.5*rnd.Float64()
		c := 4 * rnd.NormFloat64()
		p.ell[0], p.ell[1], p.ell[2] = c, c+span*rnd.Float64(), c+span
		s := &SPD{n: 3, metric: LogEuclidean}
		for i := range p.lam {
			p.lam[i] = math.Exp(p.ell[i])
		}
		s.fillD(p)
		// the series about ℓ_1 to 40 terms
		al, ga := p.ell[0]-p.ell[1], p.ell[2]-p.ell[1]
		h, ap, sum, f := 1.0, 1.0, 0.5, 0.5
		for m := 1; m < 40; m++ {
			ap *= al
			h = ga*h + ap
			f /= float64(m + 2)
			sum += h * f
		}
		series := p.lam[1] * sum
		rec := (p.d[1*3+2] - p.d[0*3+1]) / (p.ell[2] - p.ell[0])
		got := dd2(p, 3, 0, 1, 2)
		for _, v := range []float64{got, dd2(p, 3, 2, 0, 1), dd2(p, 3, 1, 2, 0)} {
			require.Equal(t, got, v, "dd2 symmetric in its arguments")
		}
		e := math.Abs(series-rec) / series
		worst = math.Max(worst, e)
		require.Less(t, e, 1e-14, "span %v", span)
		require.Less(t, math.Abs(got-series)/series, 1e-14, "span %v", span)
	}
	t.Logf("series vs recurrence, spans in [½, 2): max relative difference %.2e", worst)
}

// TestSecondDDPaths: secondDD's products for the separated pairs agree
// with dd2's sums over k for every pair, entry by entry relative to the
// sum of the terms' moduli, at points with condition numbers up to 10²⁴.
func TestSecondDDPaths(t *testing.T) {
	const n = 24
	rnd := rand.New(rand.NewPCG(6, 6))
	for _, spread := range []float64{1, 4, 12} {
		s := NewMetric(n, LogEuclidean)
		x, a, b := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		// X = Qᵀ diag(e^ℓ) Q with ℓ uniform in ±spread·ln 10
		s.RandPoint(x, rnd)
		p, err := s.pointEig(x)
		require.NoError(t, err)
		for i := range p.ell {
			p.ell[i] = spread * math.Ln10 * (2*rnd.Float64() - 1)
			p.lam[i] = math.Exp(p.ell[i])
		}
		s.fillD(p)
		for i := range a {
			a[i], b[i] = rnd.NormFloat64(), rnd.NormFloat64()
		}
		symPart(a, n)
		symPart(b, n)
		got := append([]float64(nil), s.secondDD(s.mw.sc[2], p, a, b)...)
		old := pairSep
		pairSep = math.Inf(1)
		want := s.secondDD(s.mw.sc[2], p, a, b)
		pairSep = old
		// each entry's error relative to Σ_k exp[ℓ_i, ℓ_k, ℓ_j]·|A_ik B_kj + B_ik A_kj|
		e := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var scale float64
				for k := 0; k < n; k++ {
					scale += dd2(p, n, i, k, j) * math.Abs(a[i*n+k]*b[k*n+j]+b[i*n+k]*a[k*n+j])
				}
				e = math.Max(e, math.Abs(got[i*n+j]-want[i*n+j])/scale)
			}
		}
		t.Logf("condition 10^%v: products vs sums, entrywise %.2e relative", 2*spread, e)
		require.Less(t, e, 1e-13)
	}
}
