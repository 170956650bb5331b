package spectral

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// Path says how a Batch computes its eigendecompositions.
type Path int

// The paths. Auto is what BenchmarkBatchEig measured fastest at each
// order on each backend.
const (
	// Auto: SmallEig up to batchGoCutoff and Batched above it on the
	// native backend; SmallEig up to goEigCutoff and LAPACK (gonum's
	// Dsyev) above it on the pure-Go backend.
	Auto Path = iota
	// Go: SmallEig, the pure-Go QL solver, for every matrix.
	Go
	// LAPACK: lapackx.EigSym for every matrix, one cgo crossing and one
	// switch to a single OpenBLAS thread per matrix (gonum's Dsyev on
	// the pure-Go backend).
	LAPACK
	// Batched: lapackx.EigBatch on a whole chunk of matrices in one cgo
	// crossing (rhgd's C QL solver below lapackx's cutoff, n = 32 with
	// AVX2, and dsyevd from there, as lapackx.EigSym chooses);
	// the same as LAPACK where the native backend is not in use.
	Batched
)

// goEigCutoff is the largest order at which Auto uses SmallEig on the
// pure-Go backend: it beat gonum's Dsyev at every order measured, 19.0
// against 27.0 µs at n = 20, 183 against 247 µs at 50 and 1.25 against
// 1.53 ms at 100 (BenchmarkBatchEig with RHGD_BLAS=gonum, per matrix);
// beyond, gonum's blocked reduction is expected to take over.
const goEigCutoff = 128

// batchGoCutoff is the largest order at which Auto uses SmallEig on the
// native backend. SmallEigCutoff = 32 compares SmallEig with one dsyevd
// call per matrix (a crossing and a thread switch each); on a batch, one
// crossing serves a chunk, and Batched took the lead earlier (its
// EigBatch runs the C QL solver at these orders, not dsyevd): on the
// 2-core AMD EPYC (Cooperlake kernels, shared and loaded, 1000 matrices,
// alternating, medians of 7, three runs), SmallEig over Batched was
// 1.35–1.5× at n = 24, 1.9× at 28 and 1.7–1.9× at 32, and mixed
// (0.9–1.8×, the noise) from 16 to 22. 20 keeps SPDNet's 20×20 layer on
// SmallEig, as before.
const batchGoCutoff = 20

var pathNames = [...]string{"auto", "go", "lapack", "batched"}

// String returns the path's name as the benchmarks spell it.
func (p Path) String() string {
	if p < 0 || int(p) >= len(pathNames) {
		return fmt.Sprintf("Path(%d)", int(p))
	}
	return pathNames[p]
}

// Batch holds the eigendecompositions A_i = V_iᵀ diag(λ_i) V_i of up to
// Cap symmetric n×n matrices, a spectral function f applied to them and
// the Loewner matrices Γ_i = (f[λ_ia, λ_ib])_ab of its divided
// differences, for the forward value f(A_i) and the Fréchet derivative
//
//	Df(A_i)[E] = V_iᵀ (Γ_i ∘ (V_i E V_iᵀ)) V_i    (Daleckii–Krein),
//
// which is self-adjoint in the Frobenius inner product on symmetric
// matrices (Γ_i is symmetric): it is also the backward map of a layer
// X ↦ f(X) (Backward). Matrices are row-major n×n blocks, one after the
// other.
//
// Work on the matrices of a batch is independent, so it is split into
// chunks run on a pool of goroutines (Workers); each chunk has its own
// scratch, and results do not depend on the split (bitwise). With
// OpenBLAS the parallel sections run it on one thread (blas.SerialBegin).
//
// A Batch owns its workspace: after NewBatch nothing allocates. It is not
// safe for concurrent use.
type Batch struct {
	// Path chooses the eigensolver; the zero value is Auto.
	Path Path
	// Workers caps the goroutines a call uses; 0 means GOMAXPROCS at
	// NewBatch, 1 runs everything in the caller.
	Workers int

	n, cap, m int
	in        []float64 // the inputs, symmetric copies
	lam, fv   []float64 // eigenvalues and f(λ), n per matrix
	v, vt     []float64 // V_i (eigenvectors in rows) and V_iᵀ
	gam       []float64 // Γ_i
	identF    []bool    // f(λ) = λ for every eigenvalue: f(A_i) = A_i
	identD    []bool    // Γ_i ≡ 1: Df(A_i) is the identity
	blasFrom  int       // the congruences' BLAS crossover for this call
	f         lapackx.Func
	applied   bool // gam, fv and the idents belong to f and the current factorization
	checkSym  bool // factorChunk also checks symmetry (Eig and Map: outside data)
	base      int  // the index of matrix 0 in error messages (Eig's and Map's chunks)
	slots     []slot
	errs      []error
	wg        sync.WaitGroup
}

