package coupling_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/coupling"
)

// TestRetractionPassesCheckPoint: whatever Sinkhorn.Tol a caller picks, a
// plan the retraction returns without error is a point to CheckPoint (its
// default tolerance follows Sinkhorn.Tol), and the error of one that did
// not converge names what was reached.
func TestRetractionPassesCheckPoint(t *testing.T) {
	rnd := rand.New(rand.NewPCG(17, 3))
	loose := 0 // results CheckPoint's DefaultTol alone would reject
	for _, tol := range []float64{1e-6, 1e-9, 3e-11, 0} {
		for _, mn := range [][2]int{{3, 4}, {12, 9}, {40, 25}} {
			a, b := marginals(rnd, mn[0], mn[1])
			c, err := coupling.New(a, b)
			if err != nil {
				t.Fatal(err)
			}
			c.Sinkhorn.Tol = tol
			x, u, y := make([]float64, mn[0]*mn[1]), make([]float64, mn[0]*mn[1]), make([]float64, mn[0]*mn[1])
			for _, step := range []float64{0.3, 3} {
				c.RandPoint(x, rnd)
				c.RandTangent(u, x, rnd)
				name := fmt.Sprintf("tol=%g,m=%d,n=%d,t=%g", tol, mn[0], mn[1], step)
				if err := c.Retract(y, x, u, step); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if err := c.CheckPoint(y); err != nil {
					t.Errorf("%s: the retraction's plan (marginal error %.3g) fails CheckPoint: %v", name, c.LastMarginalError(), err)
				}
				if c.LastMarginalError() > coupling.DefaultTol {
					loose++
				}
			}
		}
	}
	if loose == 0 {
		t.Error("no retraction stopped above DefaultTol: the test does not exercise Sinkhorn.Tol > DefaultTol")
	}

	// An explicit Tol is the caller's: the loose plan then fails.
	a, b := marginals(rnd, 5, 6)
	c, _ := coupling.New(a, b)
	c.Sinkhorn.Tol, c.Tol = 1e-6, 1e-12
	x, u, y := make([]float64, 30), make([]float64, 30), make([]float64, 30)
	c.RandPoint(x, rnd)
	c.RandTangent(u, x, rnd)
	if err := c.Retract(y, x, u, 1); err != nil {
		t.Fatal(err)
	}
	if c.LastMarginalError() > 1e-12 && !errors.Is(c.CheckPoint(y), coupling.ErrMarginal) {
		t.Errorf("explicit Tol 1e-12 accepted a plan with marginal error %.3g", c.LastMarginalError())
	}

	// Not converging: the message says how far it got.
	c.Sinkhorn = coupling.SinkhornSettings{MaxIter: 2, Tol: 1e-15}
	err := c.Retract(y, x, u, 3)
	if !errors.Is(err, coupling.ErrSinkhornNotConverged) {
		t.Fatalf("2 iterations to 1e-15: %v, want ErrSinkhornNotConverged", err)
	}
	if want := fmt.Sprintf("relative marginal error %.3g > tolerance 1e-15 after 2 iterations", c.LastMarginalError()); !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not say %q", err, want)
	}
}

// TestDefaultMaxIter: the default iteration cap balances a step that
// needs more than a thousand iterations (2393 here, on every backend;
// POT's log-domain Sinkhorn needs 1000 to 2000 at its own default
// threshold of 1e-9 on steps like it), where the cap of 1000 gives up.
func TestDefaultMaxIter(t *testing.T) {
	rnd := rand.New(rand.NewPCG(50, 1))
	a, b := marginals(rnd, 50, 40)
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	x, u, y := make([]float64, 2000), make([]float64, 2000), make([]float64, 2000)
	c.RandPoint(x, rnd)
	c.RandTangent(u, x, rnd)
	c.Sinkhorn.MaxIter = 1000
	if err := c.Retract(y, x, u, 250); !errors.Is(err, coupling.ErrSinkhornNotConverged) {
		t.Fatalf("1000 iterations: %v, want ErrSinkhornNotConverged (the step is too easy to test the default)", err)
	}
	c.Sinkhorn.MaxIter = 0
	if err := c.Retract(y, x, u, 250); err != nil {
		t.Fatalf("default MaxIter: %v", err)
	}
	if err := c.CheckPoint(y); err != nil {
		t.Error(err)
	}
}
