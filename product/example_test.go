package product_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/stiefel"
)

// Two Stiefel factors and a Euclidean head as one manifold: a point is one
// flat slice, and Part views each factor's piece.
func Example() {
	m := product.New(stiefel.New(6, 3), stiefel.New(3, 2), euclid.New(2, 4))
	x := make([]float64, m.Len())
	m.RandPoint(x, rand.New(rand.NewPCG(1, 2)))
	fmt.Println("length", m.Len(), "dimension", m.Dim())
	fmt.Println("point:", m.CheckPoint(x))
	w2 := m.Part(x, 1) // the 3×2 factor, row-major
	w2[0] += 0.1
	fmt.Println("after a change to factor 1:", m.CheckPoint(x) != nil)
	// Output:
	// length 32 dimension 23
	// point: <nil>
	// after a change to factor 1: true
}
