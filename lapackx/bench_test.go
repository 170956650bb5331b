package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// Benchmarks run under the backend selected at start-up; RHGD_BLAS=gonum
// switches to pure Go. Sizes follow the architecture note.
var benchSizes = []int{50, 200, 1000}

// benchSPD is an SPD matrix with eigenvalues from 1e-2 to 1e2.
func benchSPD(n int) []float64 { return withSpectrum(newRand(uint64(n)), logSpaced(n, 1e-2, 1e2)) }

func runSizes(b *testing.B, f func(b *testing.B, n int)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			f(b, n)
		})
	}
}

// BenchmarkEigSym is the floor: copy the matrix and call the eigensolver,
// without the input checks.
func BenchmarkEigSym(b *testing.B) {
	runSizes(b, func(b *testing.B, n int) {
		a := benchSPD(n)
		e := NewEigSym(n)
		for b.Loop() {
			copy(e.v, a)
			if err := e.factorizeV(false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchSymFunc(b *testing.B, f Func) {
	runSizes(b, func(b *testing.B, n int) {
		a := benchSPD(n)
		s := NewSymFunc(n)
		dst := make([]float64, n*n)
		for b.Loop() {
			if err := s.Apply(dst, a, f); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkExpSym(b *testing.B)  { benchSymFunc(b, ExpFunc) }
func BenchmarkLogSym(b *testing.B)  { benchSymFunc(b, LogFunc) }
func BenchmarkSqrtSym(b *testing.B) { benchSymFunc(b, SqrtFunc) }

// BenchmarkFrechetExpSym includes the eigendecomposition: the cost of one
// D exp(A)[E] from scratch.
func BenchmarkFrechetExpSym(b *testing.B) {
	runSizes(b, func(b *testing.B, n int) {
		a, e := benchSPD(n), randSym(newRand(9), n, 1)
		s := NewSymFunc(n)
		dst := make([]float64, n*n)
		for b.Loop() {
			if err := s.Factorize(a); err != nil {
				b.Fatal(err)
			}
			if err := s.Frechet(dst, e, ExpFunc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLyapunovSym includes the eigendecomposition of A.
func BenchmarkLyapunovSym(b *testing.B) {
	runSizes(b, func(b *testing.B, n int) {
		a, c := benchSPD(n), randSym(newRand(9), n, 1)
		l := NewLyapSym(n)
		dst := make([]float64, n*n)
		for b.Loop() {
			if err := l.Solve(dst, a, c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGemm is C = A B through gonum's blas64, whichever backend.
func BenchmarkGemm(b *testing.B) {
	runSizes(b, func(b *testing.B, n int) {
		rnd := newRand(1)
		a, bb, c := randGeneral(rnd, n, n, 1), randGeneral(rnd, n, n, 1), make([]float64, n*n)
		impl := blas.Impl()
		for b.Loop() {
			impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, bb, n, 0, c, n)
		}
	})
}

// BenchmarkExpm is the general exponential of a Gaussian matrix with
// 1-norm about 5 (degree 13, a few squarings).
func BenchmarkExpm(b *testing.B) {
	runSizes(b, func(b *testing.B, n int) {
		a := randGeneral(newRand(3), n, n, 1)
		scale(a, 5/NewExpm(n).norm1(a))
		e := NewExpm(n)
		dst := make([]float64, n*n)
		for b.Loop() {
			if err := e.Exp(dst, a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkQR is the thin QR of an n×p Gaussian matrix with Q formed:
// square at the architecture's sizes, and the tall Stiefel shapes.
func BenchmarkQR(b *testing.B) {
	shapes := [][2]int{{50, 50}, {200, 200}, {1000, 1000}, {1000, 50}, {10000, 100}}
	for _, s := range shapes {
		n, p := s[0], s[1]
		name := fmt.Sprintf("n=%d", n)
		if p != n {
			name = fmt.Sprintf("n=%d,p=%d", n, p)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			a := randGeneral(newRand(4), n, p, 1)
			qr := NewQR(n, p)
			q := make([]float64, n*p)
			for b.Loop() {
				if err := qr.Factorize(a); err != nil {
					b.Fatal(err)
				}
				qr.QTo(q)
			}
		})
	}
}

// BenchmarkCongruenceMethod compares the two ways to form V M Vᵀ: a
// triangular product and a rank-2k update (3n³ flops) against two general
// products (4n³ flops), to place congruenceGemmCutoff. Measured on the
// 2-core Xeon (`go test -run '^$' -bench CongruenceMethod -count 3
// ./lapackx`), medians: see congruenceGemmCutoff.
func BenchmarkCongruenceMethod(b *testing.B) {
	for _, n := range []int{20, 50, 100, 200, 400} {
		rnd := newRand(8)
		v, msym := randGeneral(rnd, n, n, 1), randSym(rnd, n, 1)
		m, p, dst := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		b.Run(fmt.Sprintf("method=trmm-syr2k/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(m, msym)
				congruenceVMVt(dst, v, m, p, n)
				mirrorUpper(dst, n)
			}
		})
		b.Run(fmt.Sprintf("method=gemm/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(m, msym)
				congruenceGemm(dst, v, m, p, n, false)
			}
		})
	}
}

// benchCholFactor is the lower Cholesky factor L (zero upper triangle) of
// a random symmetric n×n matrix with n added to its diagonal.
func benchCholFactor(n int) []float64 {
	l := randSym(newRand(9), n, 1)
	for i := 0; i < n; i++ {
		l[i*n+i] += float64(n)
	}
	Impl{}.Dpotrf(gblas.Lower, n, l, n)
	for i := 0; i < n; i++ {
		clear(l[i*n+i+1 : (i+1)*n])
	}
	return l
}

// BenchmarkCholInverse compares two ways to invert an SPD matrix from its
// Cholesky factor: LAPACK's dpotri against a triangular solve with the
// identity and a Gram product (CholInverse).
func BenchmarkCholInverse(b *testing.B) {
	for _, n := range []int{20, 50, 100, 150, 200, 1000} {
		l := benchCholFactor(n)
		dst, li := make([]float64, n*n), make([]float64, n*n)
		b.Run(fmt.Sprintf("method=potri/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, l)
				Impl{}.Dpotri(gblas.Lower, n, dst, n)
			}
		})
		b.Run(fmt.Sprintf("method=trsm-gram/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				CholInverse(dst, li, l, n)
			}
		})
	}
}

// BenchmarkInvLower compares InvLower's two routes to L⁻¹: a triangular
// solve against the identity and LAPACK's blocked dtrtri.
func BenchmarkInvLower(b *testing.B) {
	for _, n := range []int{50, 100, 200, 500, 1000} {
		l := benchCholFactor(n)
		li := make([]float64, n*n)
		b.Run(fmt.Sprintf("method=trsm/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				clear(li)
				for i := 0; i < n; i++ {
					li[i*n+i] = 1
				}
				blas.Impl().Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, li, n)
			}
		})
		b.Run(fmt.Sprintf("method=trtri/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(li, l)
				lp().trtri(gblas.Lower, n, li, n)
			}
		})
	}
}
