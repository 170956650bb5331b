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
// The Go benchmarks of this package (bench_test.go) time the same cases
// with `go test -bench`.
package bench
