// Package bench times rhgd's kernels at large sizes beside their peers in
// numpy, scipy, POT and PyTorch, and writes the report that `make bench`
// puts under bench/results.
//
// A Case is one operation at one size: it writes its inputs to .npy files,
// returns the rhgd call to time and names the peer calls (bench/peers.py)
// that read the same files. Run times every case in rounds, rhgd first and
// then each peer, so that drift of a shared machine falls on both sides of
// a ratio; each side times itself in its own process (a Go timer here, a
// Python one there), on data already in memory, after one warm-up call.
// All libraries run with the same thread count.
//
// The stage profiles (group "stages") time a kernel's stages as the kernel
// runs them, through the marks that lapackx's Expm and LyapSym set with
// internal/stagetime (free when no profile runs), beside one GEMM timed in
// the same call; the HINV epoch's stages come from differences of timed
// solver calls. The targets table links an unmet target to its profile.
//
// The Go benchmarks of this package (bench_test.go) time the same cases
// with `go test -bench`.
package bench
