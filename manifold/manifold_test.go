package manifold_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/simplex"
	"github.com/rhgd/rhgd/solver"
)

// sphere is the unit sphere S^{n−1} ⊂ R^n with the induced metric, on
// Embedded: the package documentation's example, and a manifold with no
// capability of its own.
type sphere struct {
	manifold.Embedded
	n int
}

func newSphere(n int) *sphere { s := &sphere{n: n}; s.Init(s); return s }

func (s *sphere) Clone() any { return newSphere(s.n) }
func (s *sphere) Len() int   { return s.n }
func (s *sphere) Dim() int   { return s.n - 1 }

func (s *sphere) Inner(x, u, v []float64) float64 { return dot(u, v) }

func (s *sphere) Project(dst, x, v []float64) {
	a := dot(x, v)
	for i := range dst {
		dst[i] = v[i] - a*x[i]
	}
}

// EHessToRHess is P_x(ehess) − ⟨x, egrad⟩ u: the Weingarten map of the
// sphere.
func (s *sphere) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	s.Project(dst, x, ehess)
	a := dot(x, egrad)
	for i := range dst {
		dst[i] -= a * u[i]
	}
}

// Retract is (x + tu)/‖x + tu‖, a second-order retraction.
func (s *sphere) Retract(dst, x, u []float64, t float64) error {
	for i := range dst {
		dst[i] = x[i] + t*u[i]
	}
	nrm := math.Sqrt(dot(dst, dst))
	for i := range dst {
		dst[i] /= nrm
	}
	return nil
}

func (s *sphere) RandPoint(dst []float64, rnd *rand.Rand) {
	for i := range dst {
		dst[i] = rnd.NormFloat64()
	}
	_ = s.Retract(dst, dst, dst, 0)
}

// CheckPoint adds ‖x‖ = 1 to the default's length and finite entries.
func (s *sphere) CheckPoint(x []float64) error {
	if err := s.Embedded.CheckPoint(x); err != nil {
		return err
	}
	if d := math.Abs(math.Sqrt(dot(x, x)) - 1); d > 1e-10 {
		return errors.New("sphere: ‖x‖ ≠ 1")
	}
	return nil
}

func dot(a, b []float64) float64 {
	var d float64
	for i, v := range a {
		d += v * b[i]
	}
	return d
}

// plane is R^n on Embedded with every optional capability of the solver:
// the embedded defaults must leave each visible.
type plane struct {
	manifold.Embedded
	n      int
	retr   string
	snaps  int
	choice []string
}

func newPlane(n int) *plane {
	p := &plane{n: n, retr: "sum", choice: []string{"sum", "fma"}}
	p.Init(p)
	return p
}

func (p *plane) Clone() any                                     { c := newPlane(p.n); c.retr = p.retr; return c }
func (p *plane) Len() int                                       { return p.n }
func (p *plane) Dim() int                                       { return p.n }
func (p *plane) Inner(x, u, v []float64) float64                { return dot(u, v) }
func (p *plane) Project(dst, x, v []float64)                    { copy(dst, v) }
func (p *plane) EHessToRHess(dst, x, egrad, ehess, u []float64) { copy(dst, ehess) }

func (p *plane) Retract(dst, x, u []float64, t float64) error {
	for i := range dst {
		if p.retr == "fma" {
			dst[i] = math.FMA(t, u[i], x[i])
		} else {
			dst[i] = x[i] + t*u[i]
		}
	}
	return nil
}

func (p *plane) RandPoint(dst []float64, rnd *rand.Rand) {
	for i := range dst {
		dst[i] = rnd.NormFloat64()
	}
}

func (p *plane) Exp(dst, x, u []float64, t float64) error { return p.Retract(dst, x, u, t) }

func (p *plane) Log(dst, x, y []float64) error {
	for i := range dst {
		dst[i] = y[i] - x[i]
	}
	return nil
}