// slot is one chunk's scratch.
type slot struct {
	e      []float64 // n: SmallEig's subdiagonal
	t1, t2 []float64 // n×n
	eig    *lapackx.EigSym
	work   []float64 // dsyevd
	iwork  []int32
}

// NewBatch returns a workspace for up to cap matrices of order n.
func NewBatch(n, cap int) *Batch {
	if n < 0 || cap < 0 {
		panic("spectral: negative batch size")
	}
	nn := n * n
	b := &Batch{n: n, cap: cap,
		in: make([]float64, cap*nn), lam: make([]float64, cap*n), fv: make([]float64, cap*n),
		v: make([]float64, cap*nn), vt: make([]float64, cap*nn), gam: make([]float64, cap*nn),
		identF: make([]bool, cap), identD: make([]bool, cap)}
	w := max(1, runtime.GOMAXPROCS(0))
	b.slots = make([]slot, w)
	b.errs = make([]error, w)
	for i := range b.slots {
		s := &b.slots[i]
		s.e, s.t1, s.t2 = make([]float64, n), make([]float64, nn), make([]float64, nn)
		// Every path's workspace: Path may change between calls.
		s.eig = lapackx.NewEigSym(n)
		lw, liw := lapackx.EigBatchWork(n)
		s.work, s.iwork = make([]float64, lw), make([]int32, liw)
	}
	return b
}

// N returns the order of the matrices.
func (b *Batch) N() int { return b.n }

// Cap returns the number of matrices the Batch holds at most.
func (b *Batch) Cap() int { return b.cap }

// Len returns the number of matrices of the last successful Factorize.
func (b *Batch) Len() int { return b.m }

// Values returns the eigenvalues of A_i in ascending order (the Batch's
// own slice).
func (b *Batch) Values(i int) []float64 { b.mustHave(i); return b.lam[i*b.n : (i+1)*b.n] }

// Vectors returns V_i, whose row a is the unit eigenvector of
// Values(i)[a] (the Batch's own slice).
func (b *Batch) Vectors(i int) []float64 {
	b.mustHave(i)
	return b.v[i*b.n*b.n : (i+1)*b.n*b.n]
}

// FValues returns f(λ) of A_i after Apply (the Batch's own slice).
func (b *Batch) FValues(i int) []float64 {
	b.mustApplied(i)
	return b.fv[i*b.n : (i+1)*b.n]
}

// Loewner returns Γ_i, the n×n matrix of divided differences f[λ_a, λ_b]
// of A_i after Apply (the Batch's own slice).
func (b *Batch) Loewner(i int) []float64 {
	b.mustApplied(i)
	return b.gam[i*b.n*b.n : (i+1)*b.n*b.n]
}

func (b *Batch) mustHave(i int) {
	if i < 0 || i >= b.m {
		panic(fmt.Sprintf("spectral: matrix %d of a batch of %d factorized", i, b.m))
	}
}

func (b *Batch) mustApplied(i int) {
	b.mustHave(i)
	if !b.applied {
		panic("spectral: Batch used without a successful Apply")
	}
}

// path returns the eigensolver for this batch's order and backend.
func (b *Batch) path() Path {
	native := lapackx.Backend() == "openblas"
	switch p := b.Path; {
	case p == Go:
		return Go
	case p == Batched && native:
		return Batched
	case p == Batched || p == LAPACK:
		return LAPACK
	case native && b.n <= batchGoCutoff, !native && b.n <= goEigCutoff:
		return Go
	case native:
		return Batched
	}
	return LAPACK
}

// Factorize computes the eigendecompositions of the first m matrices of a
// (m·n·n entries or more), reading the upper triangle of each. It returns
// an error wrapping numerr.ErrNotFinite for a non-finite entry and
// numerr.ErrNotConverged or lapackx.ErrLapack when an eigensolver fails,
// naming the first failing matrix; the Batch then holds no factorization.
func (b *Batch) Factorize(a []float64, m int) error {
	if m < 0 || m > b.cap || len(a) < m*b.n*b.n {
		panic(fmt.Sprintf("spectral: Factorize %d matrices of order %d from %d entries, capacity %d", m, b.n, len(a), b.cap))
	}
	b.checkSym, b.base = false, 0
	return b.factorize(a, m)
}

