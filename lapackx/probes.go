package lapackx

import (
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// lapackOrders are the orders the LAPACK probes measure.
var lapackOrders = []int{128, 256, 384, 512, 768, 1024, 1536, 2048, 3072}

// ThreadProbes returns the probes (see blas.Probe) of the LAPACK calls
// with one-thread windows, each calling LAPACKE directly (nil on the
// pure-Go backend). dgees stops at n = 1024, where it takes seconds.
func ThreadProbes() []blas.Probe {
	if _, ok := lp().(nativeLapack); !ok {
		return nil
	}
	// in returns an SPD matrix with eigenvalues in [1, 2n], its upper
	// Cholesky factor (row-major lower), a general matrix, and workspaces.
	type inputs struct {
		spd, chol, gen, buf, w, wi, u, work []float64
		ipiv, iwork                         []int32
	}
	in := func(n int) *inputs {
		rnd := rand.New(rand.NewPCG(uint64(n), 2))
		v := &inputs{gen: make([]float64, n*n), spd: make([]float64, n*n), buf: make([]float64, n*n),
			w: make([]float64, n), wi: make([]float64, n), u: make([]float64, n*n), ipiv: make([]int32, n)}
		for i := range v.gen {
			v.gen[i] = rnd.NormFloat64()
		}
		// spd = gᵀg/n + I: well conditioned for large n.
		blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, n, n, 1/float64(n), v.gen, n, 0, v.spd, n)
		for i := range n {
			v.spd[i*n+i]++
			for j := range i {
				v.spd[i*n+j] = v.spd[j*n+i]
			}
		}
		v.chol = append([]float64(nil), v.spd...)
		lapacke.Dpotrf('U', n, v.chol, n)
		lwork := max(1+6*n+2*n*n, 64*n)
		var q [1]float64
		lapacke.Dgees(n, nil, n, nil, nil, nil, n, q[:], -1)
		v.work, v.iwork = make([]float64, max(lwork, int(q[0]))), make([]int32, 3+5*n)
		return v
	}
	probe := func(c blas.Call, maxN int, f func(n int, v *inputs)) blas.Probe {
		var orders []int
		for _, n := range lapackOrders {
			if n <= maxN {
				orders = append(orders, n)
			}
		}
		return blas.Probe{Call: c, Orders: orders, Setup: func(n int) func() {
			v := in(n)
			return func() { f(n, v) }
		}}
	}
	const all = 1 << 30
	return []blas.Probe{
		probe(blas.CallPotrf, all, func(n int, v *inputs) { copy(v.buf, v.spd); lapacke.Dpotrf('U', n, v.buf, n) }),
		probe(blas.CallPotri, all, func(n int, v *inputs) { copy(v.buf, v.chol); lapacke.Dpotri('U', n, v.buf, n) }),
		probe(blas.CallGetrf, all, func(n int, v *inputs) { copy(v.buf, v.gen); lapacke.Dgetrf(n, n, v.buf, n, v.ipiv) }),
		probe(blas.CallSygst, all, func(n int, v *inputs) { copy(v.buf, v.spd); lapacke.Dsygst(1, 'U', n, v.buf, n, v.chol, n) }),
		probe(blas.CallSyevd, all, func(n int, v *inputs) {
			copy(v.buf, v.spd)
			lapacke.Dsyevd('V', 'U', n, v.buf, n, v.w, v.work, v.iwork)
		}),
		probe(blas.CallQR, all, func(n int, v *inputs) { // QR's thin Q of a row-major n×n: dgelqf and dorglq
			copy(v.buf, v.gen)
			lapacke.Dgelqf(n, n, v.buf, n, v.w, v.work, len(v.work))
			lapacke.Dorglq(n, n, n, v.buf, n, v.w, v.work, len(v.work))
		}),
		probe(blas.CallGees, 1024, func(n int, v *inputs) {
			copy(v.buf, v.gen)
			lapacke.Dgees(n, v.buf, n, v.w, v.wi, v.u, n, v.work, len(v.work))
		}),
	}
}
