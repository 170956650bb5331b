// Package batch holds what the ready-made problems that average over the
// samples of a set (hyperrep, spdnet) share about mini-batches.
package batch

import "fmt"

// Weigh sets w, one weight per sample of a set of len(w) samples, to the
// weights of the average over batch: 1/len(w) each for a nil batch (the
// whole set), otherwise 1/|B| for each occurrence of i in B, so that a
// sample drawn twice counts twice. pkg and set name the problem and the
// set in the panic messages. An empty batch or an index out of range is
// the solver's bug, not the data's, and panics.
func Weigh(w []float64, b []int, pkg, set string) {
	if b == nil {
		for i := range w {
			w[i] = 1 / float64(len(w))
		}
		return
	}
	if len(b) == 0 {
		panic(pkg + ": empty batch")
	}
	clear(w)
	inc := 1 / float64(len(b))
	for _, i := range b {
		if i < 0 || i >= len(w) {
			panic(fmt.Sprintf("%s: batch index %d out of the %s set's range [0, %d)", pkg, i, set, len(w)))
		}
		w[i] += inc
	}
}
