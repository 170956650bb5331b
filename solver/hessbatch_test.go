package solver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// batchCalls counts a batched Hessian's calls and the single products
// made around it.
type batchCalls struct{ batch, single int }

// loopBatch returns a HessGyBatch that computes its k products by k calls
// of hess, row by row (each product is then bitwise the one hess gives),
// counting them in c.batch, and hess counting its own calls in c.single.
// Neither allocates.
func loopBatch(hess func([]float64, *solver.Point, []float64) error, n int, c *batchCalls) (
	single func([]float64, *solver.Point, []float64) error, batch func([]float64, *solver.Point, []float64, int) error) {
	single = func(dst []float64, pt *solver.Point, v []float64) error {
		c.single++
		return hess(dst, pt, v)
	}
	batch = func(dst []float64, pt *solver.Point, v []float64, k int) error {
		c.batch++
		for i := range k {
			if err := hess(dst[i*n:(i+1)*n], pt, v[i*n:(i+1)*n]); err != nil {
				return err
			}
		}
		return nil
	}
	return single, batch
}

// withBatch returns p with HessGyBatch built from its HessGy by loopBatch
// (a Riemannian batch), and p's HessGy counted.
func withBatch(p solver.Problem, c *batchCalls) solver.Problem {
	p.HessGy, p.HessGyBatch = loopBatch(p.HessGy, p.My.Len(), c)
	return p
}

// withEuclideanBatch returns the problem Euclidean makes of e with a
// Euclidean HessGyBatch built from e.HessGy by loopBatch, which Euclidean
// converts row by row.
func withEuclideanBatch(e solver.EuclideanProblem, c *batchCalls) solver.Problem {
	e.HessGy, e.HessGyBatch = loopBatch(e.HessGy, e.My.Len(), c)
	return solver.Euclidean(e)
}

// TestHInvDerivedBatch: on problems whose HessGyBatch computes each row as
// HessGy does, HINV's derived inverse with the batch gives bitwise the
// hypergradients and iterates of the run without it, with the same count
// of Hessian products (D per point), one HessGyBatch call per point and
// no HessGy call; on the synthetic problem (SPD(6), whitened, and again
// through the metric's inner products), the Brockett problem (Stiefel(5,
// 2), a Euclidean batch converted row by row), SPD(3) × R² (a product,
// converted likewise) and hyperrep (a Euclidean lower level: the identity
// basis as the batch's rows). Bitwise, not to a tolerance: the batch's
// rows are the numbers D HessGy calls give, and the derivation consumes
// them in the same order by the same arithmetic.
func TestHInvDerivedBatch(t *testing.T) {
	sp := smallSynthetic(t, 6, 3)
	sx, sy := sp.Start(3)
	hp := smallHyperrep(t, hyperrep.Sizes{N: 40, D: 8, K: 3, NTrain: 20, Noise: 1})
	hx, hy := hp.Start(3)
	bk, se := newBrockett(5), newSPDEuclid(6)
	bx := []float64{0.2, -0.1, 0.15}
	cases := []struct {
		name     string
		make     func(c *batchCalls) solver.Problem // nil c: no batch
		x, y     []float64
		settings solver.Settings
		noWhiten bool
	}{
		{"synthetic SPD(6)", func(c *batchCalls) solver.Problem {
			p := sp.Bilevel()
			p.HessGyInv = nil
			if c == nil {
				return p
			}
			return withBatch(p, c)
		}, sx, sy, synthetic.Paper.Settings, false},
		{"Stiefel(5, 2)", func(c *batchCalls) solver.Problem {
			if c == nil {
				return bk.problem()
			}
			return withEuclideanBatch(bk.euclidean(), c)
		}, bx, bk.ystar(bx, bk.ref), solver.Settings{EtaX: 0.1, EtaY: 0.05, InnerIters: 5}, false},
		{"SPD(3) × R²", func(c *batchCalls) solver.Problem {
			if c == nil {
				return se.problem()
			}
			return withEuclideanBatch(se.euclidean(), c)
		}, bx, se.ystar(bx), solver.Settings{EtaX: 0.1, EtaY: 0.05, InnerIters: 5}, false},
		{"hyperrep (Euclidean)", func(c *batchCalls) solver.Problem {
			p := hp.Bilevel()
			p.HessGyInv = nil
			if c == nil {
				return p
			}
			return withBatch(p, c)
		}, hx, hy, hyperrep.Paper.Settings, false},
	}
	cases = append(cases, cases[0])
	cases[len(cases)-1].name += ", metric inner products"
	cases[len(cases)-1].noWhiten = true
	const epochs = 4
	for _, c := range cases {
		func() {
			if c.noWhiten {
				defer solver.SetNoWhiten(true)()
			}
			run := func(p solver.Problem) *solver.Result {
				s := c.settings
				s.Estimator, s.Epochs = solver.HInv{}, epochs
				res, err := solver.Minimize(context.Background(), p, c.x, c.y, &s)
				require.NoError(t, err, c.name)
				return res
			}
			var calls batchCalls
			q := c.make(&calls)
			require.True(t, q.Has(solver.OracleHessGyBatch), c.name)
			want, got := run(c.make(nil)), run(q)
			d := q.My.Dim()
			require.Equal(t, want.X, got.X, "%s: iterates", c.name)
			require.Equal(t, want.Y, got.Y, "%s: iterates", c.name)
			assert.Equal(t, want.Stats.HessVecs, got.Stats.HessVecs, "%s: products", c.name)
			assert.Zero(t, got.Stats.HessVecs%d, c.name)
			points := got.Stats.HessVecs / d
			assert.GreaterOrEqual(t, points, epochs, c.name)
			assert.Equal(t, points, calls.batch, "%s: one HessGyBatch call per point", c.name)
			assert.Zero(t, calls.single, "%s: no HessGy call", c.name)

			// One estimate: bitwise the hypergradient of the run without it.
			est := func(p solver.Problem) []float64 {
				r, err := solver.New(p, &solver.Settings{Estimator: solver.HInv{}, InnerIters: 1, EtaY: 1e-300})
				require.NoError(t, err, c.name)
				hg, err := r.Estimate(c.x, c.y)
				require.NoError(t, err, c.name)
				return hg
			}
			calls = batchCalls{}
			assert.Equal(t, est(c.make(nil)), est(c.make(&calls)), "%s: estimate", c.name)
			assert.Equal(t, batchCalls{batch: 1}, calls, c.name)
		}()
	}
}

