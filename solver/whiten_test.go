package solver_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// TestWhitenedEstimators: CG and Neumann with whitened inner products (the
// lower manifold is a solver.Whitener, SPD) give the hypergradient and f
// of the metric's own inner products up to rounding, after a lower loop and
// after ten epochs, at an order where M A M is two products (12) and one
// where it is a Gram matrix (120).
func TestWhitenedEstimators(t *testing.T) {
	// A CG stopped by its tolerance may stop one iteration apart: its
	// solutions then agree to the tolerance (1e-10, times H's condition),
	// not to rounding; with a fixed count they agree to rounding.
	specs := []struct {
		spec string
		tol  float64
	}{{"cg:maxiter=6,tol=1e-300", 1e-13}, {"ns:gamma=1,terms=30", 1e-13}, {"ns:terms=20,damping=1e-3", 1e-13},
		{"cg:maxiter=50,tol=1e-10", 1e-8}, {"cg:damping=auto", 1e-8}}
	for _, d := range []int{12, 120} {
		data, err := synthetic.Generate(2*d, d, d/3, 0.01, 5)
		require.NoError(t, err)
		run := func(spec string, noWhiten bool, epochs int) (hg []float64, f float64) {
			defer solver.SetNoWhiten(noWhiten)()
			p, err := synthetic.New(data)
			require.NoError(t, err)
			w, m := p.Start(3)
			est, err := solver.ParseEstimator(spec)
			require.NoError(t, err)
			s := synthetic.Paper.Settings
			s.Estimator, s.Epochs = est, epochs
			r, err := solver.New(p.Bilevel(), &s)
			require.NoError(t, err)
			require.NoError(t, r.Reset(w, m))
			for range epochs {
				_, err := r.Step()
				require.NoError(t, err)
			}
			g, err := r.Hypergradient(true)
			require.NoError(t, err)
			f, err = p.F(&solver.Point{X: r.X(), Y: r.Y(), XID: solver.NewID(), YID: solver.NewID()})
			require.NoError(t, err)
			return append([]float64(nil), g...), f
		}
		for _, c := range specs {
			spec := c.spec
			for _, epochs := range []int{0, 10} {
				hg, f := run(spec, false, epochs)
				hg0, f0 := run(spec, true, epochs)
				rel := floats.Distance(hg, hg0, 2) / floats.Norm(hg0, 2)
				require.Less(t, rel, c.tol, "d=%d %s after %d epochs: hypergradient differs by %.3g (relative)", d, spec, epochs, rel)
				require.InDelta(t, f0, f, c.tol*max(1, -f0), "d=%d %s after %d epochs: f", d, spec, epochs)
				t.Logf("d=%d %-24s epochs=%2d: relative hypergradient difference %.2g, f %.17g vs %.17g", d, spec, epochs, rel, f, f0)
			}
		}
	}
}