// factorize is Factorize without the checks of its arguments.
func (b *Batch) factorize(a []float64, m int) error {
	b.m, b.applied, b.f = 0, false, nil
	n := b.n
	if err := b.run(opFactor, m, n*n*n*8, a, nil, nil, nil); err != nil {
		return err
	}
	b.m = m
	return nil
}

// Apply sets f as the Batch's function, computes f(λ) and the Loewner
// matrices of every factorized matrix, and, when dst is not nil, sets its
// blocks to f(A_i) (exactly symmetric; exactly A_i where f(λ) = λ at every
// eigenvalue). It returns an error wrapping numerr.ErrNotPosDef when f
// needs positive arguments and some λ ≤ 0, numerr.ErrOverflow for an
// infinite f(λ) and numerr.ErrNotFinite for a NaN one.
func (b *Batch) Apply(dst []float64, f lapackx.Func) error {
	if dst != nil && len(dst) < b.m*b.n*b.n {
		panic("spectral: Apply: dst too short")
	}
	b.applied, b.f = false, f
	n := b.n
	if f == nil {
		return fmt.Errorf("spectral: %w: Apply: f is nil", numerr.ErrInvalid)
	}
	if err := b.run(opApply, b.m, n*n*(n+4), nil, dst, nil, nil); err != nil {
		return err
	}
	b.applied = true
	return nil
}

// Frechet sets dst = Df(A_i)[E] for the symmetric E whose upper triangle
// e holds (n×n; the lower triangle is not read), after Apply. dst is
// exactly symmetric; it may be e.
func (b *Batch) Frechet(dst, e []float64, i int) {
	b.mustApplied(i)
	n := b.n
	if len(dst) != n*n || len(e) != n*n {
		panic("spectral: Frechet: dimension mismatch")
	}
	s := &b.slots[0]
	copy(s.t1, e)
	mirrorUpper(s.t1, n)
	b.blasFrom = blasFrom()
	b.frechet(dst, i, s)
}

// Backward sets dst = Df(A_i)*[G] = Df(A_i)[(G + Gᵀ)/2], the adjoint of
// the Fréchet derivative restricted to symmetric directions, for any n×n
// g (the gradient of a loss with respect to f(A_i)): the gradient with
// respect to A_i, which satisfies ⟨G, Df(A_i)[E]⟩ = ⟨Backward(G), E⟩ for
// every symmetric E. dst may be g.
func (b *Batch) Backward(dst, g []float64, i int) {
	b.mustApplied(i)
	n := b.n
	if len(dst) != n*n || len(g) != n*n {
		panic("spectral: Backward: dimension mismatch")
	}
	s := &b.slots[0]
	symInto(s.t1, g, n)
	b.blasFrom = blasFrom()
	b.frechet(dst, i, s)
}

// FrechetAll sets each block dst_i = Df(A_i)[E_i] for the symmetric E_i
// whose upper triangles the blocks of e hold, i < Len(), in parallel;
// where w is not nil and w[i] = 0 it sets dst_i = 0 without work (a
// minibatch's absent samples). dst may be e.
func (b *Batch) FrechetAll(dst, e, w []float64) {
	if !b.applied {
		panic("spectral: Batch used without a successful Apply")
	}
	nn := b.n * b.n
	if len(dst) < b.m*nn || len(e) < b.m*nn || (w != nil && len(w) < b.m) {
		panic("spectral: FrechetAll: dimension mismatch")
	}
	b.run(opFrechet, b.m, 3*nn*b.n+4*nn, nil, dst, e, w) // cannot fail
}

// BackwardAll sets each block dst_i = Df(A_i)*[G_i] = Df(A_i)[(G_i +
// G_iᵀ)/2] for the n×n blocks G_i of g (the gradients of a loss with
// respect to f(A_i)), i < Len(), in parallel: Backward for the whole
// batch. dst may be g.
func (b *Batch) BackwardAll(dst, g []float64) {
	if !b.applied {
		panic("spectral: Batch used without a successful Apply")
	}
	nn := b.n * b.n
	if len(dst) < b.m*nn || len(g) < b.m*nn {
		panic("spectral: BackwardAll: dimension mismatch")
	}
	b.run(opBackward, b.m, 3*nn*b.n+4*nn, nil, dst, g, nil) // cannot fail
}

// op is the work a chunk does.
type op uint8

const (
	opFactor op = iota
	opApply
	opFrechet
	opBackward
)