// TestHInvDerivedBatchAllocs: on a curved lower level whose Euclidean
// batch Euclidean converts, epochs of the derived HINV through
// HessGyBatch allocate no more than without it (TestHInvDerivedAllocs
// covers the SPD and Euclidean cases, with none).
func TestHInvDerivedBatchAllocs(t *testing.T) {
	var calls batchCalls
	bk := newBrockett(5)
	bx := []float64{0.2, -0.1, 0.15}
	r, err := solver.New(withEuclideanBatch(bk.euclidean(), &calls),
		&solver.Settings{Estimator: solver.HInv{}, EtaX: 0.1, EtaY: 0.05, InnerIters: 5})
	require.NoError(t, err)
	// The Brockett oracles' own gonum matrices allocate; count the
	// batch's conversion and the derivation only by comparing with the
	// same run without HessGyBatch.
	without, err := solver.New(bk.problem(), &solver.Settings{Estimator: solver.HInv{}, EtaX: 0.1, EtaY: 0.05, InnerIters: 5})
	require.NoError(t, err)
	y0 := bk.ystar(bx, bk.ref)
	assert.LessOrEqual(t, stepAllocs(t, r, bx, y0, 5), stepAllocs(t, without, bx, y0, 5), "Stiefel")
}

// TestCheckProblemHessGyBatch: CheckProblem passes a HessGyBatch whose
// rows are HessGy's, and fails one with a planted error in a row (1e-3
// relative) and one on a problem without HessGy to compare it with.
func TestCheckProblemHessGyBatch(t *testing.T) {
	bk := newBrockett(5)
	x := []float64{0.2, -0.1, 0.15}
	y := bk.ystar(x, bk.ref)
	report := func(p solver.Problem) solver.CheckReport {
		var found []solver.CheckReport
		for _, r := range solver.CheckProblem(p, x, y, nil) {
			if strings.HasPrefix(r.Name, "HessGyBatch") {
				found = append(found, r)
			}
		}
		require.Len(t, found, 1)
		return found[0]
	}
	var calls batchCalls
	good := withEuclideanBatch(bk.euclidean(), &calls)
	r := report(good)
	assert.True(t, r.OK, r.Msg)
	assert.Equal(t, 1, calls.batch)

	bad := good
	n := good.My.Len()
	bad.HessGyBatch = func(dst []float64, pt *solver.Point, v []float64, k int) error {
		if err := good.HessGyBatch(dst, pt, v, k); err != nil {
			return err
		}
		dst[(k-1)*n] += 1e-3 * dst[(k-1)*n] // the last row's first entry
		return nil
	}
	r = report(bad)
	assert.False(t, r.OK)
	assert.Contains(t, r.Msg, "vs HessGy")

	alone := good
	alone.HessGy = nil
	r = report(alone)
	assert.False(t, r.OK)
	assert.Contains(t, r.Msg, "not run")
}
