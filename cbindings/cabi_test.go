//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// The C ABI's codes, as the tests name them.
const (
	okC       = codeOK
	einval    = codeInval
	enotconv  = codeNotConv
	enumeric  = codeNumeric
	ebadh     = codeBadHandle
	einternal = codeInternal
	ecallback = codeCallback
	ebusy     = codeBusy
)

// TestMain starts the backend through rhgd_init, in shared mode as a
// host would (RHGD_SHARED=0 in the environment: owned, for benchmarks),
// and checks at the end that every test freed its handles.
func TestMain(m *testing.M) {
	shared := 1
	if os.Getenv("RHGD_SHARED") == "0" {
		shared = 0
	}
	if rc, msg := ctest.Do(func() int { return ctest.Init("", 0, shared) }); rc != okC {
		fmt.Fprintf(os.Stderr, "rhgd_init: %d %s\n", rc, msg)
		os.Exit(1)
	}
	code := m.Run()
	if n, rc := ctest.LiveHandles(); rc != okC || n != 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d handles left live at the end of the tests (rc %d)\n", n, rc)
		code = 1
	}
	os.Exit(code)
}

// call runs f and returns its code and the thread's message.
func call(f func() int) (int, string) { return ctest.Do(f) }

// wantCode fails unless f returns code with a message containing each of
// substrs.
func wantCode(t *testing.T, what string, code int, f func() int, substrs ...string) {
	t.Helper()
	rc, msg := call(f)
	if rc != code {
		t.Errorf("%s: code %d (%s), want %d (%s); message %q", what, rc, ctest.Strerror(rc), code, ctest.Strerror(code), msg)
		return
	}
	for _, s := range substrs {
		if !strings.Contains(msg, s) {
			t.Errorf("%s: message %q does not contain %q", what, msg, s)
		}
	}
	if code < 0 && !strings.HasPrefix(msg, "rhgd: ") {
		t.Errorf("%s: message %q lacks the rhgd: prefix", what, msg)
	}
}

func TestConstants(t *testing.T) {
	want := map[string]int64{"RHGD_OK": okC, "RHGD_EINVAL": einval, "RHGD_ENOTCONV": enotconv,
		"RHGD_ENUMERIC": enumeric, "RHGD_EBADHANDLE": ebadh, "RHGD_EINTERNAL": einternal,
		"RHGD_ECALLBACK": ecallback, "RHGD_EBUSY": ebusy,
		"RHGD_STATUS_NOT_TERMINATED": int64(solver.NotTerminated), "RHGD_STATUS_GRADIENT_THRESHOLD": int64(solver.GradientThreshold),
		"RHGD_STATUS_ITERATION_LIMIT": int64(solver.IterationLimit), "RHGD_STATUS_RUNTIME_LIMIT": int64(solver.RuntimeLimit),
		"RHGD_STATUS_CANCELLED": int64(solver.Cancelled), "RHGD_STATUS_DIVERGED": int64(solver.Diverged),
		"RHGD_STATUS_FAILURE": int64(solver.Failure), "RHGD_HISTORY_COLS": int64(histCols), "RHGD_RIEMANNIAN": 0, "RHGD_EUCLIDEAN": 1}
	for i, name := range ctest.ConstNames {
		if got := ctest.Const(i); got != want[name] {
			t.Errorf("%s = %d in rhgd.h, %d in Go", name, got, want[name])
		}
	}
	for s := solver.NotTerminated; s <= solver.Failure; s++ {
		if got := ctest.StatusString(int(s)); got != s.String() {
			t.Errorf("rhgd_status_string(%d) = %q, want %q", s, got, s.String())
		}
	}
	for _, c := range []int{okC, einval, enotconv, enumeric, ebadh, einternal, ecallback, ebusy} {
		if s := ctest.Strerror(c); !strings.HasPrefix(s, "RHGD_") {
			t.Errorf("rhgd_strerror(%d) = %q", c, s)
		}
	}
	if ctest.Strerror(-99) != "unknown code" {
		t.Errorf("rhgd_strerror(-99) = %q", ctest.Strerror(-99))
	}
}

func TestVersion(t *testing.T) {
	if v, h := ctest.Version(), ctest.HeaderVersion(); v != version || h != version {
		t.Errorf("rhgd_version() = %q, RHGD_VERSION = %q, Go version = %q", v, h, version)
	}
}

func TestInitAfterStart(t *testing.T) {
	wantCode(t, "second rhgd_init", einval, func() int { return ctest.Init("", 0, 1) }, "already started")
	wantCode(t, "rhgd_set_threads(0)", einval, func() int { return ctest.SetThreads(0) }, "threads")
	wantCode(t, "rhgd_init bad backend", einval, func() int { return ctest.Init("mkl", 0, 1) }, "mkl")
	wantCode(t, "rhgd_init negative threads", einval, func() int { return ctest.Init("", -2, 1) }, "threads = -2")
	n, s := ctest.Info(1 << 16)
	if n != len(s) || !strings.Contains(s, `"shared":`) || !strings.Contains(s, `"version":"`+version+`"`) {
		t.Errorf("rhgd_info = %d, %s", n, s)
	}
}

// TestCodeOf maps each shared sentinel to its code.
func TestCodeOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, okC}, {numerr.ErrInvalid, einval}, {errArg, einval}, {numerr.ErrNotConverged, enotconv},
		{coupling.ErrSinkhornNotConverged, enotconv}, {lapackx.ErrLapack, enotconv},
		{numerr.ErrNotFinite, enumeric}, {numerr.ErrNotPosDef, enumeric}, {numerr.ErrSingular, enumeric},
		{numerr.ErrOverflow, enumeric}, {numerr.ErrUnderflow, enumeric}, {numerr.ErrNotSymmetric, enumeric},
		{numerr.ErrDiverged, enumeric}, {fmt.Errorf("epoch 3: %w", solver.Diverged.Err()), enumeric},
		{input("a", numerr.ErrNotPosDef), einval}, {input("a", numerr.ErrNotFinite), einval},
		{fmt.Errorf("x: %w", errBadHandle), ebadh}, {errBusy, ebusy}, {errCallback, ecallback},
		{errors.New("unclassified"), einternal}, {stiefel.ErrNotOrthonormal, einval},
	} {
		if got := codeOf(c.err); got != c.code {
			t.Errorf("codeOf(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

// TestPanicRecovered: a panic inside an export is RHGD_EINTERNAL with the
// panic's value in the message, and the process goes on.
func TestPanicRecovered(t *testing.T) {
	wantCode(t, "panicking export", einternal, func() int {
		return int(guard(func() error { panic("deliberate") }))
	}, "panic: deliberate")
	wantCode(t, "nil dereference", einternal, func() int {
		return int(guard(func() error {
			var p *solverObj
			return p.run(nil, nil, nil, 0)
		}))
	}, "panic")
}

func TestLastError(t *testing.T) {
	rc, msg := call(func() int { return ctest.Expsym(0, nil, nil) })
	if rc != einval {
		t.Fatalf("expsym(0): %d", rc)
	}
	var n0, n5, nFull int
	var s5, sFull string
	call(func() int {
		ctest.Expsym(0, nil, nil)
		n0, _ = ctest.LastError(0)
		n5, s5 = ctest.LastError(5)
		nFull, sFull = ctest.LastError(len(msg) + 1)
		return 0
	})
	if n0 != len(msg) || n5 != len(msg) || nFull != len(msg) {
		t.Errorf("lengths %d, %d, %d, want %d", n0, n5, nFull, len(msg))
	}
	if s5 != msg[:4] || sFull != msg {
		t.Errorf("truncated %q, full %q, want %q", s5, sFull, msg)
	}
	// A success does not clear the message.
	a, out := []float64{1}, []float64{0}
	var after string
	call(func() int {
		ctest.Expsym(0, nil, nil)
		if ctest.Expsym(1, a, out) != okC {
			t.Error("expsym of [1] failed")
		}
		_, after = ctest.LastError(4096)
		return 0
	})
	if after != msg {
		t.Errorf("after a success the message is %q, want %q", after, msg)
	}
	// A long message is kept whole.
	long := strings.Repeat("é", 3000) // 6000 bytes
	var nl int
	var sl string
	call(func() int {
		_, code := ctest.ManifoldNew(long)
		nl, sl = ctest.LastError(16384)
		return code
	})
	if nl != len(sl) || !strings.Contains(sl, long) {
		t.Errorf("long message: length %d, %d bytes read", nl, len(sl))
	}
}

// householder returns I − 2vvᵀ/vᵀv, an orthogonal matrix known exactly
// enough to build test matrices with given eigenvalues without LAPACK.
func householder(n int, rnd *rand.Rand) []float64 {
	v := make([]float64, n)
	var s float64
	for i := range v {
		v[i] = rnd.NormFloat64()
		s += v[i] * v[i]
	}
	q := make([]float64, n*n)
	for i := range n {
		for j := range n {
			q[i*n+j] = -2 * v[i] * v[j] / s
		}
		q[i*n+i]++
	}
	return q
}

// spectral returns Q diag(f(d)) Qᵀ by plain loops.
func spectral(q, d []float64, f func(float64) float64) []float64 {
	n := len(d)
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += q[i*n+k] * f(d[k]) * q[j*n+k]
			}
			out[i*n+j] = s
		}
	}
	return out
}