// job is one chunk: matrices [lo, hi) with scratch slot.
type job struct {
	b          *Batch
	op         op
	lo, hi, sl int
	a, dst, e  []float64
	w          []float64
}

// parMinWork is the estimated work (flops: 8n³ per eigendecomposition,
// 3n³ per Fréchet derivative) below which a chunk is not handed to another
// goroutine. Waking an idle thread costs tens of microseconds: on the
// 2-core Xeon a LogEig layer (forward and backward) on 40 matrices took
// the same 64 µs (n = 5) and 242 µs (n = 10) on one worker and on two,
// and gained from the second from n = 20 (1.02 → 0.77 ms) and n = 50
// (8.4 → 4.4–5.4 ms), for thresholds from 2¹⁸ to 2²⁰ alike. A variable for
// the benchmarks.
var parMinWork = 1 << 20

// run splits [0, m) into chunks of at least parMinWork estimated flops
// (cost per matrix), at most one per worker, runs them (the first in the
// caller) and returns the error of the lowest failing matrix.
func (b *Batch) run(o op, m, cost int, a, dst, e, w []float64) error {
	if m == 0 {
		return nil
	}
	b.blasFrom = blasFrom()
	workers := len(b.slots)
	if b.Workers > 0 {
		workers = min(workers, b.Workers)
	}
	chunks := max(1, min(workers, m, m*cost/parMinWork))
	if chunks > 1 {
		// OpenBLAS on one thread while the chunks run in parallel (a
		// no-op on the pure-Go backend and in shared mode).
		blas.SerialBegin()
		defer blas.SerialEnd()
		startPool()
	}
	for c := 0; c < chunks; c++ {
		b.errs[c] = nil
	}
	b.wg.Add(chunks - 1)
	for c := 1; c < chunks; c++ {
		pool.jobs <- job{b: b, op: o, lo: c * m / chunks, hi: (c + 1) * m / chunks, sl: c, a: a, dst: dst, e: e, w: w}
	}
	(&job{b: b, op: o, lo: 0, hi: m / chunks, sl: 0, a: a, dst: dst, e: e, w: w}).do()
	b.wg.Wait()
	for c := 0; c < chunks; c++ {
		if b.errs[c] != nil {
			return b.errs[c]
		}
	}
	return nil
}

// pool is the package's goroutines, started on first parallel use and
// kept for the life of the process, as blas's Dgemm pool is: jobs are
// values, so handing one over allocates nothing.
var pool struct {
	once sync.Once
	jobs chan job
}

func startPool() {
	pool.once.Do(func() {
		w := max(1, runtime.GOMAXPROCS(0))
		pool.jobs = make(chan job, 4*w)
		for i := 0; i < w; i++ {
			go func() {
				for j := range pool.jobs {
					j.do()
					j.b.wg.Done()
				}
			}()
		}
	})
}

// do runs the job's chunk, recording its first error in the slot.
func (j *job) do() {
	b, s := j.b, &j.b.slots[j.sl]
	var err error
	switch j.op {
	case opFactor:
		err = b.factorChunk(j.a, j.lo, j.hi, s)
	case opApply:
		err = b.applyChunk(j.dst, j.lo, j.hi, s)
	case opFrechet, opBackward:
		nn := b.n * b.n
		for i := j.lo; i < j.hi; i++ {
			d := j.dst[i*nn : (i+1)*nn]
			if j.w != nil && j.w[i] == 0 {
				clear(d)
				continue
			}
			if j.op == opBackward {
				symInto(s.t1, j.e[i*nn:(i+1)*nn], b.n)
			} else {
				copy(s.t1, j.e[i*nn:(i+1)*nn])
				mirrorUpper(s.t1, b.n)
			}
			b.frechet(d, i, s)
		}
	}
	b.errs[j.sl] = err
}

