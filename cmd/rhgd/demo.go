package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// demoResult is one estimator's run.
type demoResult struct {
	name          string
	trace         []float64 // f(x_k, y_{k+1}) per epoch
	f, hgNorm     float64   // last epoch's
	errVsHINV     float64   // ‖ĝrad − ĝrad_HINV‖/‖ĝrad_HINV‖ at the last epoch's point
	msPerEpoch    float64
	allocsPerStep float64
	status        solver.Status
}

// traceRecorder keeps f per epoch in a preallocated slice.
type traceRecorder struct{ f []float64 }

func (t *traceRecorder) Record(s *solver.EpochStats) error {
	t.f = append(t.f, s.F)
	return nil
}

// demo runs RHGD on the paper's synthetic problem (n=100, d=50, r=20,
// seed 42) with each estimator for the given epochs, and prints the final
// upper objective, hypergradient norm, hypergradient error against HINV
// at the same point, time and allocations per epoch, then the upper
// objective along the way.
func demo(w io.Writer, epochs int) error {
	inf := info()
	fmt.Fprintf(w, "rhgd demo: the paper's synthetic bilevel problem (Sec. 4.1) on St(%d,%d) × SPD(%d), n = %d, ν = %g\n",
		synthetic.PaperD, synthetic.PaperR, synthetic.PaperD, synthetic.PaperN, synthetic.PaperNu)
	fmt.Fprintf(w, "backend %s, %d threads; η_x = η_y = 0.5, S = 20, %d epochs\n\n", inf.Backend, inf.Threads, epochs)
	data, err := synthetic.Generate(synthetic.PaperN, synthetic.PaperD, synthetic.PaperR, synthetic.PaperNu, 42)
	if err != nil {
		return err
	}
	sp, err := synthetic.New(data)
	if err != nil {
		return err
	}
	w0, m0 := sp.Start(7)
	set := synthetic.PaperSettings()
	set.Epochs = epochs
	refSet := set
	refSet.Estimator = solver.HInv{}
	ref, err := solver.New(sp.Problem(), &refSet)
	if err != nil {
		return err
	}
	var results []demoResult
	for _, name := range synthetic.EstimatorNames {
		res, err := demoRun(sp, ref, name, set, w0, m0)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, res)
	}

	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "estimator\tstatus\tfinal f\t‖hypergradient‖\terror vs HINV\tms/epoch\tallocs/epoch\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%.6f\t%.3e\t%.2e\t%.3f\t%.0f\t\n", r.name, r.status, r.f, r.hgNorm, r.errVsHINV, r.msPerEpoch, r.allocsPerStep)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nupper objective f(x_k, y_{k+1}) by epoch k")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "epoch\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t", r.name)
	}
	fmt.Fprintln(tw)
	for _, k := range traceEpochs(epochs) {
		fmt.Fprintf(tw, "%d\t", k)
		for _, r := range results {
			if k < len(r.trace) {
				fmt.Fprintf(tw, "%.6f\t", r.trace[k])
			} else {
				fmt.Fprint(tw, "–\t")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func traceEpochs(epochs int) []int {
	var ks []int
	for _, k := range []int{0, 1, 2, 5, 10, 20, 50, 100, 150} {
		if k < epochs-1 {
			ks = append(ks, k)
		}
	}
	return append(ks, epochs-1)
}

// demoRun runs one estimator, timing the epochs and counting their heap
// allocations, and compares the last estimate with HINV's at its point.
func demoRun(sp *synthetic.Problem, ref *solver.RHGD, name string, set solver.Settings, w0, m0 []float64) (demoResult, error) {
	est, err := synthetic.PaperEstimator(name)
	if err != nil {
		return demoResult{}, err
	}
	rec := &traceRecorder{f: make([]float64, 0, set.Epochs)}
	set.Recorder = rec
	set.Estimator = est
	r, err := solver.New(sp.Problem(), &set)
	if err != nil {
		return demoResult{}, err
	}
	if err := r.Reset(w0, m0); err != nil {
		return demoResult{}, err
	}
	lastX := make([]float64, len(w0))
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	status := solver.NotTerminated
	k := 0
	for ; k < set.Epochs && status == solver.NotTerminated; k++ {
		copy(lastX, r.X())
		if status, err = r.Step(); err != nil {
			return demoResult{}, err
		}
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms1)
	if status == solver.NotTerminated {
		status = solver.IterationLimit
	}
	res := demoResult{name: name, trace: rec.f, status: status,
		msPerEpoch:    float64(elapsed.Microseconds()) / 1000 / float64(k),
		allocsPerStep: float64(ms1.Mallocs-ms0.Mallocs) / float64(k)}
	hg := append([]float64(nil), r.LastHyper()...)
	y := append([]float64(nil), r.Y()...)
	res.f = rec.f[len(rec.f)-1]
	res.hgNorm = sp.St.Norm(lastX, hg)
	exact, err := ref.Estimate(lastX, y)
	if err != nil {
		return demoResult{}, err
	}
	for i := range hg {
		hg[i] -= exact[i]
	}
	res.errVsHINV = sp.St.Norm(lastX, hg) / sp.St.Norm(lastX, exact)
	if math.IsNaN(res.errVsHINV) {
		return demoResult{}, fmt.Errorf("hypergradient error is NaN")
	}
	return res, nil
}