func relErr(got, want []float64) float64 {
	var d, w float64
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		w = math.Max(w, math.Abs(want[i]))
	}
	return d / math.Max(w, 1e-300)
}

func id(x float64) float64 { return x }

// TestSymKernels checks expsym, logsym, sqrtsym and expm against
// Q diag(f(λ)) Qᵀ for a Householder Q and chosen λ, in place and not.
func TestSymKernels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 30} {
		q := householder(n, rnd)
		d := make([]float64, n)
		for i := range d {
			d[i] = 2*rnd.Float64() - 1
		}
		a := spectral(q, d, id)
		spdA := spectral(q, d, math.Exp) // eigenvalues e^d
		for _, c := range []struct {
			name string
			f    func(int64, []float64, []float64) int
			in   []float64
			want []float64
		}{
			{"expsym", ctest.Expsym, a, spectral(q, d, math.Exp)},
			{"expm", ctest.Expm, a, spectral(q, d, math.Exp)},
			{"logsym", ctest.Logsym, spdA, a},
			{"sqrtsym", ctest.Sqrtsym, spdA, spectral(q, d, func(x float64) float64 { return math.Exp(x / 2) })},
		} {
			out := make([]float64, n*n)
			if rc, msg := call(func() int { return c.f(int64(n), c.in, out) }); rc != okC {
				t.Fatalf("%s n=%d: %d %s", c.name, n, rc, msg)
			}
			if e := relErr(out, c.want); e > 1e-12 {
				t.Errorf("%s n=%d: relative error %.3g", c.name, n, e)
			}
			inplace := append([]float64(nil), c.in...)
			if rc := c.f(int64(n), inplace, inplace); rc != okC {
				t.Fatalf("%s n=%d in place: %d", c.name, n, rc)
			}
			if e := relErr(inplace, out); e != 0 && c.name != "expm" {
				t.Errorf("%s n=%d in place differs by %.3g", c.name, n, e)
			}
		}
	}
}

// TestExpmNonSymmetric checks expm on closed forms: a rotation generator
// and an upper triangular 2×2, block-diagonally.
func TestExpmNonSymmetric(t *testing.T) {
	const th, a, b, c = 0.7, 0.3, 2.0, -1.1
	m := []float64{
		0, -th, 0, 0,
		th, 0, 0, 0,
		0, 0, a, b,
		0, 0, 0, c}
	want := []float64{
		math.Cos(th), -math.Sin(th), 0, 0,
		math.Sin(th), math.Cos(th), 0, 0,
		0, 0, math.Exp(a), b * (math.Exp(a) - math.Exp(c)) / (a - c),
		0, 0, 0, math.Exp(c)}
	out := make([]float64, 16)
	if rc := ctest.Expm(4, m, out); rc != okC {
		t.Fatal(rc)
	}
	if e := relErr(out, want); e > 1e-14 {
		t.Errorf("expm relative error %.3g", e)
	}
	big := []float64{1000, 0, 0, 1000}
	wantCode(t, "expm overflow", enumeric, func() int { return ctest.Expm(2, big, out[:4]) }, "overflow")
	wantCode(t, "expsym overflow", enumeric, func() int { return ctest.Expsym(2, big, out[:4]) }, "overflow")
}

func TestLyapunov(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	// Diagonal A: X_ij = C_ij / (a_i + a_j).
	n := 6
	a, c := make([]float64, n*n), make([]float64, n*n)
	for i := range n {
		a[i*n+i] = 0.5 + float64(i)
		for j := 0; j <= i; j++ {
			v := rnd.NormFloat64()
			c[i*n+j], c[j*n+i] = v, v
		}
	}
	x := make([]float64, n*n)
	if rc := ctest.Lyap(int64(n), a, c, x); rc != okC {
		t.Fatal(rc)
	}
	want := make([]float64, n*n)
	for i := range n {
		for j := range n {
			want[i*n+j] = c[i*n+j] / (a[i*n+i] + a[j*n+j])
		}
	}
	if e := relErr(x, want); e > 1e-13 {
		t.Errorf("diagonal A: relative error %.3g", e)
	}
	// General SPD A: the residual.
	for _, n := range []int{2, 20} {
		q := householder(n, rnd)
		d := make([]float64, n)
		for i := range d {
			d[i] = 0.1 + rnd.Float64()
		}
		a := spectral(q, d, id)
		c := spectral(householder(n, rnd), d, func(x float64) float64 { return x - 0.5 })
		x := make([]float64, n*n)
		if rc := ctest.Lyap(int64(n), a, c, x); rc != okC {
			t.Fatal(rc)
		}
		A, X, C := mat.NewDense(n, n, a), mat.NewDense(n, n, x), mat.NewDense(n, n, c)
		var r, t2 mat.Dense
		r.Mul(A, X)
		t2.Mul(X, A)
		r.Add(&r, &t2)
		r.Sub(&r, C)
		if res := mat.Norm(&r, 2) / (mat.Norm(A, 2) * mat.Norm(X, 2)); res > 1e-14 {
			t.Errorf("n=%d: residual %.3g", n, res)
		}
		// In place on c.
		cc := append([]float64(nil), c...)
		if rc := ctest.Lyap(int64(n), a, cc, cc); rc != okC || relErr(cc, x) != 0 {
			t.Errorf("n=%d: in place differs (rc %d)", n, rc)
		}
	}
	// Singular: A = diag(1, −1).
	wantCode(t, "singular Lyapunov", enumeric, func() int {
		return ctest.Lyap(2, []float64{1, 0, 0, -1}, []float64{1, 0, 0, 1}, make([]float64, 4))
	}, "singular")
}