// factorChunk factorizes matrices [lo, hi) of a.
func (b *Batch) factorChunk(a []float64, lo, hi int, s *slot) error {
	n, nn := b.n, b.n*b.n
	if n == 0 {
		return nil
	}
	// The symmetric copies, checked finite (the upper triangles).
	for i := lo; i < hi; i++ {
		src, in := a[i*nn:(i+1)*nn], b.in[i*nn:(i+1)*nn]
		var amax float64
		for p := 0; p < n; p++ {
			for q := p; q < n; q++ {
				x := src[p*n+q]
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("spectral: %w: matrix %d, entry [%d,%d] = %v", numerr.ErrNotFinite, b.base+i, p, q, x)
				}
				in[p*n+q], in[q*n+p] = x, x
				amax = max(amax, math.Abs(x))
			}
		}
		if b.checkSym {
			if err := checkLower(src, n, amax); err != nil {
				return fmt.Errorf("spectral: matrix %d: %w", b.base+i, err)
			}
		}
	}
	switch b.path() {
	case Go:
		for i := lo; i < hi; i++ {
			if err := eigInto(b.lam[i*n:(i+1)*n], s.e, b.v[i*nn:(i+1)*nn], b.in[i*nn:(i+1)*nn], n); err != nil {
				return fmt.Errorf("spectral: matrix %d: %w", b.base+i, err)
			}
		}
	case LAPACK:
		for i := lo; i < hi; i++ {
			if err := s.eig.FactorizeLower(b.in[i*nn : (i+1)*nn]); err != nil {
				return fmt.Errorf("spectral: matrix %d: %w", b.base+i, err)
			}
			copy(b.lam[i*n:(i+1)*n], s.eig.Values())
			copy(b.v[i*nn:(i+1)*nn], s.eig.Vectors())
		}
	case Batched:
		copy(b.v[lo*nn:hi*nn], b.in[lo*nn:hi*nn])
		if idx, err := lapackx.EigBatch(n, hi-lo, b.v[lo*nn:hi*nn], b.lam[lo*n:hi*n], s.work, s.iwork); err != nil {
			return fmt.Errorf("spectral: matrix %d: %w", b.base+lo+idx, err)
		}
	}
	for i := lo; i < hi; i++ {
		v, vt := b.v[i*nn:(i+1)*nn], b.vt[i*nn:(i+1)*nn]
		for p := 0; p < n; p++ {
			for q := 0; q < n; q++ {
				vt[q*n+p] = v[p*n+q]
			}
		}
	}
	return nil
}

// applyChunk evaluates f on matrices [lo, hi): f(λ), Γ and f(A).
func (b *Batch) applyChunk(dst []float64, lo, hi int, s *slot) error {
	n, nn, f := b.n, b.n*b.n, b.f
	for i := lo; i < hi; i++ {
		lam, fv := b.lam[i*n:(i+1)*n], b.fv[i*n:(i+1)*n]
		if n > 0 && f.Positive() && !(lam[0] > 0) {
			return fmt.Errorf("spectral: %w: matrix %d has smallest eigenvalue %.6g, the function needs positive ones", numerr.ErrNotPosDef, b.base+i, lam[0])
		}
		identF := true
		for k, x := range lam {
			y := f.Eval(x)
			switch {
			case math.IsInf(y, 0):
				return fmt.Errorf("spectral: %w: matrix %d: f(%.6g) = %v", numerr.ErrOverflow, b.base+i, x, y)
			case math.IsNaN(y):
				return fmt.Errorf("spectral: %w: matrix %d: f(%.6g) = NaN", numerr.ErrNotFinite, b.base+i, x)
			}
			fv[k] = y
			identF = identF && y == x
		}
		// Γ_ab = f[λ_a, λ_b]: the quotient where f_a and f_b differ by at
		// least half the larger (no cancellation, no function call), the
		// function's own divided difference elsewhere (lapackx's rule).
		g := b.gam[i*nn : (i+1)*nn]
		identD := true
		for a := 0; a < n; a++ {
			la, fa := lam[a], fv[a]
			d := f.DivDiff(la, la)
			g[a*n+a] = d
			identD = identD && d == 1
			for c := a + 1; c < n; c++ {
				lc, fc := lam[c], fv[c]
				if df := fa - fc; math.Abs(df) >= 0.5*math.Max(math.Abs(fa), math.Abs(fc)) && la != lc {
					d = df / (la - lc)
				} else {
					d = f.DivDiff(la, lc)
				}
				g[a*n+c], g[c*n+a] = d, d
				identD = identD && d == 1
			}
		}
		b.identF[i], b.identD[i] = identF, identD
		if dst == nil {
			continue
		}
		out := dst[i*nn : (i+1)*nn]
		if identF {
			copy(out, b.in[i*nn:(i+1)*nn])
			continue
		}
		// f(A) = Vᵀ diag(f) V = Σ_k f_k v_k v_kᵀ.
		vt := b.vt[i*nn : (i+1)*nn]
		if n < b.blasFrom {
			for a := 0; a < n; a++ {
				ua := vt[a*n : (a+1)*n]
				for k := range fv {
					s.t1[k] = fv[k] * ua[k]
				}
				for c := a; c < n; c++ {
					x := floats.Dot(s.t1[:n], vt[c*n:(c+1)*n])
					out[a*n+c], out[c*n+a] = x, x
				}
			}
			continue
		}
		clear(s.t1)
		for k := range fv {
			s.t1[k*n+k] = fv[k]
		}
		lapackx.Congruence(out, b.v[i*nn:(i+1)*nn], s.t1, s.t2, n, true)
	}
	return nil
}

