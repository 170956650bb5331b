package euclid_test

import (
	"testing"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/solver"
)

var (
	_ solver.Manifold  = (*euclid.Euclidean)(nil)
	_ solver.Exper     = (*euclid.Euclidean)(nil)
	_ solver.Logger    = (*euclid.Euclidean)(nil)
	_ solver.Distancer = (*euclid.Euclidean)(nil)

	_ solver.EuclideanSpace = (*euclid.Euclidean)(nil)
)

func TestConformance(t *testing.T) {
	for _, rc := range [][2]int{{1, 1}, {5, 3}, {20, 20}} {
		manifoldtest.Run(t, euclid.New(rc[0], rc[1]), manifoldtest.Options{RetractionOrder: 2, IsometricTransport: true, Seed: 1})
	}
}