func (p *plane) Dist(x, y []float64) (float64, error) {
	var s float64
	for i := range x {
		s += (y[i] - x[i]) * (y[i] - x[i])
	}
	return math.Sqrt(s), nil
}

func (p *plane) Supports(solver.Method) bool           { return true }
func (p *plane) ConnectionTerm(dst, x, u, v []float64) { clear(dst) }
func (p *plane) Whiten(dst, x, u []float64) error      { copy(dst, u); return nil }
func (p *plane) IsEuclideanSpace() bool                { return true }
func (p *plane) SnapPoint(dst, x []float64) (string, error) {
	p.snaps++
	copy(dst, x)
	return "", p.CheckPoint(x)
}
func (p *plane) Retractions() []string  { return slices.Clone(p.choice) }
func (p *plane) RetractionName() string { return p.retr }
func (p *plane) SetRetraction(name string) error {
	if !slices.Contains(p.choice, name) {
		return errors.New("plane: retractions are sum and fma")
	}
	p.retr = name
	return nil
}

// TestConformance: manifolds written on Embedded pass the suite with only
// their mathematics (the sphere: 8 methods and its CheckPoint).
func TestConformance(t *testing.T) {
	t.Run("sphere", func(t *testing.T) {
		manifoldtest.Run(t, newSphere(5), manifoldtest.Options{RetractionOrder: 2, Seed: 1,
			NotTangent: func(x []float64) []float64 { return slices.Clone(x) },
			BadPoint: func(x []float64) []float64 {
				b := slices.Clone(x)
				b[0] += 0.1
				return b
			}})
	})
	t.Run("plane", func(t *testing.T) {
		manifoldtest.Run(t, newPlane(4), manifoldtest.Options{RetractionOrder: 2, IsometricTransport: true, Seed: 2})
	})
}

// capabilities lists the optional interfaces of the solver that m shows,
// through the solver's own look-ups.
func capabilities(m solver.Manifold) []string {
	var have []string
	add := func(name string, ok bool) {
		if ok {
			have = append(have, name)
		}
	}
	_, ok := solver.AsExper(m)
	add("Exper", ok)
	_, ok = solver.AsLogger(m)
	add("Logger", ok)
	_, ok = solver.AsDistancer(m)
	add("Distancer", ok)
	_, ok = m.(solver.Partial)
	add("Partial", ok)
	_, ok = m.(solver.Connection)
	add("Connection", ok)
	_, ok = m.(solver.Whitener)
	add("Whitener", ok)
	_, ok = m.(solver.Snapper)
	add("Snapper", ok)
	add("EuclideanSpace", solver.IsEuclideanSpace(m))
	_, ok = solver.AsRetractionChooser(m)
	add("RetractionChooser", ok)
	return have
}

// TestCapabilitiesVisible: a manifold on the embedded defaults shows the
// solver every capability it has, and its clone too, with its concrete
// type; the defaults add none (the sphere has none), and the simplex, on
// Defaults, shows its own six.
func TestCapabilitiesVisible(t *testing.T) {
	all := []string{"Exper", "Logger", "Distancer", "Partial", "Connection", "Whitener", "Snapper", "EuclideanSpace", "RetractionChooser"}
	for _, c := range []struct {
		m    solver.Manifold
		want []string
	}{
		{newPlane(3), all},
		{newSphere(3), nil},
		{simplex.New(3), []string{"Exper", "Logger", "Distancer", "Connection", "Whitener", "Snapper"}},
	} {
		assert.Equal(t, c.want, capabilities(c.m), "%T", c.m)
		cl := solver.Clone(c.m)
		assert.IsType(t, c.m, cl)
		assert.Equal(t, c.want, capabilities(cl), "clone of %T", c.m)
	}

	// The solver's consumers reach the plane's own methods.
	p := newPlane(2)
	var m solver.Manifold = p
	_, err := solver.SnapPoint(m, []float64{1, 2})
	require.NoError(t, err)
	assert.Equal(t, 1, p.snaps, "solver.SnapPoint called the plane's SnapPoint")
	ch, ok := solver.AsRetractionChooser(m)
	require.True(t, ok)
	require.NoError(t, ch.SetRetraction("fma"))
	assert.Equal(t, "fma", p.RetractionName())
	assert.Equal(t, "fma", solver.Clone(m).(solver.RetractionChooser).RetractionName(), "Clone keeps the choice")
}