// congruenceCutoff and congruenceCutoffGo are the orders from which the
// congruences of Frechet and Apply go to BLAS (lapackx.Congruence) instead
// of the row-dot loops, on the native and on the pure-Go backend.
// BenchmarkFrechet, medians on the 2-core Xeon: native, dots against BLAS,
// 0.33 against 0.55 µs at n = 5, 1.54 against 1.03 at 10, 9.5 against 3.2
// at 20, 836 against 113 at 100; pure Go, the dots ahead or level up to
// n = 100 (9.5 against 10.7 µs at 20, 835 against 870 at 100).
// Variables for the benchmark.
var (
	congruenceCutoff   = 8
	congruenceCutoffGo = 128
)

// blasFrom returns the order from which the congruences use BLAS on the
// backend in use.
func blasFrom() int {
	if blas.Current() == blas.Native {
		return congruenceCutoff
	}
	return congruenceCutoffGo
}

// frechet sets dst = V_iᵀ (Γ_i ∘ (V_i E V_iᵀ)) V_i for the full symmetric
// E in s.t1, which it overwrites, with the slot's scratch; dst must not be
// s.t1 or s.t2.
func (b *Batch) frechet(dst []float64, i int, s *slot) {
	n, nn := b.n, b.n*b.n
	e := s.t1
	if b.identD[i] {
		copy(dst, e)
		return
	}
	v, vt, g := b.v[i*nn:(i+1)*nn], b.vt[i*nn:(i+1)*nn], b.gam[i*nn:(i+1)*nn]
	if n >= b.blasFrom {
		x := e
		lapackx.Congruence(x, v, x, s.t2, n, false)
		for k := range x {
			x[k] *= g[k]
		}
		lapackx.Congruence(dst, v, x, s.t2, n, true)
		return
	}
	// With E and X symmetric: (V E)_ab = ⟨v_a, e_b⟩, (V E Vᵀ)_ab =
	// ⟨(VE)_a, v_b⟩, (Vᵀ X)_ab = ⟨u_a, x_b⟩ with u_a the rows of Vᵀ, and
	// (Vᵀ X V)_ab = ⟨(VᵀX)_a, u_b⟩: dot products of contiguous rows, the
	// symmetric results on one triangle, 3n³ multiply-adds.
	t, x := s.t2, e
	rowDots(t, v, e, n) // t = V E
	for a := 0; a < n; a++ {
		ta := t[a*n : (a+1)*n]
		for c := a; c < n; c++ {
			y := floats.Dot(ta, v[c*n:(c+1)*n]) * g[a*n+c]
			x[a*n+c], x[c*n+a] = y, y
		}
	}
	rowDots(t, vt, x, n) // t = Vᵀ X
	for a := 0; a < n; a++ {
		ta := t[a*n : (a+1)*n]
		for c := a; c < n; c++ {
			y := floats.Dot(ta, vt[c*n:(c+1)*n])
			dst[a*n+c], dst[c*n+a] = y, y
		}
	}
}

// rowDots sets the n×n dst_ab = ⟨q_a, s_b⟩ (rows), which is Q S for
// symmetric S.
func rowDots(dst, q, s []float64, n int) {
	for a := 0; a < n; a++ {
		qa := q[a*n : (a+1)*n]
		for c := 0; c < n; c++ {
			dst[a*n+c] = floats.Dot(qa, s[c*n:(c+1)*n])
		}
	}
}

// mirrorUpper copies the strict upper triangle of the n×n a into its lower
// one.
func mirrorUpper(a []float64, n int) {
	for p := 0; p < n; p++ {
		for q := p + 1; q < n; q++ {
			a[q*n+p] = a[p*n+q]
		}
	}
}

// symInto sets dst = (g + gᵀ)/2.
func symInto(dst, g []float64, n int) {
	for p := 0; p < n; p++ {
		dst[p*n+p] = g[p*n+p]
		for q := p + 1; q < n; q++ {
			x := 0.5 * (g[p*n+q] + g[q*n+p])
			dst[p*n+q], dst[q*n+p] = x, x
		}
	}
}
