package meta

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rhgd/rhgd/data/digits"
	"github.com/rhgd/rhgd/problems"
)

// Data are labelled images: N rows of Dim pixels in X, labels 0..Classes−1.
type Data struct {
	N, Dim, Classes int       // images, pixels per image, classes
	X               []float64 // N·Dim pixels
	Labels          []int     // N labels, 0..Classes−1
	// Name says where the data came from.
	Name string
}

// Digits returns the embedded 8×8 digits (data/digits) with the pixels
// divided by 16, the largest value, so that they lie in [0, 1].
func Digits() (*Data, error) {
	raw, err := digits.Load()
	if err != nil {
		return nil, fmt.Errorf("meta: %w: %w", problems.ErrBadData, err)
	}
	d := &Data{N: digits.Samples, Dim: digits.Pixels, Classes: digits.Classes, X: raw.X, Labels: raw.Labels,
		Name: "8×8 digits (UCI optdigits test set)"}
	for i := range d.X {
		d.X[i] /= digits.MaxPix
	}
	return d, nil
}

// Validate checks the sizes, finite pixels and labels in 0..Classes−1.
// Errors wrap problems.ErrBadData.
func (d *Data) Validate() error {
	if d == nil || d.N < 1 || d.Dim < 1 || d.Classes < 2 || len(d.X) != d.N*d.Dim || len(d.Labels) != d.N {
		return fmt.Errorf("meta: %w: data sizes", problems.ErrBadData)
	}
	for i, x := range d.X {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("meta: %w: image %d has a non-finite pixel", problems.ErrBadData, i/d.Dim)
		}
	}
	for i, l := range d.Labels {
		if l < 0 || l >= d.Classes {
			return fmt.Errorf("meta: %w: label %d of image %d not in 0..%d", problems.ErrBadData, l, i, d.Classes-1)
		}
	}
	return nil
}

// SplitBy says how the images are divided between meta-training and
// meta-testing.
type SplitBy int

const (
	// ByClass: the first half of the classes (digits 0–4) for
	// meta-training, the rest (5–9) for meta-testing: test tasks ask for
	// classes never seen in training, the standard few-shot protocol. With
	// ten classes and five ways, every task of a side uses all of its five
	// classes, in a random order.
	ByClass SplitBy = iota
	// BySample: every class on both sides, each class's images halved at
	// random (from the seed): tasks draw their five classes from all ten,
	// test tasks see new images of known classes.
	BySample
)

// ParseSplit reads "classes" or "samples".
func ParseSplit(s string) (SplitBy, error) {
	switch s {
	case "classes":
		return ByClass, nil
	case "samples":
		return BySample, nil
	}
	return 0, fmt.Errorf("meta: %w: split %q (want classes or samples)", problems.ErrBadData, s)
}

// String returns classes or samples.
func (s SplitBy) String() string {
	if s == BySample {
		return "samples"
	}
	return "classes"
}

// TaskSpec is the shape of a few-shot task.
type TaskSpec struct {
	// Ways classes, Shots support and Queries query images per class.
	Ways, Shots, Queries int
}

// Task is one few-shot task: support and query images (indices into
// Data) with their labels 0..Ways−1 in the task.
type Task struct {
	Support, Query       []int // image indices
	SupLabels, QryLabels []int // their labels in the task
}

// Tasks holds the meta-training and meta-test tasks.
type Tasks struct {
	Spec        TaskSpec // the tasks' shape
	Train, Test []Task   // meta-training and meta-test tasks
	// Mean is the mean meta-training image, subtracted from every image.
	Mean []float64
}

// MakeTasks draws ntrain meta-training tasks from the meta-training side of
// the split and ntest meta-test tasks from the other, from seed: for each
// task, Ways classes of its side in a random order (label k is the k-th),
// then Shots + Queries distinct images of each class, the first Shots for
// the support set. It also returns the mean meta-training image. Errors
// wrap problems.ErrBadData (too few classes or images for the spec).
func MakeTasks(d *Data, by SplitBy, spec TaskSpec, ntrain, ntest int, seed uint64) (*Tasks, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if spec.Ways < 2 || spec.Shots < 1 || spec.Queries < 1 || ntrain < 1 || ntest < 1 {
		return nil, fmt.Errorf("meta: %w: %d ways, %d shots, %d queries, %d training and %d test tasks (want ≥ 2, 1, 1, 1, 1)",
			problems.ErrBadData, spec.Ways, spec.Shots, spec.Queries, ntrain, ntest)
	}
	rnd := rand.New(rand.NewPCG(seed, 0x3e7a))
	byClass := make([][]int, d.Classes)
	for i, l := range d.Labels {
		byClass[l] = append(byClass[l], i)
	}
	train, test := make([][]int, d.Classes), make([][]int, d.Classes)
	switch by {
	case ByClass:
		for c := range byClass {
			if c < d.Classes/2 {
				train[c] = byClass[c]
			} else {
				test[c] = byClass[c]
			}
		}
	case BySample:
		for c, idx := range byClass {
			idx = slices.Clone(idx)
			rnd.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			train[c], test[c] = idx[:len(idx)/2], idx[len(idx)/2:]
		}
	default:
		return nil, fmt.Errorf("meta: %w: split %d", problems.ErrBadData, by)
	}
	t := &Tasks{Spec: spec, Mean: make([]float64, d.Dim)}
	var err error
	if t.Train, err = draw(rnd, train, spec, ntrain, "meta-training"); err != nil {
		return nil, err
	}
	if t.Test, err = draw(rnd, test, spec, ntest, "meta-test"); err != nil {
		return nil, err
	}
	var n int
	for _, idx := range train {
		for _, i := range idx {
			for j, x := range d.X[i*d.Dim : (i+1)*d.Dim] {
				t.Mean[j] += x
			}
			n++
		}
	}
	for j := range t.Mean {
		t.Mean[j] /= float64(n)
	}
	return t, nil
}

// draw draws n tasks from the classes with images.
func draw(rnd *rand.Rand, byClass [][]int, spec TaskSpec, n int, side string) ([]Task, error) {
	var classes []int
	for c, idx := range byClass {
		if len(idx) >= spec.Shots+spec.Queries {
			classes = append(classes, c)
		}
	}
	if len(classes) < spec.Ways {
		return nil, fmt.Errorf("meta: %w: the %s side has %d classes with %d images or more, a task needs %d",
			problems.ErrBadData, side, len(classes), spec.Shots+spec.Queries, spec.Ways)
	}
	tasks := make([]Task, n)
	per := spec.Shots + spec.Queries
	for k := range tasks {
		t := &tasks[k]
		order := slices.Clone(classes)
		rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for lab, c := range order[:spec.Ways] {
			pick := rnd.Perm(len(byClass[c]))[:per]
			for j, q := range pick {
				if j < spec.Shots {
					t.Support, t.SupLabels = append(t.Support, byClass[c][q]), append(t.SupLabels, lab)
				} else {
					t.Query, t.QryLabels = append(t.Query, byClass[c][q]), append(t.QryLabels, lab)
				}
			}
		}
	}
	return tasks, nil
}