// TestSPDKernels checks Exp, Log and the distance on closed forms and as
// inverses.
func TestSPDKernels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	n := 7
	q := householder(n, rnd)
	d := make([]float64, n)
	for i := range d {
		d[i] = rnd.NormFloat64()
	}
	eye := spectral(q, make([]float64, n), math.Exp)
	u := spectral(q, d, id)
	out := make([]float64, n*n)
	// Exp_I(U) = exp(U), Log_I(exp(U)) = U, d(I, exp(U)) = ‖d‖.
	if rc := ctest.SPDExp(int64(n), eye, u, out); rc != okC {
		t.Fatal(rc)
	}
	if e := relErr(out, spectral(q, d, math.Exp)); e > 1e-12 {
		t.Errorf("Exp_I: relative error %.3g", e)
	}
	back := make([]float64, n*n)
	if rc := ctest.SPDLog(int64(n), eye, out, back); rc != okC {
		t.Fatal(rc)
	}
	if e := relErr(back, u); e > 1e-12 {
		t.Errorf("Log_I: relative error %.3g", e)
	}
	dist, rc := ctest.SPDDist(int64(n), eye, out, false)
	if rc != okC {
		t.Fatal(rc)
	}
	if want := mat.Norm(mat.NewVecDense(n, d), 2); math.Abs(dist-want) > 1e-12*want {
		t.Errorf("dist = %.17g, want %.17g", dist, want)
	}
	// At a general X: Log_X(Exp_X(U)) = U, d(X, Exp_X(U)) = ‖U‖_X.
	x := spectral(householder(n, rnd), d, func(v float64) float64 { return math.Exp(v / 2) })
	ux := spectral(householder(n, rnd), d, func(v float64) float64 { return 0.3 * v })
	y := make([]float64, n*n)
	if rc := ctest.SPDExp(int64(n), x, ux, y); rc != okC {
		t.Fatal(rc)
	}
	if rc := ctest.SPDLog(int64(n), x, y, back); rc != okC {
		t.Fatal(rc)
	}
	if e := relErr(back, ux); e > 1e-10 {
		t.Errorf("Log_X(Exp_X(U)) − U: relative error %.3g", e)
	}
	m := spd.New(n)
	dist, _ = ctest.SPDDist(int64(n), x, y, false)
	if want := m.Norm(x, ux); math.Abs(dist-want) > 1e-10*want {
		t.Errorf("d(X, Exp_X(U)) = %.15g, ‖U‖_X = %.15g", dist, want)
	}
	// In place: out = x.
	xx := append([]float64(nil), x...)
	if rc := ctest.SPDExp(int64(n), xx, ux, xx); rc != okC || relErr(xx, y) != 0 {
		t.Errorf("Exp in place differs (rc %d)", rc)
	}
}

