package synthetic_test

import (
	"errors"
	"math"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// FuzzEpoch runs two solver epochs on a small synthetic problem with
// fuzzed step sizes, estimator and lower starting point: an error is a
// divergence or wraps a shared sentinel; an epoch without error leaves
// iterates on their manifolds and reports (to a Recorder) a finite f equal,
// to 1e−12 relative, to a fresh evaluation of the problem's F at the
// recorded (x_k, y_{k+1}) on a second instance built from the same data
// (no cache shared), and a finite hypergradient tangent at x_k.
func FuzzEpoch(f *testing.F) {
	f.Add([]byte{0, 1, 0, 8, 0, 8, 0, 16, 0, 0, 0})
	f.Add([]byte{0, 2, 2, 100, 20, 127, 20, 16, 0, 3, 4})
	f.Add([]byte{0, 3, 1, 16, 0, 1, 100, 16, 0, 127, 30})
	f.Add([]byte{1, 0, 3, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	// Every estimator through both epochs: default steps, and η = ½.
	for e := byte(0); e < 4; e++ {
		f.Add([]byte{0, e, 0, 8, 0, 8, 0, 16, 0, 0, 0})
		f.Add([]byte{0, e, 8, 0, 8, 0, 7, 4, 0, 2, 0, 1, 0, 0, 0, 3, 0})
	}
	data, err := synthetic.Generate(8, 4, 2, 0.01, 3)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sp, err := synthetic.New(data)
		if err != nil {
			t.Fatal(err)
		}
		fsp, err := synthetic.New(data)
		if err != nil {
			t.Fatal(err)
		}
		fresh := fsp.Bilevel()
		src := fuzzing.New(in)
		est, err := solver.ParseEstimator(synthetic.Paper.Names()[src.Int(0, 3)])
		if err != nil {
			t.Fatal(err)
		}
		etaX, etaY := math.Abs(src.Float()), math.Abs(src.Float())
		w, m := sp.Start(uint64(src.Int(0, 255)))
		u := src.Symmetric(4)
		rec := &lastEpoch{}
		r, err := solver.New(sp.Bilevel(), &solver.Settings{Estimator: est, EtaX: etaX, EtaY: etaY, InnerIters: 3, Recorder: rec})
		if err != nil {
			if !errors.Is(err, solver.ErrBadSetting) {
				t.Fatalf("η = %v, %v: %v", etaX, etaY, err)
			}
			return
		}
		if fuzzing.Finite(u) && sp.SPD.Retract(m, m, u, 1) != nil {
			return // no start point there
		}
		if err := r.Reset(w, m); err != nil {
			return
		}
		for k := 0; k < 2; k++ {
			status, err := r.Step()
			if err != nil {
				if status != solver.Diverged && status != solver.Failure {
					t.Fatalf("error %v with status %v", err, status)
				}
				if !solver.IsDiverged(err) && !classified(err) {
					t.Fatalf("unclassified error %v", err)
				}
				return
			}
			if err := sp.St.CheckPoint(r.X()); err != nil {
				t.Fatalf("epoch %d: x off Stiefel: %v (η = %v, %v)", k, err, etaX, etaY)
			}
			if err := sp.SPD.CheckPoint(r.Y()); err != nil {
				t.Fatalf("epoch %d: y off SPD: %v (η = %v, %v)", k, err, etaX, etaY)
			}
			if rec.n != k+1 {
				t.Fatalf("epoch %d: %d epochs recorded", k, rec.n)
			}
			if math.IsNaN(rec.f) || math.IsInf(rec.f, 0) {
				t.Fatalf("epoch %d: nil error with f = %v", k, rec.f)
			}
			want, err := fresh.F(&solver.Point{X: rec.x, Y: rec.y})
			if err != nil {
				t.Fatalf("epoch %d: fresh F at the recorded point: %v", k, err)
			}
			if d := math.Abs(rec.f - want); !(d <= 1e-12*math.Abs(want)) {
				t.Fatalf("epoch %d: recorded f = %.17g, fresh F(x_k, y_k+1) = %.17g (η = %v, %v, %v)", k, rec.f, want, etaX, etaY, est)
			}
			if !fuzzing.Finite(rec.hg) {
				t.Fatalf("epoch %d: nil error with hypergradient %v", k, rec.hg)
			}
			if err := sp.St.CheckTangent(rec.x, rec.hg); err != nil {
				t.Fatalf("epoch %d: hypergradient not tangent at x_k: %v (η = %v, %v, %v)", k, err, etaX, etaY, est)
			}
		}
	})
}

// lastEpoch is a Recorder keeping copies of the last epoch's point, f
// and hypergradient.
type lastEpoch struct {
	x, y, hg []float64
	f        float64
	n        int
}

func (r *lastEpoch) Record(e *solver.EpochStats) error {
	r.x = append(r.x[:0], e.X...)
	r.y = append(r.y[:0], e.Y...)
	r.hg = append(r.hg[:0], e.HyperGrad...)
	r.f = e.F
	r.n++
	return nil
}

func classified(err error) bool {
	for _, s := range []error{numerr.ErrNotFinite, numerr.ErrNotSymmetric, numerr.ErrNotPosDef, numerr.ErrSingular,
		numerr.ErrOverflow, numerr.ErrUnderflow, numerr.ErrNotConverged, numerr.ErrInvalid} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
