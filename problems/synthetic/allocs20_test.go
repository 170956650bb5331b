package synthetic_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// TestGramRouteAllocs: GradGy and HessGyInv on their Gram route (from
// mamGramCutoff: M A M by trmm and syrk, the reductions by
// lapackx.ReduceSym, L Q by trmm) allocate nothing in the steady state,
// at a point the Problem keeps (its factor and A M reused) and at a point
// without identity (everything recomputed): at d = 100, where the route
// starts, and at d = 12 with the route forced.
func TestGramRouteAllocs(t *testing.T) {
	testkit.SkipRace(t)
	for _, c := range []struct{ d, cutoff int }{{12, 0}, {100, -1}} {
		func() {
			if c.cutoff >= 0 {
				defer synthetic.SetMAMGramCutoff(c.cutoff)()
			}
			d := c.d
			sp, p, w, m := setup(t, 2*d, d, max(1, d*2/5))
			rnd := offIdentity(t, sp, m, 5)
			v := make([]float64, d*d)
			sp.SPD.RandTangent(v, m, rnd)
			g, h := make([]float64, d*d), make([]float64, d*d)
			kept := &solver.Point{X: w, Y: m, XID: 1, YID: 1}
			for name, pt := range map[string]*solver.Point{"kept": kept, "anonymous": testkit.At(w, m)} {
				op := func() {
					if err := p.GradGy(g, pt); err != nil {
						t.Fatal(err)
					}
					if err := p.HessGyInv(h, pt, v); err != nil {
						t.Fatal(err)
					}
				}
				op()
				require.Zero(t, testing.AllocsPerRun(5, op), "d=%d %s point", d, name)
			}
		}()
	}
}