func TestStiefelQR(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	n, p := 8, 3
	st := stiefel.New(n, p)
	x, u := make([]float64, n*p), make([]float64, n*p)
	st.RandPoint(x, rnd)
	st.RandTangent(u, x, rnd)
	out := make([]float64, n*p)
	if rc := ctest.StiefelQR(int64(n), int64(p), x, u, out); rc != okC {
		t.Fatal(rc)
	}
	// out has orthonormal columns, and R = outᵀ(X+U) is upper triangular
	// with a positive diagonal with out·R = X + U.
	Q := mat.NewDense(n, p, out)
	A := mat.NewDense(n, p, nil)
	A.Add(mat.NewDense(n, p, x), mat.NewDense(n, p, u))
	var qtq, r, qr mat.Dense
	qtq.Mul(Q.T(), Q)
	for i := range p {
		for j := range p {
			if w := b2f(i == j); math.Abs(qtq.At(i, j)-w) > 1e-14 {
				t.Errorf("QᵀQ[%d,%d] = %g", i, j, qtq.At(i, j))
			}
		}
	}
	r.Mul(Q.T(), A)
	for i := range p {
		if r.At(i, i) <= 0 {
			t.Errorf("R[%d,%d] = %g ≤ 0", i, i, r.At(i, i))
		}
		for j := range i {
			if math.Abs(r.At(i, j)) > 1e-14 {
				t.Errorf("R[%d,%d] = %g below the diagonal", i, j, r.At(i, j))
			}
		}
	}
	qr.Mul(Q, &r)
	if !mat.EqualApprox(&qr, A, 1e-14) {
		t.Error("Q R ≠ X + U")
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestCouplingRetr(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	m, n := 4, 5
	a := []float64{0.1, 0.2, 0.3, 0.4}
	b := []float64{0.3, 0.1, 0.2, 0.25, 0.15}
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	g, u := make([]float64, m*n), make([]float64, m*n)
	c.RandPoint(g, rnd)
	c.RandTangent(u, g, rnd)
	for i := range u {
		u[i] *= 0.05
	}
	out := make([]float64, m*n)
	if rc, msg := call(func() int { return ctest.CouplingRetr(int64(m), int64(n), a, b, g, u, out) }); rc != okC {
		t.Fatal(rc, msg)
	}
	// Marginals a and b; and out = diag(r) (Γ ∘ exp(U ⊘ Γ)) diag(s), so
	// L = log(out ⊘ (Γ ∘ exp(U ⊘ Γ))) is r_i + s_j: its double
	// differences vanish.
	for i := range m {
		var s float64
		for j := range n {
			s += out[i*n+j]
		}
		if math.Abs(s-a[i]) > 1e-12 {
			t.Errorf("row %d sums to %.15g, want %g", i, s, a[i])
		}
	}
	for j := range n {
		var s float64
		for i := range m {
			s += out[i*n+j]
		}
		if math.Abs(s-b[j]) > 1e-12 {
			t.Errorf("column %d sums to %.15g, want %g", j, s, b[j])
		}
	}
	L := func(i, j int) float64 {
		k := i*n + j
		return math.Log(out[k] / (g[k] * math.Exp(u[k]/g[k])))
	}
	for i := 1; i < m; i++ {
		for j := 1; j < n; j++ {
			if dd := L(i, j) - L(i, 0) - L(0, j) + L(0, 0); math.Abs(dd) > 1e-10 {
				t.Errorf("double difference [%d,%d] = %.3g", i, j, dd)
			}
		}
	}
	// Not converging: one Sinkhorn iteration is not enough.
	wantCode(t, "Sinkhorn limit", enotconv, func() int {
		h, rc := ctest.ManifoldCoupling(int64(m), int64(n), a, b, "maxiter=1")
		if rc != okC {
			return rc
		}
		defer ctest.ManifoldFree(h)
		u2 := append([]float64(nil), u...)
		for i := range u2 {
			u2[i] *= 40
		}
		return ctest.Retract(h, g, u2, 1, out)
	}, "Sinkhorn")
}

// TestKernelErrors feeds every kernel what it must reject.
func TestKernelErrors(t *testing.T) {
	eye2 := []float64{1, 0, 0, 1}
	nonsym := []float64{1, 2, 0, 1}
	indef := []float64{1, 0, 0, -1}
	nan := []float64{1, math.NaN(), math.NaN(), 1}
	inf := []float64{math.Inf(1), 0, 0, 1}
	out := make([]float64, 16)
	st := []float64{1, 0, 0, 1, 0, 0} // 3×2, orthonormal
	notSt := []float64{1, 0, 0, 2, 0, 0}
	a3, b3 := []float64{0.5, 0.5}, []float64{0.25, 0.25, 0.5}
	g23 := []float64{0.125, 0.125, 0.25, 0.125, 0.125, 0.25}
	u23 := make([]float64, 6)
	for _, c := range []struct {
		name string
		code int
		f    func() int
		msg  string
	}{
		{"expsym n=0", einval, func() int { return ctest.Expsym(0, eye2, out) }, "at least 1"},
		{"expsym n<0", einval, func() int { return ctest.Expsym(-3, eye2, out) }, "at least 1"},
		{"expsym huge n", einval, func() int { return ctest.Expsym(1<<40, eye2, out) }, "too large"},
		{"expsym NULL a", einval, func() int { return ctest.Expsym(2, nil, out) }, "a is NULL"},
		{"expsym NULL out", einval, func() int { return ctest.Expsym(2, eye2, nil) }, "out is NULL"},
		{"expsym NaN", einval, func() int { return ctest.Expsym(2, nan, out) }, "non-finite"},
		{"expsym Inf", einval, func() int { return ctest.Expsym(2, inf, out) }, "non-finite"},
		{"expsym not symmetric", einval, func() int { return ctest.Expsym(2, nonsym, out) }, "not symmetric"},
		{"logsym indefinite", einval, func() int { return ctest.Logsym(2, indef, out) }, "not positive definite"},
		{"sqrtsym indefinite", einval, func() int { return ctest.Sqrtsym(2, indef, out) }, "not positive definite"},
		{"logsym not symmetric", einval, func() int { return ctest.Logsym(2, nonsym, out) }, "not symmetric"},
		{"expm NaN", einval, func() int { return ctest.Expm(2, nan, out) }, "non-finite"},
		{"lyap NULL c", einval, func() int { return ctest.Lyap(2, eye2, nil, out) }, "c is NULL"},
		{"lyap A not symmetric", einval, func() int { return ctest.Lyap(2, nonsym, eye2, out) }, "a: "},
		{"lyap C not symmetric", einval, func() int { return ctest.Lyap(2, eye2, nonsym, out) }, "c: "},
		{"lyap C NaN", einval, func() int { return ctest.Lyap(2, eye2, nan, out) }, "c: "},
		{"spd_exp X indefinite", einval, func() int { return ctest.SPDExp(2, indef, eye2, out) }, "x: "},
		{"spd_exp U not symmetric", einval, func() int { return ctest.SPDExp(2, eye2, nonsym, out) }, "u: "},
		{"spd_log Y indefinite", einval, func() int { return ctest.SPDLog(2, eye2, indef, out) }, "y: "},
		{"spd_log X NaN", einval, func() int { return ctest.SPDLog(2, nan, eye2, out) }, "x: "},
		{"spd_dist NULL dist", einval, func() int { _, rc := ctest.SPDDist(2, eye2, eye2, true); return rc }, "dist is NULL"},
		{"spd_dist Y not symmetric", einval, func() int { _, rc := ctest.SPDDist(2, eye2, nonsym, false); return rc }, "y: "},
		{"stiefel p > n", einval, func() int { return ctest.StiefelQR(2, 3, st, st, out) }, "p = 3 > n = 2"},
		{"stiefel not orthonormal", einval, func() int { return ctest.StiefelQR(3, 2, notSt, u23, out) }, "x: "},
		{"stiefel U NaN", einval, func() int { return ctest.StiefelQR(3, 2, st, []float64{0, math.NaN(), 0, 0, 0, 0}, out) }, "u: "},
		{"stiefel rank deficient", enumeric, func() int {
			return ctest.StiefelQR(3, 2, st, []float64{-1, 0, 0, -1, 0, 0}, out)
		}, "dependent columns"},
		{"coupling unequal mass", einval, func() int { return ctest.CouplingRetr(2, 3, a3, []float64{1, 1, 1}, g23, u23, out) }, "marginal"},
		{"coupling negative marginal", einval, func() int {
			return ctest.CouplingRetr(2, 3, []float64{1.5, -0.5}, b3, g23, u23, out)
		}, "marginal"},
		{"coupling plan off marginals", einval, func() int {
			return ctest.CouplingRetr(2, 3, a3, b3, []float64{0.2, 0.1, 0.2, 0.1, 0.15, 0.25}, u23, out)
		}, "gamma: "},
		{"coupling NULL a", einval, func() int { return ctest.CouplingRetr(2, 3, nil, b3, g23, u23, out) }, "NULL"},
		{"coupling U Inf", einval, func() int {
			return ctest.CouplingRetr(2, 3, a3, b3, g23, []float64{0, 0, math.Inf(-1), 0, 0, 0}, out)
		}, "u: "},
	} {
		wantCode(t, c.name, c.code, c.f, c.msg)
	}
}

func TestManifolds(t *testing.T) {
	for _, c := range []struct {
		spec     string
		len, dim int64
	}{
		{"spd:n=3", 9, 6}, {"SPD: n=3, retr=exp, transport=parallel", 9, 6},
		{"stiefel:n=5,p=2", 10, 7}, {"stiefel:n=5,p=2,retr=cayley", 10, 7},
		{"euclid:r=4", 4, 4}, {"euclid:r=2,c=3", 6, 6},
		{"grassmann:n=5,p=2", 10, 6}, {"grassmann:n=5,p=2,retr=exp", 10, 6}, {"simplex:n=4", 4, 3},
	} {
		h, rc := ctest.ManifoldNew(c.spec)
		if rc != okC {
			t.Fatalf("%s: %d", c.spec, rc)
		}
		l, d, rc := ctest.ManifoldLen(h)
		if rc != okC || l != c.len || d != c.dim {
			t.Errorf("%s: len %d dim %d (rc %d), want %d %d", c.spec, l, d, rc, c.len, c.dim)
		}
		x, u, v, y := make([]float64, l), make([]float64, l), make([]float64, l), make([]float64, l)
		if rc := ctest.RandPoint(h, 3, x); rc != okC {
			t.Fatalf("%s: rand point %d", c.spec, rc)
		}
		if rc, msg := call(func() int { return ctest.CheckPoint(h, x) }); rc != okC {
			t.Errorf("%s: random point fails its check: %s", c.spec, msg)
		}
		for i := range v {
			v[i] = math.Sin(float64(i) + 1)
		}
		if rc := ctest.Project(h, x, v, u); rc != okC {
			t.Fatalf("%s: project %d", c.spec, rc)
		}
		if rc := ctest.Retract(h, x, u, 0.1, y); rc != okC {
			t.Fatalf("%s: retract %d", c.spec, rc)
		}
		if rc := ctest.CheckPoint(h, y); rc != okC {
			t.Errorf("%s: retraction left the manifold", c.spec)
		}
		// Projecting twice changes nothing.
		u2 := make([]float64, l)
		ctest.Project(h, x, u, u2)
		if e := relErr(u2, u); e > 1e-12 {
			t.Errorf("%s: projection not idempotent (%.3g)", c.spec, e)
		}
		if rc := ctest.ManifoldFree(h); rc != okC {
			t.Errorf("%s: free %d", c.spec, rc)
		}
	}
	// A product of a Stiefel, an SPD and a coupling manifold.
	h1, _ := ctest.ManifoldNew("stiefel:n=4,p=2")
	h2, _ := ctest.ManifoldNew("spd:n=2")
	h3, rc := ctest.ManifoldCoupling(2, 2, []float64{0.5, 0.5}, []float64{0.5, 0.5}, "maxiter=500,tol=1e-12")
	if rc != okC {
		t.Fatal(rc)
	}
	hp, rc := ctest.ManifoldProduct([]int64{h1, h2, h3})
	if rc != okC {
		t.Fatal(rc)
	}
	if l, d, _ := ctest.ManifoldLen(hp); l != 8+4+4 || d != 5+3+1 {
		t.Errorf("product: len %d dim %d", l, d)
	}
	x := make([]float64, 16)
	ctest.RandPoint(hp, 1, x)
	if rc := ctest.CheckPoint(hp, x); rc != okC {
		t.Error("product random point off the manifold")
	}
	x[9] = -5 // the SPD factor's off-diagonal: not positive definite
	wantCode(t, "product point off", einval, func() int { return ctest.CheckPoint(hp, x) }, "x: ")
	for _, h := range []int64{h1, h2, h3, hp} {
		ctest.ManifoldFree(h)
	}
	for _, c := range []struct{ spec, msg string }{
		{"torus:n=3", "unknown manifold"}, {"spd", "n is required"}, {"spd:n=0", "not an integer in"},
		{"spd:n=3,retr=polar", "retr"}, {"stiefel:n=3,p=4", "p"}, {"spd:n=3,foo=1", "unknown setting"},
		{"spd:n=3,n=4", "twice"}, {"spd:n", "not key=value"}, {"coupling:m=2,n=2", "rhgd_manifold_coupling"},
		{"euclid:r=2,c=x", "c="},
	} {
		wantCode(t, c.spec, einval, func() int { _, rc := ctest.ManifoldNew(c.spec); return rc }, c.msg)
	}
	wantCode(t, "coupling bad options", einval, func() int {
		_, rc := ctest.ManifoldCoupling(1, 1, []float64{1}, []float64{1}, "maxiter=-1")
		return rc
	}, "maxiter")
	wantCode(t, "empty product", einval, func() int { _, rc := ctest.ManifoldProduct(nil); return rc }, "factors")
}

func TestHandles(t *testing.T) {
	h, _ := ctest.ManifoldNew("euclid:r=2")
	wantCode(t, "manifold as a problem", ebadh, func() int { return ctest.ProblemFree(h) }, "is a manifold, not a problem")
	if rc := ctest.ManifoldFree(h); rc != okC {
		t.Fatal(rc)
	}
	wantCode(t, "double free", ebadh, func() int { return ctest.ManifoldFree(h) }, "freed")
	wantCode(t, "zero handle", ebadh, func() int { _, _, rc := ctest.ManifoldLen(0); return rc }, "no manifold 0")
	wantCode(t, "garbage handle", ebadh, func() int { return ctest.SolverFree(12345) }, "no solver")
	wantCode(t, "product of a freed factor", ebadh, func() int { _, rc := ctest.ManifoldProduct([]int64{h}); return rc }, "factor 0")
}

// syntheticGo runs the synthetic problem in Go, as the C ABI should.
func syntheticGo(t *testing.T, n, d, r int, seed uint64, est solver.Estimator, epochs int) (*solver.Result, []float64) {
	t.Helper()
	data, err := synthetic.Generate(n, d, r, synthetic.PaperNu, seed)
	if err != nil {
		t.Fatal(err)
	}
	p, err := synthetic.New(data)
	if err != nil {
		t.Fatal(err)
	}
	w0, m0 := p.Start(7)
	s := synthetic.Paper.Settings
	s.Epochs, s.Estimator = epochs, est
	var fs []float64
	s.Recorder = recFunc(func(e *solver.EpochStats) error { fs = append(fs, e.F); return nil })
	res, err := solver.Minimize(context.Background(), p.Bilevel(), w0, m0, &s)
	if err != nil {
		t.Fatal(err)
	}
	return res, fs
}

type recFunc func(*solver.EpochStats) error

func (f recFunc) Record(e *solver.EpochStats) error { return f(e) }

// TestBuiltinSynthetic runs the built-in synthetic problem through the C
// ABI and in Go: the same iterates and history, bitwise.
func TestBuiltinSynthetic(t *testing.T) {
	for _, est := range []string{"hinv", "cg", "ns", "ad"} {
		p, rc := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
		if rc != okC {
			t.Fatal(rc)
		}
		lx, ly, _ := ctest.ProblemDims(p)
		if lx != 24 || ly != 64 {
			t.Fatalf("dims %d %d", lx, ly)
		}
		s, rc := ctest.SolverNew(p, est, "epochs=12")
		if rc != okC {
			t.Fatal(rc)
		}
		if rc, msg := call(func() int { return ctest.SolverRun(s, nil, nil, nil) }); rc != okC {
			t.Fatalf("%s: run: %d %s", est, rc, msg)
		}
		goEst, _ := synthetic.Paper.Estimator(est)
		want, wantF := syntheticGo(t, 30, 8, 3, 5, goEst, 12)
		x, y := make([]float64, lx), make([]float64, ly)
		ctest.SolverX(s, lx, x)
		ctest.SolverY(s, ly, y)
		if relErr(x, want.X) != 0 || relErr(y, want.Y) != 0 {
			t.Errorf("%s: iterates differ from Go's by %.3g, %.3g", est, relErr(x, want.X), relErr(y, want.Y))
		}
		res, rc := ctest.SolverResult(s)
		if rc != okC || res.Status != int(solver.IterationLimit) || res.Epochs != 12 || res.F != want.F || res.Error != okC {
			t.Errorf("%s: result %+v, want f %g", est, res, want.F)
		}
		rows, nrows, rc := ctest.SolverHistory(s, 100)
		if rc != okC || nrows != 12 {
			t.Fatalf("history: %d rows, rc %d", nrows, rc)
		}
		for k := range 12 {
			if rows[k*histCols] != float64(k) || rows[k*histCols+1] != wantF[k] {
				t.Errorf("%s: history row %d: epoch %g f %g, want %d %g", est, k, rows[k*histCols], rows[k*histCols+1], k, wantF[k])
			}
		}
		// A short buffer gets the first rows; nrows is the full count.
		if _, nrows, rc := ctest.SolverHistory(s, 0); rc != okC || nrows != 12 {
			t.Errorf("history count: %d, %d", nrows, rc)
		}
		ctest.SolverFree(s)
		ctest.ProblemFree(p)
	}
}

func TestBuiltinErrors(t *testing.T) {
	n, names := ctest.ProblemNames(256)
	if n != len(names) || !strings.Contains(names, "synthetic") {
		t.Errorf("names %d %q", n, names)
	}
	n, params := ctest.ProblemParams("synthetic", 4096)
	if n != len(params) || !strings.Contains(params, "nu=0.01\t") || !strings.Contains(params, "d=50\t") {
		t.Errorf("params %q", params)
	}
	wantCode(t, "params of unknown", einval, func() int { n, _ := ctest.ProblemParams("nope", 10); return n }, "unknown problem")
	for _, c := range []struct {
		name   string
		params []string
		data   string
		msg    string
	}{
		{"nope", nil, "", "unknown problem"},
		{"synthetic", []string{"bogus=1"}, "", "bogus"},
		{"synthetic", []string{"n"}, "", "not key=value"},
		{"synthetic", []string{"-n=3"}, "", "not key=value"},
		{"synthetic", []string{"n=abc"}, "", "invalid value"},
		{"synthetic", []string{"n=5", "d=8"}, "", "n ≥ d"},
		{"synthetic", []string{"nu=-1"}, "", "ν"},
		{"synthetic", nil, "/nonexistent/data.npz", "nonexistent"},
	} {
		wantCode(t, fmt.Sprint(c.name, c.params, c.data), einval, func() int {
			_, rc := ctest.Builtin(c.name, c.params, c.data, 1)
			return rc
		}, c.msg)
	}
	p, _ := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	defer ctest.ProblemFree(p)
	for _, c := range []struct{ est, settings, msg string }{
		{"bogus", "", "unknown estimator"}, {"cg:tol=x", "", "tol"}, {"", "eta_x=-1", "eta_x"},
		{"", "epochs=1.5", "epochs"}, {"", "foo=1", "unknown setting"}, {"", "batches=paper", "no paper minibatch"},
		{"", "eta_x", "not key=value"}, {"", "seed=-1", "seed"}, {"", "runtime=inf", "runtime"},
	} {
		wantCode(t, c.est+"|"+c.settings, einval, func() int { _, rc := ctest.SolverNew(p, c.est, c.settings); return rc }, c.msg)
	}
	wantCode(t, "synthetic accuracy", einval, func() int {
		_, rc := ctest.Accuracy(p, make([]float64, 24), make([]float64, 64))
		return rc
	}, "has no accuracy")
	n, desc := ctest.ProblemDescribe(p, 1024)
	if n != len(desc) || !strings.HasPrefix(desc, "synthetic: St(8,3) × SPD(8)") {
		t.Errorf("describe %q", desc)
	}
}

// TestSettingsRoundTrip: the effective settings read back give the same
// solver.
func TestSettingsRoundTrip(t *testing.T) {
	p, _ := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	defer ctest.ProblemFree(p)
	s, rc := ctest.SolverNew(p, "cg", "epochs=7,seed=3,grad_tol=1e-9,runtime=2.5")
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.SolverFree(s)
	_, desc := ctest.SolverSettings(s, 4096)
	est, set, _ := strings.Cut(desc, ";")
	if est != "cg:maxiter=50,tol=1e-10" || !strings.Contains(set, "eta_x=0.5,") ||
		!strings.Contains(set, "epochs=7,") || !strings.Contains(set, "runtime=2.5,") {
		t.Errorf("effective settings %q", desc)
	}
	s2, rc := ctest.SolverNew(p, est, set)
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.SolverFree(s2)
	if _, desc2 := ctest.SolverSettings(s2, 4096); desc2 != desc {
		t.Errorf("round trip %q → %q", desc, desc2)
	}
	s3, rc := ctest.SolverNew(p, "hinv", "preset=adaptive,epochs=5")
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.SolverFree(s3)
	if _, desc3 := ctest.SolverSettings(s3, 4096); !strings.Contains(desc3, "preset=adaptive,") {
		t.Errorf("adaptive preset: %q", desc3)
	}
	// preset=adarhd: its effective settings name it and read back the same.
	s4, rc := ctest.SolverNew(p, "hinv", "preset=adarhd,epochs=5")
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.SolverFree(s4)
	_, desc4 := ctest.SolverSettings(s4, 4096)
	if !strings.Contains(desc4, "preset=adarhd,") || !strings.Contains(desc4, "lower_adagrad=true") || !strings.Contains(desc4, "upper_adagrad=true") {
		t.Errorf("adarhd preset: %q", desc4)
	}
	est4, set4, _ := strings.Cut(desc4, ";")
	s5, rc := ctest.SolverNew(p, est4, set4)
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.SolverFree(s5)
	if _, desc5 := ctest.SolverSettings(s5, 4096); desc5 != desc4 {
		t.Errorf("adarhd round trip %q → %q", desc4, desc5)
	}
	if rc := ctest.SolverRun(s4, nil, nil, nil); rc != okC {
		t.Errorf("adarhd run: %d", rc)
	}
	if _, rc := ctest.SolverNew(p, "hinv", "preset=fast"); rc == okC {
		t.Error("preset=fast accepted")
	}
}

// quadData is the quadratic problem of ctest.h with its closed-form
// solution x* = (MᵀM + λI)⁻¹ Mᵀc, M = A⁻¹B, on the manifolds R^k × R^m.
type quadData struct {
	k, m           int
	lambda         float64
	a, b, c, xstar []float64
	mx, my         int64
}

// newQuadData returns quadData on R^3 × R^4, the manifolds freed when the
// test ends.
func newQuadData(t testing.TB) *quadData {
	t.Helper()
	d := &quadData{k: 3, m: 4, lambda: 0.1,
		a: []float64{1, 2, 3, 4},
		b: []float64{1, 0, 0.5, 0, 1, 0, 0.2, 0.3, 1, 1, 1, 1},
		c: []float64{1, -1, 0.5, 2}}
	k, m := d.k, d.m
	M := mat.NewDense(m, k, nil)
	for i := range m {
		for j := range k {
			M.Set(i, j, d.b[i*k+j]/d.a[i])
		}
	}
	var lhs mat.Dense
	lhs.Mul(M.T(), M)
	for j := range k {
		lhs.Set(j, j, lhs.At(j, j)+d.lambda)
	}
	var rhs, sol mat.VecDense
	rhs.MulVec(M.T(), mat.NewVecDense(m, d.c))
	if err := sol.SolveVec(&lhs, &rhs); err != nil {
		t.Fatal(err)
	}
	d.xstar = sol.RawVector().Data
	d.mx, d.my = testManifold(t, "euclid:r=3"), testManifold(t, "euclid:r=4")
	return d
}

// quad returns the problem's C callbacks, of which the failAt-th oracle
// call fails (0: none); the caller frees it.
func (d *quadData) quad(failAt int) *ctest.Quad {
	return ctest.NewQuad(d.k, d.m, d.lambda, d.a, d.b, d.c, failAt)
}

// testSolver returns the solver rhgd_solver_new makes of p, est and
// settings, failing the test on an error; it is freed when the test ends.
func testSolver(t testing.TB, p int64, est, settings string) int64 {
	t.Helper()
	s, rc := ctest.SolverNew(p, est, settings)
	if rc != okC {
		_, msg := call(func() int { _, rc := ctest.SolverNew(p, est, settings); return rc })
		t.Fatalf("solver %s %q: %d %s", est, settings, rc, msg)
	}
	t.Cleanup(func() { ctest.SolverFree(s) })
	return s
}

// testManifold returns the manifold spec gives, freed when the test ends.
func testManifold(t testing.TB, spec string) int64 {
	t.Helper()
	h, rc := ctest.ManifoldNew(spec)
	if rc != okC {
		t.Fatalf("%s: %d", spec, rc)
	}
	t.Cleanup(func() { ctest.ManifoldFree(h) })
	return h
}

// TestCallbackProblem solves the quadratic problem given by C callbacks,
// with every oracle or with the second-order ones left to finite
// differences, as Riemannian or Euclidean oracles (hess_gy_inv, for hinv,
// beside either), with each estimator, and compares with the closed form.
func TestCallbackProblem(t *testing.T) {
	d := newQuadData(t)
	k, m, mx, my, xstar := d.k, d.m, d.mx, d.my, d.xstar
	for _, cs := range []struct {
		full, flags int
		est         string
	}{
		{1, 0, "hinv"}, {1, 1, "hinv"}, {1, 0, "cg"}, {2, 1, "cg"}, {0, 1, "cg"}, {0, 0, "cg"}, {2, 1, "ns:gamma=0.2,terms=200"}, {2, 0, "ad"},
	} {
		name := fmt.Sprintf("full=%d flags=%d %s", cs.full, cs.flags, cs.est)
		q := d.quad(0)
		p, rc := ctest.QuadProblem(q, mx, my, cs.full, cs.flags, false)
		if rc != okC {
			t.Fatalf("%s: %d", name, rc)
		}
		s, rc := ctest.SolverNew(p, cs.est, "eta_x=0.5,eta_y=0.2,inner=40,epochs=3000,grad_tol=1e-11")
		if rc != okC {
			_, msg := call(func() int { _, rc := ctest.SolverNew(p, cs.est, ""); return rc })
			t.Fatalf("%s: solver %d %s", name, rc, msg)
		}
		x0, y0 := make([]float64, k), make([]float64, m)
		if rc, msg := call(func() int { return ctest.SolverRun(s, x0, y0, nil) }); rc != okC {
			t.Fatalf("%s: run %d %s", name, rc, msg)
		}
		x := make([]float64, k)
		ctest.SolverX(s, int64(k), x)
		res, _ := ctest.SolverResult(s)
		tol := 1e-9
		switch {
		case strings.HasPrefix(cs.est, "ns"):
			tol = 1e-8 // the series' truncation, (1 − γμ)^T = 0.8^200, is far below
		case cs.est == "ad":
			// AD's bias at the fixed point is of the order of
			// (1 − η_y μ)^S = 0.8^40 ≈ 1.3e-4 (paper, Lemma 1).
			tol = 10 * math.Pow(0.8, 40)
		}
		if e := relErr(x, xstar); e > tol || q.Calls() == 0 {
			t.Errorf("%s: x = %v, want %v (relative error %.3g, status %s, %d epochs, %d calls)",
				name, x, xstar, e, ctest.StatusString(res.Status), res.Epochs, q.Calls())
		}
		ctest.SolverFree(s)
		ctest.ProblemFree(p)
		q.Free()
	}
	// Missing a required oracle; bad flags.
	q := d.quad(0)
	defer q.Free()
	wantCode(t, "no grad_gy", einval, func() int { _, rc := ctest.QuadProblem(q, mx, my, 1, 0, true); return rc }, "grad_gy")
	wantCode(t, "flags", einval, func() int { _, rc := ctest.QuadProblem(q, mx, my, 0, 7, false); return rc }, "flags")
	wantCode(t, "freed manifold", ebadh, func() int { _, rc := ctest.QuadProblem(q, 99, my, 0, 0, false); return rc }, "mx")
	// hinv without the inverse Hessian: derived from hess_gy up to its
	// maxdim (the lower dimension is 4), missing above.
	p, _ := ctest.QuadProblem(q, mx, my, 0, 0, false)
	defer ctest.ProblemFree(p)
	wantCode(t, "hinv without hess_gy_inv above maxdim", einval, func() int { _, rc := ctest.SolverNew(p, "hinv:maxdim=3", ""); return rc }, "hess_gy_inv")
	wantCode(t, "hinv without hess_gy_inv above maxdim", einval, func() int { _, rc := ctest.SolverNew(p, "hinv:maxdim=3", ""); return rc }, "maxdim = 3")
	testSolver(t, p, "hinv", "")
	// No starting point.
	s := testSolver(t, p, "cg", "epochs=3")
	wantCode(t, "no start", einval, func() int { return ctest.SolverRun(s, nil, nil, nil) }, "no starting point")
	wantCode(t, "result before a run", einval, func() int { _, rc := ctest.SolverResult(s); return rc }, "not run")
	wantCode(t, "one start", einval, func() int { return ctest.SolverRun(s, make([]float64, 3), nil, nil) }, "both")
	if rc := ctest.ProblemSetStart(p, []float64{1, 2, 3}, make([]float64, 4)); rc != okC {
		t.Fatal(rc)
	}
	x0 := make([]float64, 3)
	if rc := ctest.ProblemStart(p, x0, nil); rc != okC || x0[2] != 3 {
		t.Errorf("start %v rc %d", x0, rc)
	}
	if rc := ctest.SolverRun(s, nil, nil, nil); rc != okC {
		t.Errorf("run from the set start: %d", rc)
	}
	wantCode(t, "solver_x wrong length", einval, func() int { return ctest.SolverX(s, 4, make([]float64, 4)) }, "len = 4")
	wantCode(t, "start NaN", einval, func() int {
		return ctest.ProblemSetStart(p, []float64{math.NaN(), 0, 0}, make([]float64, 4))
	}, "x0")
}

// TestCallbackFailure: an oracle returning nonzero stops the run with
// RHGD_ECALLBACK; the result is readable and says Failure.
func TestCallbackFailure(t *testing.T) {
	d := newQuadData(t)
	k, m, mx, my := d.k, d.m, d.mx, d.my
	q := d.quad(100)
	defer q.Free()
	p, _ := ctest.QuadProblem(q, mx, my, 2, 1, false)
	defer ctest.ProblemFree(p)
	s := testSolver(t, p, "cg", "epochs=50")
	wantCode(t, "failing oracle", ecallback, func() int { return ctest.SolverRun(s, make([]float64, k), make([]float64, m), nil) },
		"grad_gy returned 7")
	res, rc := ctest.SolverResult(s)
	if rc != okC || res.Status != int(solver.Failure) || res.Error != ecallback {
		t.Errorf("result %+v rc %d", res, rc)
	}
	x := make([]float64, k)
	if rc := ctest.SolverX(s, int64(k), x); rc != okC {
		t.Errorf("x after a failure: %d", rc)
	}
}

// TestOracle evaluates oracles one at a time: the built-in synthetic
// problem's against Go's, and the finite-difference Hessian and cross
// derivative of a callback problem against the exact ones.
func TestOracle(t *testing.T) {
	p, _ := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	defer ctest.ProblemFree(p)
	x, y := make([]float64, 24), make([]float64, 64)
	ctest.ProblemStart(p, x, y)
	data, _ := synthetic.Generate(30, 8, 3, synthetic.PaperNu, 5)
	gp, _ := synthetic.New(data)
	pt := &solver.Point{X: x, Y: y}
	gx := make([]float64, 24)
	gp.GradFx(gx, pt)
	out := make([]float64, 24)
	if rc := ctest.Oracle(p, "grad_fx", x, y, nil, out); rc != okC || relErr(out, gx) != 0 {
		t.Errorf("grad_fx: rc %d, error %.3g", rc, relErr(out, gx))
	}
	f, _ := gp.F(pt)
	fo := make([]float64, 1)
	if rc := ctest.Oracle(p, "f", x, y, nil, fo); rc != okC || fo[0] != f {
		t.Errorf("f = %g, want %g", fo[0], f)
	}
	wantCode(t, "unknown oracle", einval, func() int { return ctest.Oracle(p, "hess", x, y, nil, out) }, "unknown oracle")
	wantCode(t, "no v", einval, func() int { return ctest.Oracle(p, "hess_gy", x, y, nil, make([]float64, 64)) }, "v is NULL")
	bad := append([]float64(nil), y...)
	bad[1] = 5
	wantCode(t, "y off SPD", einval, func() int { return ctest.Oracle(p, "grad_gy", x, bad, nil, make([]float64, 64)) }, "y: ")

	d := newQuadData(t)
	mx, my := d.mx, d.my
	q := d.quad(0)
	defer q.Free()
	exact, _ := ctest.QuadProblem(q, mx, my, 1, 0, false)
	fd, _ := ctest.QuadProblem(q, mx, my, 0, 0, false)
	defer ctest.ProblemFree(exact)
	defer ctest.ProblemFree(fd)
	xq, yq, v := []float64{0.3, -0.2, 0.5}, []float64{1, 2, -1, 0.5}, []float64{0.1, -0.4, 0.2, 0.7}
	for _, name := range []string{"hess_gy", "cross_gxy"} {
		n := 4
		if name == "cross_gxy" {
			n = 3
		}
		e, f := make([]float64, n), make([]float64, n)
		if rc := ctest.Oracle(exact, name, xq, yq, v, e); rc != okC {
			t.Fatal(name, rc)
		}
		if rc, msg := call(func() int { return ctest.Oracle(fd, name, xq, yq, v, f) }); rc != okC {
			t.Fatal(name, rc, msg)
		}
		if err := relErr(f, e); err > 1e-8 {
			t.Errorf("%s by differences: relative error %.3g", name, err)
		}
	}
	wantCode(t, "missing hess_gy_inv", einval, func() int { return ctest.Oracle(fd, "hess_gy_inv", xq, yq, v, make([]float64, 4)) }, "no hess_gy_inv")
}

// TestEpochCallback: the callback sees every epoch and cancels the run by
// returning nonzero or through rhgd_solver_cancel; a nested run of the
// same solver is RHGD_EBUSY.
func TestEpochCallback(t *testing.T) {
	p, _ := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	defer ctest.ProblemFree(p)
	s := testSolver(t, p, "hinv", "epochs=20")
	for _, c := range []struct {
		name       string
		cancelAt   int
		via, rerun bool
		epochs     int64
		status     int
	}{
		{"no cancel", -1, false, false, 20, int(solver.IterationLimit)},
		{"return 1", 4, false, false, 5, int(solver.Cancelled)},
		{"rhgd_solver_cancel", 6, true, false, 7, int(solver.Cancelled)},
		{"nested run", -1, false, true, 20, int(solver.IterationLimit)},
	} {
		e := ctest.NewEpochs(s, c.cancelAt, c.via, c.rerun)
		if rc, msg := call(func() int { return ctest.SolverRun(s, nil, nil, e) }); rc != okC {
			t.Fatalf("%s: %d %s", c.name, rc, msg)
		}
		res, _ := ctest.SolverResult(s)
		rows, nrows, _ := ctest.SolverHistory(s, 30)
		if res.Status != c.status || res.Epochs != c.epochs || nrows != c.epochs || int64(e.Calls()) != c.epochs {
			t.Errorf("%s: status %s, %d epochs, %d rows, %d calls", c.name, ctest.StatusString(res.Status), res.Epochs, nrows, e.Calls())
		}
		for k := range int(nrows) {
			if e.F(k) != rows[k*histCols+1] {
				t.Errorf("%s: epoch %d: callback saw f = %g, history %g", c.name, k, e.F(k), rows[k*histCols+1])
			}
		}
		if lx, ly := e.Lens(); lx != 24 || ly != 64 {
			t.Errorf("%s: lengths %d %d", c.name, lx, ly)
		}
		if c.rerun && e.RerunCode() != ebusy {
			t.Errorf("nested run: %d, want RHGD_EBUSY", e.RerunCode())
		}
		e.Free()
	}
	// The last epoch's callback sees (x_{K−1}, y_K), the point before the
	// last upper step; the result is x_K with the final lower solve's
	// y_{K+1} there, and its f is f at them.
	e := ctest.NewEpochs(s, -1, false, false)
	defer e.Free()
	ctest.SolverRun(s, nil, nil, e)
	x, y, f := make([]float64, 24), make([]float64, 64), make([]float64, 1)
	ctest.SolverX(s, 24, x)
	ctest.SolverY(s, 64, y)
	if e.Y0() == y[0] || e.X0() == x[0] || e.HG0() == 0 || e.X0() == 0 {
		t.Errorf("callback's y[0] = %g, final y[0] = %g, hypergradient[0] = %g, x[0] = %g, final x[0] = %g", e.Y0(), y[0], e.HG0(), e.X0(), x[0])
	}
	res, _ := ctest.SolverResult(s)
	if rc := ctest.Oracle(p, "f", x, y, nil, f); rc != okC || res.F != f[0] {
		t.Errorf("result f = %g, f at the result's x and y = %g (rc %d)", res.F, f[0], rc)
	}
	wantCode(t, "cancel a freed solver", ebadh, func() int { return ctest.SolverCancel(1) }, "no solver")
}

// TestThreads runs independent handles on several pthreads at once and
// compares with serial runs (ctest.h).
func TestThreads(t *testing.T) {
	if msg := ctest.Threads(4, 3); msg != "" {
		t.Fatal(msg)
	}
}

// TestAllocs: a kernel call through the C ABI and a steady-state epoch of
// a callback problem allocate nothing on the Go side.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	a, out := []float64{2, 1, 1, 3}, make([]float64, 4)
	ctest.Expsym(2, a, out)
	if n := testing.AllocsPerRun(100, func() { ctest.Expsym(2, a, out) }); n != 0 {
		t.Errorf("rhgd_expsym allocates %v times per call", n)
	}
	d := newQuadData(t)
	k, m, mx, my := d.k, d.m, d.mx, d.my
	q := d.quad(0)
	defer q.Free()
	p, _ := ctest.QuadProblem(q, mx, my, 2, 0, false)
	defer ctest.ProblemFree(p)
	x0, y0 := make([]float64, k), make([]float64, m)
	allocs := func(epochs int) float64 {
		s, rc := ctest.SolverNew(p, "cg", fmt.Sprintf("epochs=%d,eta_x=0.1", epochs))
		if rc != okC {
			t.Fatal(rc)
		}
		defer ctest.SolverFree(s)
		e := ctest.NewEpochs(s, -1, false, false)
		defer e.Free()
		n := testing.AllocsPerRun(5, func() {
			if rc := ctest.SolverRun(s, x0, y0, e); rc != okC {
				t.Fatal(rc)
			}
		})
		t.Logf("%d epochs: %v allocations per run", epochs, n)
		return n
	}
	if a10, a60 := allocs(10), allocs(60); a60 > a10 {
		t.Errorf("a run of 60 epochs allocates %v times, one of 10 %v: epochs allocate", a60, a10)
	}
}
