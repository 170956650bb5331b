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
// fuzzed step sizes, estimator and lower starting point: an epoch without
// error leaves iterates on their manifolds and a finite f; an error is a
// divergence or wraps a shared sentinel.
func FuzzEpoch(f *testing.F) {
	f.Add([]byte{0, 1, 0, 8, 0, 8, 0, 16, 0, 0, 0})
	f.Add([]byte{0, 2, 2, 100, 20, 127, 20, 16, 0, 3, 4})
	f.Add([]byte{0, 3, 1, 16, 0, 1, 100, 16, 0, 127, 30})
	f.Add([]byte{1, 0, 3, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	data, err := synthetic.Generate(8, 4, 2, 0.01, 3)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sp, err := synthetic.New(data)
		if err != nil {
			t.Fatal(err)
		}
		src := fuzzing.New(in)
		est, err := solver.ParseEstimator(synthetic.EstimatorNames[src.Int(0, 3)])
		if err != nil {
			t.Fatal(err)
		}
		etaX, etaY := math.Abs(src.Float()), math.Abs(src.Float())
		w, m := sp.Start(uint64(src.Int(0, 255)))
		u := src.Symmetric(4)
		r, err := solver.New(sp.Problem(), &solver.Settings{Estimator: est, EtaX: etaX, EtaY: etaY, InnerIters: 3})
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
		}
	})
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
