// Package spectral is the spectral layers of SPD networks and their
// derivatives, batched: the eigendecompositions of many small symmetric
// matrices at once, a function f applied to their eigenvalues (log for
// LogEig, max(ε, ·) for ReEig, exp), and the Fréchet derivative and its
// adjoint by the Daleckii–Krein formula: the workload of SPD networks,
// covariance descriptors and meta-learning, for which Python users call
// torch.linalg.eigh on a batch.
//
// # Entry points
//
// NewBatch makes the workspace for up to Cap matrices of one order; after
// it nothing allocates. For outside data, Batch.Eig (eigenvalues and
// eigenvectors of any number of matrices) and Batch.Map (f(A_i) and the
// backward map of an upstream gradient, the forward and backward pass of
// a layer) check their arguments (lengths, finite entries, symmetry within
// lapackx.SymTol) and return errors naming the argument and the matrix;
// they run the array in chunks of Cap matrices. Factorize, Apply,
// Frechet, Backward, FrechetAll and BackwardAll are the unchecked steps a
// network layer keeps between its forward and backward passes (Factorize
// reads the upper triangles and checks them finite only). The C ABI
// exports Eig and Map as rhgd_spectral_*_batch (cbindings/rhgd.h).
//
// # Derivatives
//
// For symmetric A = Vᵀ diag(λ) V and f(A) = Vᵀ diag(f(λ)) V,
//
//	Df(A)[E] = Vᵀ (Γ ∘ (V E Vᵀ)) V,   Γ_ab = f[λ_a, λ_b],
//
// with f[x, y] = (f(x) − f(y))/(x − y) and f[x, x] = f′(x). Γ is
// symmetric, so Df(A) is self-adjoint in the Frobenius inner product on
// symmetric matrices: the backward map of a layer X ↦ f(X), which takes the
// gradient G with respect to f(X) to the gradient with respect to X, is
// Df(A)[(G + Gᵀ)/2] (Batch.Backward). This is the Fréchet derivative that
// lapackx.SymFunc.Frechet computes for one matrix; the tests check the two
// against each other and both against finite differences.
//
// The divided differences are computed without cancellation for equal and
// nearly equal eigenvalues: lapackx's functions (LogFunc uses
// 2·atanh((x − y)/(x + y))/(x − y)) and ReEig's, which are exact
// (see ReEig for the subgradient taken at its kink).
//
// # Batches
//
// A network layer applies f to dozens or hundreds of matrices of order 5
// to 100 per step. Batch factorizes them by SmallEig (a pure-Go QL solver)
// at small orders and by lapackx.EigBatch at larger ones (rhgd's C QL
// solver below n = 32, LAPACK's dsyevd from there), where one cgo
// crossing serves a whole chunk of matrices, and splits the work on
// independent matrices across a pool of goroutines when a chunk is large
// enough to pay for waking a thread. BenchmarkBatchEig, 64 SPD matrices per
// batch, per matrix, medians of 5 on the shared 2-core machine, OpenBLAS:
//
//	n     SmallEig   dsyevd each   dsyevd batched   Auto, 2 workers
//	5      1.0 µs      2.3 µs         2.0 µs            1.0 µs
//	10     4.0 µs      7.3 µs         6.5 µs            4.0 µs
//	20    19.0 µs     28.7 µs        26.6 µs           11.7 µs
//	50     183 µs      167 µs         153 µs             91 µs
//	100   1.28 ms     0.57 ms        0.56 ms           0.31 ms
//
// The batched call saves 5–10% over one crossing per matrix (its share of
// fixed costs: the crossing, the thread switch, the checks); SmallEig wins
// up to about n = 20 on the native backend (batchGoCutoff; batched dsyevd
// was 1.4–1.9× faster from 24 to 32 in the benchmark report's batches)
// and at every order measured on the pure-Go one (goEigCutoff). A second
// worker pays from n = 20.
package spectral
