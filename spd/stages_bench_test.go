package spd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
)

// BenchmarkSPDExpStages splits Exp_X(U) = L expm(L⁻¹UL⁻ᵀ) Lᵀ into the
// stages Exp runs, each as Exp runs it (copies and checks included), next
// to the bare BLAS/LAPACK calls that bound them (stage=floor-*;
// floor-sygst is lapackx.ReduceSym, LAPACK's dsygst, which the congruence
// stage replaces by lapackx.ReduceSymRecursive). Each reports Gflop/s over
// the nominal count: potrf n³/3, dsygst n³, dsyevd with vectors 9n³, trmm
// n³, syrk n³, gemm 2n³; a stage's time over the floor's, or the gemm rate
// over the stage's, is its distance from LAPACK.
// stage=full is BenchmarkSPDExp (two points in turn: the Cholesky factor
// of x is never cached); stage=chain is Exp along a path, as a solver
// calls it, where the factor cached by the previous result is reused.
//
//	go test -run '^$' -bench SPDExpStages -benchtime 3x -count 6 ./spd
func BenchmarkSPDExpStages(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		st := newExpStages(n)
		n3 := float64(n) * float64(n) * float64(n)
		for _, c := range []struct {
			name  string
			flops float64
			run   func()
		}{
			{"full", 0, st.full},
			{"chain", 0, st.chain},
			{"chol", n3 / 3, st.chol},
			{"congruence", n3, st.congruence},
			{"eig", 9 * n3, st.eig},
			{"gram", 2 * n3, st.gram},
			{"check", n3 / 3, st.check},
			{"floor-potrf", n3 / 3, st.potrf},
			{"floor-sygst", n3, st.sygst},
			{"floor-trmm", n3, st.trmm},
			{"floor-syrk", n3, st.syrk},
			{"floor-gemm", 2 * n3, st.gemm},
		} {
			b.Run(fmt.Sprintf("stage=%s/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c.run()
				}
				if c.flops > 0 {
					b.ReportMetric(c.flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gflop/s")
				}
			})
		}
	}
}

// expStages holds the operands of every stage of one Exp at order n.
type expStages struct {
	s            *SPD
	n, k         int
	xs, us       [2][]float64
	y, m, g, dst []float64
	a, c         []float64 // floor operands
	l            []float64 // L of xs[0]
}

func newExpStages(n int) *expStages {
	s := New(n)
	rnd := rand.New(rand.NewPCG(3, uint64(n)))
	sq := func() []float64 { return make([]float64, n*n) }
	st := &expStages{s: s, n: n, y: sq(), m: sq(), g: make([]float64, n), dst: sq(), a: sq(), c: sq(), l: sq()}
	for i := range st.xs {
		st.xs[i], st.us[i] = sq(), sq()
		s.RandPoint(st.xs[i], rnd)
		s.RandTangent(st.us[i], st.xs[i], rnd)
	}
	l, err := s.chol(st.xs[0])
	if err != nil {
		panic(err)
	}
	copy(st.l, l)
	copy(st.m, st.us[0])
	lapackx.ReduceSymRecursive(st.m, st.l, n)
	if err := s.eig.FactorizeLower(st.m); err != nil {
		panic(err)
	}
	for i, lam := range s.eig.Values() {
		st.g[i] = math.Exp(lam)
	}
	copy(st.y, st.xs[0])
	copy(st.a, st.us[0])
	return st
}

func (st *expStages) full() {
	st.k++
	if err := st.s.Exp(st.dst, st.xs[st.k&1], st.us[st.k&1], 1); err != nil {
		panic(err)
	}
}

// chain steps y ← Exp_y(±tU) so that y stays near xs[0].
func (st *expStages) chain() {
	st.k++
	t := 1e-3 // the cost does not depend on t; the drift stays small
	if st.k&1 == 0 {
		t = -t
	}
	if err := st.s.Exp(st.y, st.y, st.us[0], t); err != nil {
		panic(err)
	}
}

func (st *expStages) chol() {
	st.s.Invalidate()
	if _, err := st.s.chol(st.xs[0]); err != nil {
		panic(err)
	}
}

func (st *expStages) congruence() {
	copy(st.s.t1, st.us[0])
	lapackx.ReduceSymRecursive(st.s.t1, st.l, st.n)
}

// sygst is lapackx.ReduceSym: LAPACK's dsygst from n = 300 on the native
// backend.
func (st *expStages) sygst() {
	copy(st.c, st.us[0])
	lapackx.ReduceSym(st.c, st.l, st.n)
}

func (st *expStages) eig() {
	if err := st.s.eig.FactorizeLower(st.m); err != nil {
		panic(err)
	}
}

func (st *expStages) gram() { st.s.weightedGram(st.dst, st.xs[0], st.l, st.g, 0) }

func (st *expStages) check() {
	if !finite(st.dst) {
		panic("not finite")
	}
	st.s.Invalidate()
	if err := st.s.checkResult("exponential", st.dst); err != nil {
		panic(err)
	}
}

func (st *expStages) potrf() {
	copy(st.c, st.xs[0])
	if !(lapackx.Impl{}).Dpotrf(gblas.Lower, st.n, st.c, st.n) {
		panic("potrf")
	}
}

// trmm includes a copy of its operand, which it overwrites.
func (st *expStages) trmm() {
	n := st.n
	copy(st.a, st.us[0])
	blas.Impl().Dtrmm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, st.l, n, st.a, n)
}

func (st *expStages) syrk() {
	n := st.n
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, n, n, 1, st.us[0], n, 0, st.c, n)
}

func (st *expStages) gemm() {
	n := st.n
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, st.us[0], n, st.xs[0], n, 0, st.c, n)
}
