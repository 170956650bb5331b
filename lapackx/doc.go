// Package lapackx holds rhgd's LAPACK layer: cgo bindings to a small set of
// LAPACKE routines with pure-Go (gonum) twins, and the matrix functions the
// manifolds and hypergradient estimators call in their inner loops.
//
// # Layout
//
// Matrices are row-major []float64 holding every entry (both triangles of
// a symmetric matrix). LAPACK is column-major, and a row-major buffer read
// column-major is the transpose; every call here is arranged so that
// LAPACKE never transposes: a symmetric matrix is its own transpose (flip
// uplo), the QR of A is the LQ of Aᵀ, and so on. Each type's documentation says how.
//
// # Backends
//
// Calls go to LAPACKE when package blas has the native backend selected
// and to gonum's pure-Go LAPACK otherwise (RHGD_BLAS=gonum, blas.Use, or a
// CGO_ENABLED=0 or -tags purego build). The results agree to rounding.
// rhgd's own BLAS calls go through blas.Impl; gonum's LAPACK routines
// reach BLAS through gonum's blas64, which is rhgd's only after blas.Init
// (blas's package doc has the policy).
//
// Where to look: the raw cgo bindings are in internal/lapacke (column-major
// LAPACKE _work calls and nothing else); backend.go declares the LAPACK
// operations the matrix functions need, with one row-major meaning, and
// holds the one place that chooses an implementation (lp);
// backend_native.go and backend_gonum.go implement them, with each
// backend's size crossovers. The other files are the matrix functions,
// which never ask which backend runs.
//
// # Contents
//
//   - Impl: gonum's lapack.Float64 with Dpotrf, Dpotrs, Dpotri, Dgeqrf,
//     Dorgqr, Dgelqf and Dorglq on LAPACKE;
//   - EigSym (dsyevd), LU (dgetrf), QR (dgelqf/dorglq);
//   - SymFunc: exp, log, √, 1/√, powers and user functions of symmetric
//     matrices from one eigendecomposition, and their Fréchet derivatives
//     by the Daleckii–Krein formula with cancellation-free divided
//     differences;
//   - Expm: the general matrix exponential (Al-Mohy and Higham 2009);
//   - LyapSym: A X + X A = C for symmetric A, with the smallest
//     eigenpairs of an ill-conditioned SPD A refined by residuals in twice
//     the working precision, and SolveMany for several C on one
//     eigendecomposition; Sylvester: A X + X B = C by Bartels–Stewart
//     (dgees, dtrsyl).
//
// # Workspaces and errors
//
// Each type owns its scratch space, sized at construction, so steady-state
// calls allocate nothing; none is safe for concurrent use. Shape misuse
// panics, as in gonum. Bad data returns an error wrapping one of the
// package's sentinels (numerr.ErrNotFinite, numerr.ErrNotSymmetric, numerr.ErrNotPosDef,
// numerr.ErrSingular, numerr.ErrOverflow, ErrLapack): no routine returns NaN in place of
// an error.
package lapackx