// TestDefaults checks each default against its definition on the sphere:
// Norm = √Inner, EGradToRGrad = Project (Embedded), Transport = Project at
// y, RandTangent = the normalized projection of the same Gaussian draws,
// and the checks.
func TestDefaults(t *testing.T) {
	s := newSphere(4)
	rnd := rand.New(rand.NewPCG(1, 2))
	x, y, u, g, w, want := make([]float64, 4), make([]float64, 4), make([]float64, 4), make([]float64, 4), make([]float64, 4), make([]float64, 4)
	s.RandPoint(x, rnd)
	s.RandPoint(y, rnd)
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	s.Project(u, x, g)

	assert.Equal(t, math.Sqrt(s.Inner(x, u, u)), s.Norm(x, u))
	s.EGradToRGrad(w, x, g)
	assert.Equal(t, u, w)
	s.Transport(w, x, y, u)
	s.Project(want, y, u)
	assert.Equal(t, want, w)

	r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	s.RandTangent(w, x, r1)
	for i := range g {
		g[i] = r2.NormFloat64()
	}
	s.Project(want, x, g)
	nrm := math.Sqrt(dot(want, want))
	for i := range want {
		assert.InDelta(t, want[i]/nrm, w[i], 4*0x1p-52, "RandTangent[%d]", i)
	}

	require.NoError(t, s.CheckTangent(x, u))
	err := s.CheckTangent(x, x)
	require.ErrorIs(t, err, manifold.ErrNotTangent)
	require.ErrorIs(t, err, numerr.ErrInvalid)
	assert.True(t, strings.HasPrefix(err.Error(), "manifold_test: not a tangent vector: ‖u − P_x(u)‖₂ = 1"), err.Error())
	u[2] = math.NaN()
	assert.ErrorIs(t, s.CheckTangent(x, u), numerr.ErrNotFinite)
	assert.Error(t, s.CheckTangent(x, u[:3]))
	assert.Error(t, s.CheckTangent(x[:3], w))
	x[1] = math.Inf(1)
	assert.Error(t, s.CheckTangent(x, w), "a NaN residual fails")

	p := newPlane(3)
	assert.NoError(t, p.CheckPoint([]float64{1e300, -3, 0}))
	assert.ErrorIs(t, p.CheckPoint([]float64{1, math.Inf(-1), 0}), numerr.ErrNotFinite)
	assert.Error(t, p.CheckPoint([]float64{1, 2}))

	var d manifold.Defaults
	assert.PanicsWithValue(t, "manifold: Defaults used before Init: call Init from the manifold's constructor and Clone",
		func() { d.Norm(x, x) })
}

// TestDefaultsAllocs: the defaults allocate nothing.
func TestDefaultsAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	s := newSphere(6)
	rnd := rand.New(rand.NewPCG(1, 2))
	x, y, u, w := make([]float64, 6), make([]float64, 6), make([]float64, 6), make([]float64, 6)
	s.RandPoint(x, rnd)
	s.RandPoint(y, rnd)
	s.RandTangent(u, x, rnd)
	for name, op := range map[string]func(){
		"Norm":         func() { s.Norm(x, u) },
		"EGradToRGrad": func() { s.EGradToRGrad(w, x, y) },
		"Transport":    func() { s.Transport(w, x, y, u) },
		"RandTangent":  func() { s.RandTangent(w, x, rnd) },
		"CheckPoint":   func() { _ = s.CheckPoint(x) },
		"CheckTangent": func() { _ = s.CheckTangent(x, u) },
	} {
		assert.Zero(t, testing.AllocsPerRun(5, op), name)
	}
}
