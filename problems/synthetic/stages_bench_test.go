package synthetic_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// mamRoutes are the two ways GradGy and HessGyInv form M A M, by the
// cutoff that selects them: two general products, or the Gram matrix
// (laᵀM)ᵀ(laᵀM).
var mamRoutes = []struct {
	name   string
	cutoff int
}{{"products", math.MaxInt}, {"gram", 0}}

// alternate runs each of fns once per iteration, in turn, and reports the
// minimum and the median time of each as name-min-ms and name-med-ms,
// and the median over iterations of each one's time over the first's in
// the same iteration as name/first: on a shared, noisy machine the
// interleaved minima and ratios compare the variants where
// one-after-the-other runs do not.
// fromStart resets r to (x, y) and runs one stage from there: an epoch
// ("epoch") or the hypergradient estimate (any other stage).
func fromStart(r *solver.RHGD, x, y []float64, stage string) error {
	if err := r.Reset(x, y); err != nil {
		return err
	}
	var err error
	if stage == "epoch" {
		_, err = r.Step()
	} else {
		_, err = r.Hypergradient(false)
	}
	return err
}

func alternate(b *testing.B, names []string, fn func(i int) error) {
	ts := make([][]time.Duration, len(names))
	rs := make([][]float64, len(names))
	for b.Loop() {
		for i := range names {
			t0 := time.Now()
			if err := fn(i); err != nil {
				b.Fatal(err)
			}
			ts[i] = append(ts[i], time.Since(t0))
			rs[i] = append(rs[i], float64(ts[i][len(ts[i])-1])/float64(ts[0][len(ts[0])-1]))
		}
	}
	for i, n := range names {
		slices.Sort(ts[i])
		slices.Sort(rs[i])
		b.ReportMetric(float64(ts[i][0])/1e6, n+"-min-ms")
		b.ReportMetric(float64(ts[i][len(ts[i])/2])/1e6, n+"-med-ms")
		if i > 0 {
			b.ReportMetric(rs[i][len(rs[i])/2], n+"/"+names[0])
		}
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEpochStages times the stages of a HINV epoch at d = 1000
// (r = 400, n = 2000) with each way of forming M A M, interleaved (see
// alternate), and one d×d GEMM (2d³ flops), the rate against which the
// stages' flop floors are read: stage=lowerstep is one lower step (GradGy
// and the SPD retraction, at a new M; an epoch has S = 20), stage=estimate
// the HINV estimate at a new point, stage=epoch a whole epoch from the same
// point (the upper step is the rest).
//
//	go test -run '^$' -bench EpochStages -benchtime 5x ./problems/synthetic
//
// On the shared 2-core EPYC (2026-11-25, beside other work; min/median
// ms): gemm 22.6/41.1; lowerstep products 110/170, gram 90/132 (floors
// 6.33d³ and 4.33d³: GradGy 4d³ or 2d³, the retraction's solve, rank-k
// update and Cholesky 2.33d³); estimate products 873/883, gram 770/857
// (16d³ and L⁻¹, or 11d³, in HessGyInv, besides dsyevd and the upper gradients);
// epoch products 4560/5145, gram 3228/3690.
func BenchmarkEpochStages(b *testing.B) {
	const d = 1000
	sp, p, w, m0 := setup(b, 2*d, d, 2*d/5)
	offIdentity(b, sp, m0, 3)
	names := []string{"gemm"}
	for _, r := range mamRoutes {
		names = append(names, r.name)
	}
	c := make([]float64, d*d)
	gemm := func() { blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, m0, d, m0, d, 0, c, d) }
	b.Run("stage=lowerstep", func(b *testing.B) {
		g, m := make([]float64, d*d), make([]float64, d*d)
		xid := solver.NewID()
		alternate(b, names, func(i int) error {
			if i == 0 {
				gemm()
				return nil
			}
			defer synthetic.SetMAMGramCutoff(mamRoutes[i-1].cutoff)()
			if err := p.GradGy(g, &solver.Point{X: w, Y: m0, XID: xid, YID: solver.NewID()}); err != nil {
				return err
			}
			return sp.SPD.Retract(m, m0, g, -0.5)
		})
	})
	s := paperSettings
	est, err := synthetic.Paper.Estimator("hinv")
	testkit.Must(b, err)
	s.Estimator = est
	r, err := solver.New(p, &s)
	testkit.Must(b, err)
	for _, stage := range []string{"estimate", "epoch"} {
		b.Run("stage="+stage, func(b *testing.B) {
			alternate(b, names, func(i int) error {
				if i == 0 {
					gemm()
					return nil
				}
				defer synthetic.SetMAMGramCutoff(mamRoutes[i-1].cutoff)()
				return fromStart(r, w, m0, stage)
			})
		})
	}
}

// metricOnly hides the lower manifold's Whiten: CG and NS then take the
// metric's inner products, as before they whitened.
type metricOnly struct{ solver.Manifold }

// BenchmarkEpochStageFloors times each stage of an epoch at the benchmark
// report's sizes (d = 1000, n = 2d, r = d/2.5, S = 20 lower steps),
// interleaved, beside one d×d GEMM (2d³ flops), the rate against which
// each stage's flop floor is read (name-gemms: the median over rounds of
// the stage's time over the same round's GEMM). lowerstep is one lower
// step (GradGy and the SPD retraction) from the last one's result at a
// fixed W, as in the lower loop (floor 4.33d³: the Gram product 2d³,
// alone as mam, and the retraction's solve, rank-k update and Cholesky
// 2.33d³); hinv, cg and ns are the paper's estimates at a new point (11d³
// besides the eigendecomposition; 3d³ per CG iteration, of which 2d³ is
// HessGy; 2d³ per Neumann term and 3d³ per power step), and epoch a whole
// HINV epoch from the same point, whose rest is the upper step.
// lowerstep32 and epoch32 are the same with float32 lower steps
// (SetLowerFloat32Steps: every step, and S−1 of each epoch's); cg-metric
// and ns-metric are CG and NS with the metric's inner products instead of
// whitened ones; dtrmm, dsyrk, strmm and ssyrk GradGy's kernels alone,
// sgemm a float32 GEMM.
//
//	go test -run '^$' -bench EpochStageFloors -benchtime 3x ./problems/synthetic
func BenchmarkEpochStageFloors(b *testing.B) {
	const d = 1000
	sp, p, w, m0 := setup(b, 2*d, d, 2*d/5)
	offIdentity(b, sp, m0, 3)
	sp32, _, _, _ := setup(b, 2*d, d, 2*d/5)
	testkit.Must(b, sp32.SetLowerFloat32Steps(paperSettings.InnerIters-1))
	p32 := sp32.Bilevel()
	c := make([]float64, d*d)
	m32, c32 := make([]float32, d*d), make([]float32, d*d)
	for i, v := range m0 {
		m32[i] = float32(v)
	}
	// The lower-step stages run on problems of their own, so that B(W)
	// and the factor of each step's start stay cached as in a lower loop:
	// each step starts from the last one's result.
	g := make([]float64, d*d)
	xid := solver.NewID()
	_, pl, _, _ := setup(b, 2*d, d, 2*d/5)
	spl32, _, _, _ := setup(b, 2*d, d, 2*d/5)
	testkit.Must(b, spl32.SetLowerFloat32Steps(math.MaxInt))
	pl32 := spl32.Bilevel()
	ml, ml32 := [2][]float64{slices.Clone(m0), make([]float64, d*d)}, [2][]float64{slices.Clone(m0), make([]float64, d*d)}
	step := func(p solver.Problem, m [2][]float64) error {
		if err := p.GradGy(g, &solver.Point{X: w, Y: m[0], XID: xid, YID: solver.NewID()}); err != nil {
			return err
		}
		if err := p.My.Retract(m[1], m[0], g, -0.5); err != nil {
			return err
		}
		copy(m[0], m[1])
		return nil
	}
	runners := map[string]*solver.RHGD{}
	for _, name := range []string{"hinv", "cg", "ns", "hinv32", "cg-metric", "ns-metric"} {
		s := paperSettings
		est, err := synthetic.Paper.Estimator(strings.TrimSuffix(strings.TrimSuffix(name, "32"), "-metric"))
		testkit.Must(b, err)
		s.Estimator = est
		pr := p
		switch {
		case name == "hinv32":
			pr = p32
		case strings.HasSuffix(name, "-metric"): // the metric's inner products
			pr.My = metricOnly{p.My}
		}
		r, err := solver.New(pr, &s)
		testkit.Must(b, err)
		runners[name] = r
	}
	stages := []struct {
		name string
		fn   func() error
	}{
		{"gemm", func() error {
			blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, m0, d, m0, d, 0, c, d)
			return nil
		}},
		{"sgemm", func() error {
			blas.Impl32().Sgemm(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, m32, d, m32, d, 0, c32, d)
			return nil
		}},
		{"dtrmm", func() error { // GradGy's kernels alone, d³ flops each
			copy(c, m0)
			blas.Impl().Dtrmm(gblas.Left, gblas.Lower, gblas.Trans, gblas.NonUnit, d, d, 1, sp.A, d, c, d)
			return nil
		}},
		{"dsyrk", func() error {
			blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, d, d, 1, m0, d, 0, c, d)
			return nil
		}},
		{"strmm", func() error {
			copy(c32, m32)
			blas.Impl32().Strmm(gblas.Left, gblas.Lower, gblas.Trans, gblas.NonUnit, d, d, 1, m32, d, c32, d)
			return nil
		}},
		{"ssyrk", func() error {
			blas.Impl32().Ssyrk(gblas.Upper, gblas.Trans, d, d, 1, m32, d, 0, c32, d)
			return nil
		}},
		{"mam", func() error { // GradGy's Gram product alone
			synthetic.MAMUpper(sp, c, m0)
			return nil
		}},
		{"lowerstep", func() error { return step(pl, ml) }},
		{"lowerstep32", func() error { return step(pl32, ml32) }},
	}
	for _, name := range []string{"hinv", "cg", "cg-metric", "ns", "ns-metric"} {
		r := runners[name]
		stages = append(stages, struct {
			name string
			fn   func() error
		}{name, func() error { return fromStart(r, w, m0, "estimate") }})
	}
	// epoch is one epoch of the named runner from the start.
	epoch := func(runner string) func() error {
		return func() error { return fromStart(runners[runner], w, m0, "epoch") }
	}
	stages = append(stages, struct {
		name string
		fn   func() error
	}{"epoch", epoch("hinv")}, struct {
		name string
		fn   func() error
	}{"epoch32", epoch("hinv32")})
	// Each stage's median time, and the median over rounds of its time
	// over the same round's GEMM (name-gemms): the load of a shared
	// machine moves both alike.
	ts := make([][]float64, len(stages))
	rs := make([][]float64, len(stages))
	for b.Loop() {
		var tg float64
		for i, st := range stages {
			t0 := time.Now()
			if err := st.fn(); err != nil {
				b.Fatal(err)
			}
			el := float64(time.Since(t0)) / 1e6
			if i == 0 {
				tg = el
			}
			ts[i] = append(ts[i], el)
			rs[i] = append(rs[i], el/tg)
		}
	}
	for i, st := range stages {
		slices.Sort(ts[i])
		slices.Sort(rs[i])
		b.ReportMetric(ts[i][len(ts[i])/2], st.name+"-med-ms")
		if i > 0 {
			b.ReportMetric(rs[i][len(rs[i])/2], st.name+"-gemms")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEpoch32Eig times the HINV estimate and a HINV epoch with
// float32 lower steps (SetLowerFloat32Steps(S−1), the report's hinv32
// case) at d = 1000 with each eigensolver HessGyInv could take there,
// interleaved (see alternate): float64 is dsyevd (EigSym), refined
// float32 ssyevd refined to float64 (lapackx.RefinedEigSym), float32
// ssyevd alone (lapackx.EigSym32) with the rest of the estimate in
// float64, and float32tail, the mixed mode's, also its congruences
// (hinvTail32).
//
//	go test -run '^$' -bench Epoch32Eig -benchtime 5x ./problems/synthetic
func BenchmarkEpoch32Eig(b *testing.B) {
	const d = 1000
	names := []string{"float64", "refined", "float32", "float32tail"}
	var runners []*solver.RHGD
	var w, m0 []float64
	for _, name := range names {
		sp, _, w1, m1 := setup(b, 2*d, d, 2*d/5)
		offIdentity(b, sp, m1, 3)
		w, m0 = w1, m1
		testkit.Must(b, sp.SetLowerFloat32Steps(paperSettings.InnerIters-1))
		synthetic.SetMixedEig(sp, strings.TrimSuffix(name, "tail"))
		synthetic.SetMixedTail(sp, name == "float32tail")
		s := paperSettings
		est, err := synthetic.Paper.Estimator("hinv")
		testkit.Must(b, err)
		s.Estimator = est
		r, err := solver.New(sp.Bilevel(), &s)
		testkit.Must(b, err)
		runners = append(runners, r)
	}
	for _, stage := range []string{"estimate", "epoch"} {
		b.Run("stage="+stage, func(b *testing.B) {
			alternate(b, names, func(i int) error {
				r := runners[i]
				return fromStart(r, w, m0, stage)
			})
		})
	}
}
