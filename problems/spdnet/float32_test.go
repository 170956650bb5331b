package spdnet_test

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/spdnet"
)

// TestFloat32Data: the ETH-80 covariances written to a .npz in float32,
// symmetric only to float32 rounding, are accepted: symmetrized, with a
// note, and a run from them agrees with the run from the float64 file to
// float32 accuracy. A matrix clearly asymmetric is still rejected, by name.
func TestFloat32Data(t *testing.T) {
	all, err := spdnet.ETH80(spdnet.PaperScale, spdnet.PaperEps)
	if err != nil {
		t.Fatal(err)
	}
	// Three sets per class (writing all 80 .npz matrices takes seconds).
	d := all.D
	var a, labels []float64
	per := map[int]int{}
	for i, l := range all.Labels {
		if per[l] < 3 {
			per[l]++
			a = append(a, all.A[i*d*d:(i+1)*d*d]...)
			labels = append(labels, float64(l))
		}
	}
	n := len(labels)
	data := &spdnet.Data{A: a}
	arrays := func(a []float64) map[string][]float64 { return map[string][]float64{"A": a, "labels": labels} }
	shapes := map[string][]int{"A": {n, d, d}, "labels": {n}}
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	if err := problems.WriteNPZ(p64, arrays(data.A), shapes); err != nil {
		t.Fatal(err)
	}
	a32 := f32test.Sym(data.A, d)
	if lapackx.Asymmetry(a32[:d*d], d) <= lapackx.SymTol {
		t.Fatal("A_0 in float32 is symmetric to float64 rounding: the test does not exercise the projection")
	}
	if err := f32test.WriteNPZ(p32, arrays(a32), shapes); err != nil {
		t.Fatal(err)
	}
	flags := []string{"-d1", "10", "-d2", "4", "-train", "2"}
	in64, err := f32test.Build(t, spdnet.Spec, p64, flags...)
	if err != nil || len(in64.Notes) != 0 {
		t.Fatalf("float64 data: err %v, notes %q", err, in64.Notes)
	}
	in32, err := f32test.Build(t, spdnet.Spec, p32, flags...)
	if err != nil {
		t.Fatalf("float32 data rejected: %v", err)
	}
	if len(in32.Notes) != 1 || !strings.HasPrefix(in32.Notes[0], "A: 24 of the 24 matrices are asymmetric") {
		t.Fatalf("notes %q, want one for A", in32.Notes)
	}
	t.Logf("notes: %q", in32.Notes)
	r64, r32 := f32test.Run(t, in64, "hinv", 6), f32test.Run(t, in32, "hinv", 6)
	diff := f32test.RelDiff(r32.F, r64.F)
	t.Logf("F after 6 epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", r64.F, r32.F, diff)
	if diff > f32test.Agree {
		t.Errorf("the runs differ by %.3g relative", diff)
	}

	off := append([]float64(nil), a32...)
	for _, v := range off[7*d*d : 8*d*d] {
		off[7*d*d+1] = max(off[7*d*d+1], 2*math.Abs(v)) // A_7 asymmetric by about 1 relative
	}
	if err := f32test.WriteNPZ(p32, arrays(off), shapes); err != nil {
		t.Fatal(err)
	}
	_, err = f32test.Build(t, spdnet.Spec, p32, flags...)
	if !errors.Is(err, problems.ErrBadData) || !errors.Is(err, numerr.ErrNotSymmetric) || !strings.Contains(err.Error(), "A_7") {
		t.Errorf("A_7 asymmetric by about 1: %v", err)
	}
	t.Log(err)
}
