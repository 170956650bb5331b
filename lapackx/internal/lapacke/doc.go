// Package lapacke holds rhgd's raw cgo bindings to LAPACKE's _work
// routines, always in column-major layout so that LAPACKE passes the arrays
// straight to LAPACK (no transposition, no hidden malloc). Each function
// only crosses into C and returns LAPACK's info: callers own every array
// and have checked every size. A row-major Go buffer read column-major is
// the transpose of the matrix; package lapackx arranges its calls
// accordingly and is the only user. One routine is rhgd's own C rather
// than LAPACK's: Syevql (syevql.c), the small-order symmetric eigensolver.
// In a pure-Go build (CGO_ENABLED=0 or -tags purego) Available is false
// and every function panics.
package lapacke
