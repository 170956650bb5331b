// Package digits holds the 8×8 handwritten digits (the UCI optdigits test
// set as scikit-learn ships it), embedded in the binary: 1797 images of 64
// pixels with values 0..16, labels 0..9. README.md in this directory gives
// their provenance, checksum and license. They stand in for MiniImageNet
// in problems/meta.
//
// Load parses the embedded file and validates it: 65 integer columns per
// row, pixels in 0..16, labels in 0..9, and the class counts of the
// README. Read does the same for any reader.
package digits

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"strconv"

	"github.com/rhgd/rhgd/data/internal/csvgz"
	"github.com/rhgd/rhgd/numerr"
)

//go:embed digits.csv.gz
var file []byte

// ErrBadData signifies a file that is not what it should be: a wrong row
// or column count, a pixel outside 0..16, a label outside 0..9 or class
// counts other than the README's (numerr.ErrInvalid).
var ErrBadData = numerr.New(numerr.ErrInvalid, "digits: bad data")

// The sizes of the data.
const (
	Classes = 10   // digits 0..9
	Pixels  = 64   // 8×8, row-major
	Samples = 1797 // images
	MaxPix  = 16   // the largest pixel value
)

// ClassCounts are the number of images of each digit, as the README lists
// them.
var ClassCounts = [Classes]int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}

// Data are the images and their labels.
type Data struct {
	// X holds Samples·Pixels pixel values 0..16, image i at
	// X[i·Pixels:(i+1)·Pixels].
	X []float64
	// Labels are the digits 0..9 of the images.
	Labels []int
}

// Load returns the embedded images, validated (see Read).
func Load() (*Data, error) {
	d, err := Read(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("digits.csv.gz: %w", err)
	}
	return d, nil
}

// Read parses gzipped CSV in the format of the embedded file (no header,
// 64 pixels then the label per row) and validates it. Errors wrap
// ErrBadData.
func Read(r io.Reader) (*Data, error) {
	cr, err := csvgz.Open(r, Pixels+1, ErrBadData)
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	d := &Data{X: make([]float64, 0, Samples*Pixels), Labels: make([]int, 0, Samples)}
	var counts [Classes]int
	err = cr.Rows(func(row int, rec []string) error {
		if len(d.Labels) == Samples {
			return fmt.Errorf("%w: more than %d rows", ErrBadData, Samples)
		}
		for j, s := range rec[:Pixels] {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > MaxPix {
				return fmt.Errorf("%w: row %d, pixel %d: %q is not an integer in 0..%d", ErrBadData, row, j, s, MaxPix)
			}
			d.X = append(d.X, float64(v))
		}
		l, err := strconv.Atoi(rec[Pixels])
		if err != nil || l < 0 || l >= Classes {
			return fmt.Errorf("%w: row %d: label %q is not a digit", ErrBadData, row, rec[Pixels])
		}
		d.Labels = append(d.Labels, l)
		counts[l]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Labels) != Samples {
		return nil, fmt.Errorf("%w: %d rows, want %d", ErrBadData, len(d.Labels), Samples)
	}
	if counts != ClassCounts {
		return nil, fmt.Errorf("%w: class counts %v, want %v", ErrBadData, counts, ClassCounts)
	}
	return d, nil
}
