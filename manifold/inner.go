package manifold

// FrobeniusInner returns Σ uᵢvᵢ, the metric of a submanifold of R^Len
// with the induced metric (tr(UᵀV) for matrices), summed in index order.
func FrobeniusInner(u, v []float64) float64 {
	var s float64
	for i, a := range u {
		s += a * v[i]
	}
	return s
}

// FisherInner returns Σ uᵢvᵢ/xᵢ, the Fisher metric at the positive x (of
// the simplex, and of coupling plans entrywise), summed in index order.
func FisherInner(x, u, v []float64) float64 {
	var s float64
	for i, xi := range x {
		s += u[i] * v[i] / xi
	}
	return s
}
