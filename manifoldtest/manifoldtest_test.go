package manifoldtest_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/stiefel"
)

// scaledGrad is Euclidean space with a wrong Riemannian gradient (twice
// the Euclidean one): the suite must catch it.
type scaledGrad struct{ *euclid.Euclidean }

func (s scaledGrad) EGradToRGrad(dst, x, egrad []float64) {
	s.Euclidean.EGradToRGrad(dst, x, egrad)
	for i := range dst {
		dst[i] *= 2
	}
}

func TestCorrectManifoldPasses(t *testing.T) {
	manifoldtest.Run(t, euclid.New(4, 3), manifoldtest.Options{RetractionOrder: 2, IsometricTransport: true, Seed: 3})
}

// TestBrokenManifold runs only inside TestCatchesWrongGradient's child
// process, where it must fail.
func TestBrokenManifold(t *testing.T) {
	if os.Getenv("MANIFOLDTEST_BROKEN") != "1" {
		t.Skip("run by TestCatchesWrongGradient")
	}
	manifoldtest.Run(t, scaledGrad{euclid.New(4, 3)}, manifoldtest.Options{RetractionOrder: 2, Seed: 3})
}

// TestCatchesWrongGradient: a suite that passes everything proves
// nothing, so a manifold with a wrong gradient must fail it, in the
// gradient checks, and, since it still says it is a Euclidean space (the
// embedded method), in the check of that claim.
func TestCatchesWrongGradient(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBrokenManifold$", "-test.v")
	cmd.Env = append(os.Environ(), "MANIFOLDTEST_BROKEN=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the suite passed a manifold with a wrong gradient:\n%s", out)
	require.Contains(t, string(out), "--- FAIL: TestBrokenManifold/gradient/", "%s", out)
	require.Contains(t, string(out), "--- FAIL: TestBrokenManifold/euclidean-space", "%s", out)
}

// ball is Euclidean space whose exponential map is defined on the ball
// ‖t·u‖ < 0.05 only, as on a manifold that is not complete (the open
// simplex): the suite must test Exp and Log inside that domain rather
// than fail at its fixed step.
type ball struct{ *euclid.Euclidean }

var errOutside = errors.New("ball: outside Exp's domain")

func (b ball) Exp(dst, x, u []float64, t float64) error {
	if math.Abs(t)*b.Norm(x, u) >= 0.05 {
		return errOutside
	}
	return b.Euclidean.Exp(dst, x, u, t)
}

func TestIncompleteManifoldPasses(t *testing.T) {
	manifoldtest.Run(t, ball{euclid.New(3, 2)}, manifoldtest.Options{RetractionOrder: 2, IsometricTransport: true, Seed: 4})
}

// badChooser offers two retractions, "sum" (x + tu) and "double" (2x +
// tu, not a retraction: R_x(0) ≠ x), accepts any other name as "sum", and
// hands out its own list: the suite must catch all three.
type badChooser struct {
	*euclid.Euclidean
	names []string
	cur   string
}

func (b *badChooser) Retractions() []string  { return b.names }
func (b *badChooser) RetractionName() string { return b.cur }
func (b *badChooser) SetRetraction(name string) error {
	b.cur = name
	if name != "double" {
		b.cur = "sum"
	}
	return nil
}

func (b *badChooser) Retract(dst, x, u []float64, t float64) error {
	err := b.Euclidean.Retract(dst, x, u, t)
	if b.cur == "double" {
		for i := range dst {
			dst[i] += x[i]
		}
	}
	return err
}

// TestBrokenChooser runs only inside TestCatchesBadChooser's child
// process, where it must fail.
func TestBrokenChooser(t *testing.T) {
	if os.Getenv("MANIFOLDTEST_BROKEN") != "chooser" {
		t.Skip("run by TestCatchesBadChooser")
	}
	b := &badChooser{euclid.New(3, 1), []string{"sum", "double"}, "sum"}
	manifoldtest.Run(t, b, manifoldtest.Options{RetractionOrder: 2, Seed: 3})
}

// TestCatchesBadChooser: the retractions check fails a chooser whose
// second retraction is not one, that accepts an unknown name, and whose
// list is its own; the manifold's own retraction passes the rest.
func TestCatchesBadChooser(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBrokenChooser$", "-test.v")
	cmd.Env = append(os.Environ(), "MANIFOLDTEST_BROKEN=chooser")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the suite passed a bad retraction chooser:\n%s", out)
	for _, want := range []string{"double: retraction (order 1)", `SetRetraction accepted "no such retraction"`,
		"Retractions returns the manifold's own slice", "--- FAIL: TestBrokenChooser/retractions"} {
		require.Contains(t, string(out), want, "%s", out)
	}
	require.Equal(t, 1, strings.Count(string(out), "--- FAIL: TestBrokenChooser/"), "%s", out)
}

// TestColumnSpaceOnStiefel: Stiefel's gradient and Hessian are right for
// every smooth function, so the suite's column-space functions pass there
// only if their own derivatives (the chain rule through X ↦ XXᵀ) are.
func TestColumnSpaceOnStiefel(t *testing.T) {
	for _, np := range [][2]int{{4, 1}, {6, 3}} {
		t.Run(fmt.Sprintf("n=%d,p=%d", np[0], np[1]), func(t *testing.T) {
			manifoldtest.Run(t, stiefel.New(np[0], np[1]), manifoldtest.Options{RetractionOrder: 1, Seed: 5, ColumnSpace: true})
		})
	}
}
