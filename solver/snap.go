package solver

// Snapper is a Manifold that accepts points within float32 rounding of it
// (lapackx.F32Tol), such as starting points computed in float32, by
// projecting them onto it once.
type Snapper interface {
	// SnapPoint sets dst to x and returns "" when CheckPoint accepts x.
	// When x is off the manifold by no more than float32 rounding, it sets
	// dst to x projected onto the manifold and returns a one-line note with
	// the defect measured and the projection made ("‖XᵀX − I‖_F = 1.1e-07,
	// re-orthonormalized (polar factor)"). Otherwise it returns an error
	// saying what is wrong, by how much, and the float32 bound, leaving dst
	// unspecified. dst may be x. It may allocate: it is for inputs, not for
	// iterations.
	SnapPoint(dst, x []float64) (note string, err error)
}

// SnapPoint accepts x, in place, as a point of m: a point within float32
// rounding of m is projected onto it when m is a Snapper, and the note
// says so; otherwise x must pass m.CheckPoint. Loaders and the C ABI call
// it on the starting points they are given.
func SnapPoint(m Manifold, x []float64) (note string, err error) {
	if s, ok := m.(Snapper); ok {
		return s.SnapPoint(x, x)
	}
	return "", m.CheckPoint(x)
}
