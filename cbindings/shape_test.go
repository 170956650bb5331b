//go:build cgo

package main

import (
	"strings"
	"testing"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestManifoldShape: each manifold's point shape, a product's factors,
// and the specs describe gives.
func TestManifoldShape(t *testing.T) {
	var free []int64
	defer func() {
		for _, h := range free {
			ctest.ManifoldFree(h)
		}
	}()
	newM := func(spec string) int64 {
		h, rc := ctest.ManifoldNew(spec)
		if rc != okC {
			t.Fatalf("%s: %d", spec, rc)
		}
		free = append(free, h)
		return h
	}
	st, sp := newM("stiefel:n=5,p=2"), newM("spd:n=3,retr=exp")
	cp, rc := ctest.ManifoldCoupling(2, 3, []float64{1, 2}, []float64{1, 1, 1}, "tol=1e-9")
	if rc != okC {
		t.Fatal(rc)
	}
	free = append(free, cp)
	pr, rc := ctest.ManifoldProduct([]int64{st, sp})
	if rc != okC {
		t.Fatal(rc)
	}
	free = append(free, pr)
	for _, c := range []struct {
		h                   int64
		rows, cols, factors int64
		spec                string
	}{
		{st, 5, 2, 0, "stiefel:n=5,p=2"}, {sp, 3, 3, 0, "spd:n=3,retr=exp"},
		{newM("euclid:r=4"), 4, 1, 0, "euclid:r=4"}, {newM("euclid:r=2,c=3"), 2, 3, 0, "euclid:r=2,c=3"},
		{cp, 2, 3, 0, "coupling:m=2,n=3,tol=1e-9"},
		{pr, 19, 1, 2, "product(stiefel:n=5,p=2; spd:n=3,retr=exp)"},
	} {
		r, cl, k, rc := ctest.ManifoldShape(c.h)
		if rc != okC || r != c.rows || cl != c.cols || k != c.factors {
			t.Errorf("%s: shape %d × %d, %d factors (rc %d), want %d × %d, %d", c.spec, r, cl, k, rc, c.rows, c.cols, c.factors)
		}
		if n, s := ctest.ManifoldDescribe(c.h, 256); n != len(c.spec) || s != c.spec {
			t.Errorf("describe = %d %q, want %q", n, s, c.spec)
		}
	}
	for i, want := range []string{"stiefel:n=5,p=2,retr=qr", "spd:n=3,retr=exp,transport=identity,metric=affine-invariant"} {
		f, rc := ctest.ManifoldFactor(pr, int64(i))
		if rc != okC {
			t.Fatalf("factor %d: %d", i, rc)
		}
		free = append(free, f)
		if _, s := ctest.ManifoldDescribe(f, 256); s != want {
			t.Errorf("factor %d is %q, want %q", i, s, want)
		}
	}
	wantCode(t, "factor 2 of 2", einval, func() int { _, rc := ctest.ManifoldFactor(pr, 2); return rc }, "factor 2 of a product of 2")
	wantCode(t, "factor of a non-product", einval, func() int { _, rc := ctest.ManifoldFactor(st, 0); return rc }, "not a product")
	wantCode(t, "shape of a bad handle", ebadh, func() int { _, _, _, rc := ctest.ManifoldShape(12345); return rc })
}

// TestProblemManifolds: a built-in problem's manifolds give the shapes of
// its x and y, factors included.
func TestProblemManifolds(t *testing.T) {
	for _, c := range []struct {
		name   string
		params []string
		mx, my string
		shapes [2][3]int64
	}{
		{"synthetic", []string{"n=30", "d=8", "r=3"}, "stiefel:n=8,p=3,retr=qr", "spd:n=8,retr=second-order,transport=identity,metric=affine-invariant",
			[2][3]int64{{8, 3, 0}, {8, 8, 0}}},
		{"hyperrep", []string{"n=20", "ntrain=10", "d=6", "k=2"}, "stiefel:n=6,p=2,retr=qr", "euclid:r=3,c=1",
			[2][3]int64{{6, 2, 0}, {3, 1, 0}}},
	} {
		p, rc := ctest.Builtin(c.name, c.params, "", 1)
		if rc != okC {
			t.Fatal(rc)
		}
		mx, my, rc := ctest.ProblemManifolds(p)
		if rc != okC {
			t.Fatal(rc)
		}
		for i, h := range []int64{mx, my} {
			r, cl, k, _ := ctest.ManifoldShape(h)
			if got := [3]int64{r, cl, k}; got != c.shapes[i] {
				t.Errorf("%s: manifold %d has shape %v, want %v", c.name, i, got, c.shapes[i])
			}
			if _, s := ctest.ManifoldDescribe(h, 256); s != []string{c.mx, c.my}[i] {
				t.Errorf("%s: manifold %d is %q, want %q", c.name, i, s, []string{c.mx, c.my}[i])
			}
			ctest.ManifoldFree(h)
		}
		ctest.ProblemFree(p)
	}

	// spdnet: x is W1 ∈ St(D, D1) × W2 ∈ St(D1, D2), a product.
	p, rc := ctest.Builtin("spdnet", []string{"d1=6", "d2=4"}, "", 1)
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.ProblemFree(p)
	lx, _, _ := ctest.ProblemDims(p)
	mx, my, rc := ctest.ProblemManifolds(p)
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.ManifoldFree(mx)
	defer ctest.ManifoldFree(my)
	r, cl, k, _ := ctest.ManifoldShape(mx)
	if r != lx || cl != 1 || k != 2 {
		t.Fatalf("spdnet x: %d × %d, %d factors; want %d × 1, 2", r, cl, k, lx)
	}
	var total int64
	for i, want := range [][2]int64{{-1, 6}, {6, 4}} {
		f, rc := ctest.ManifoldFactor(mx, int64(i))
		if rc != okC {
			t.Fatal(rc)
		}
		fr, fc, _, _ := ctest.ManifoldShape(f)
		_, s := ctest.ManifoldDescribe(f, 256)
		ctest.ManifoldFree(f)
		if (want[0] >= 0 && fr != want[0]) || fc != want[1] || !strings.HasPrefix(s, "stiefel:") {
			t.Errorf("spdnet factor %d: %d × %d %q", i, fr, fc, s)
		}
		total += fr * fc
	}
	if total != lx {
		t.Errorf("spdnet factors hold %d entries, x has %d", total, lx)
	}
	wantCode(t, "manifolds of a bad handle", ebadh, func() int { _, _, rc := ctest.ProblemManifolds(777); return rc })
}
