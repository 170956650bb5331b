package problemtest_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
)

// quadratic is f(x, y) = ½‖x‖² + ½‖y‖², g(x, y) = ½ yᵀQy − yᵀx with Q
// diagonal and positive: every oracle has a closed form. hessScale
// multiplies HessGy, so that 2 makes it wrong.
func quadratic(hessScale float64) (solver.Problem, []float64, []float64) {
	q := []float64{1, 2, 4}
	m := euclid.New(3, 1)
	each := func(dst []float64, f func(i int) float64) error {
		for i := range dst {
			dst[i] = f(i)
		}
		return nil
	}
	p := solver.Problem{
		Mx: m, My: euclid.New(3, 1),
		F: func(pt *solver.Point) (float64, error) {
			var s float64
			for i := range pt.X {
				s += 0.5 * (pt.X[i]*pt.X[i] + pt.Y[i]*pt.Y[i])
			}
			return s, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { return each(dst, func(i int) float64 { return pt.X[i] }) },
		GradFy: func(dst []float64, pt *solver.Point) error { return each(dst, func(i int) float64 { return pt.Y[i] }) },
		G: func(pt *solver.Point) (float64, error) {
			var s float64
			for i := range pt.Y {
				s += 0.5*q[i]*pt.Y[i]*pt.Y[i] - pt.Y[i]*pt.X[i]
			}
			return s, nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			return each(dst, func(i int) float64 { return q[i]*pt.Y[i] - pt.X[i] })
		},
		GradGx: func(dst []float64, pt *solver.Point) error { return each(dst, func(i int) float64 { return -pt.Y[i] }) },
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error {
			return each(dst, func(i int) float64 { return hessScale * q[i] * v[i] })
		},
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			return each(dst, func(i int) float64 { return -v[i] })
		},
		HessGyInv: func(dst []float64, pt *solver.Point, v []float64) error {
			return each(dst, func(i int) float64 { return v[i] / q[i] })
		},
	}
	return p, []float64{1, -2, 0.5}, []float64{0.3, 0.1, -0.7}
}

func TestCorrectProblemPasses(t *testing.T) {
	p, x, y := quadratic(1)
	p.LowerSolve = func(dst []float64, pt *solver.Point) error {
		for i := range dst {
			dst[i] = pt.X[i] / []float64{1, 2, 4}[i]
		}
		return nil
	}
	problemtest.Run(t, p, problemtest.Config{X: x, Y: y, Seed: 1})
}

// broken is the defect TestBrokenProblem plants: a HessGy twice the true
// Hessian, a LowerSolve returning twice y*, or a CrossGxy 1% off on a
// problem whose CrossGxy only GradGy can check (no GradGx, no CrossGyx).
var broken = map[string]func(p *solver.Problem){
	"hess": func(p *solver.Problem) {
		q, _, _ := quadratic(2)
		p.HessGy = q.HessGy
	},
	"lowersolve": func(p *solver.Problem) {
		p.LowerSolve = func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = 2 * pt.X[i] / []float64{1, 2, 4}[i]
			}
			return nil
		}
	},
	"cross": func(p *solver.Problem) {
		p.GradGx = nil
		p.CrossGxy = func(dst []float64, pt *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = -1.01 * v[i]
			}
			return nil
		}
	},
}

// TestBrokenProblem runs only inside TestCatchesDefects' child
// processes, where it must fail.
func TestBrokenProblem(t *testing.T) {
	plant, ok := broken[os.Getenv("PROBLEMTEST_BROKEN")]
	if !ok {
		t.Skip("run by TestCatchesDefects")
	}
	p, x, y := quadratic(1)
	plant(&p)
	problemtest.Run(t, p, problemtest.Config{X: x, Y: y, EtaY: 0.1, Seed: 1})
}

// TestCatchesDefects: the suite fails a problem whose HessGy is twice the
// true Hessian, one whose LowerSolve returns 2y* (before, LowerSolve was
// not checked) and one whose CrossGxy is 1% off with only GradGy to
// difference (before, such a CrossGxy was not checked either).
func TestCatchesDefects(t *testing.T) {
	for defect, want := range map[string]string{
		"hess":       "HessGy: Hessian: FAILED",
		"lowersolve": "LowerSolve: stationary point: FAILED",
		"cross":      "CrossGxy: against differences of GradGy: FAILED",
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestBrokenProblem$", "-test.v")
		cmd.Env = append(os.Environ(), "PROBLEMTEST_BROKEN="+defect)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "the suite passed a problem with a planted defect (%s):\n%s", defect, out)
		require.Contains(t, string(out), want, "%s", out)
		require.Contains(t, string(out), "--- FAIL: TestBrokenProblem/", "%s", out)
	}
}
