// Package softmax is the ridge-regularized softmax classification head that
// the problems meta and spdnet put on their features: logits Wᵀφ for a
// feature vector φ of q entries and a head W ∈ R^{q×c} (row-major), class
// probabilities p = softmax(Wᵀφ) and the cross-entropy CE = log Σ_k
// exp(z_k) − z_y of the label y. Its functions work on one sample (one
// row of features) at a time, so that each problem keeps its own way of
// choosing and weighting the samples (a task's rows, a batch's weights);
// none allocates.
package softmax

// Hess sets r = (diag(p) − ppᵀ) u for the c-vectors p and u: the
// Hessian of the cross-entropy in the logits, applied to u.
func Hess(r, p, u []float64) {
	var pu float64
	for k, pk := range p {
		pu += pk * u[k]
	}
	for k, pk := range p {
		r[k] = pk * (u[k] - pu)
	}
}
