// Package eth80 holds the ETH-80 image sets of the paper's deep
// hyper-representation experiment (Sec. 4.2), embedded in the binary: 80
// sets (8 classes × 10 objects) of 41 grayscale views each, resized to
// 10×10 pixels. README.md in this directory gives their provenance,
// checksum and license notes.
//
// Load parses the embedded file and validates it: the header, the number
// of rows and columns, integer pixels in 0..255, the set, class and object
// numbers of every row, the class names, and that every set has its 41
// images exactly once. Read does the same for any reader, for data from
// elsewhere in the same format.
package eth80

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"strconv"

	"github.com/rhgd/rhgd/data/internal/csvgz"
	"github.com/rhgd/rhgd/numerr"
)

//go:embed eth80_gray10x10.csv.gz
var file []byte

// ErrBadData signifies a file that is not what it should be: a wrong
// header, row or column count, a pixel outside 0..255, inconsistent set,
// class or object numbers, or a set without its 41 images
// (numerr.ErrInvalid).
var ErrBadData = numerr.New(numerr.ErrInvalid, "eth80: bad data")

// The sizes of the data.
const (
	Classes = 8   // object categories, labels 1..Classes
	Objects = 10  // objects per class
	Sets    = 80  // image sets, Classes·Objects
	Views   = 41  // images per set
	Side    = 10  // pixels per side
	Pixels  = 100 // Side², the length of a vectorized image
)

// ClassNames are the class names, ClassNames[k−1] for label k.
var ClassNames = [Classes]string{"apple", "car", "cow", "cup", "dog", "horse", "pear", "tomato"}

// Data are the 80 image sets.
type Data struct {
	// Images holds Sets·Views·Pixels pixel values 0..255: set s (from 0),
	// view v (from 0), pixel p (row-major, p = 10·row + column) at
	// Images[(s·Views + v)·Pixels + p]. Sets are numbered as in the file,
	// s = (class − 1)·Objects + object − 1.
	Images []float64
	// Labels are the classes 1..Classes of the sets.
	Labels []int
	// Objects are the ETH-80 instance names of the sets (apple1, ...).
	Objects []string
}

// Set returns the Views·Pixels pixels of set s (the Data's own slice).
func (d *Data) Set(s int) []float64 {
	return d.Images[s*Views*Pixels : (s+1)*Views*Pixels]
}

// Load returns the embedded image sets, validated (see Read).
func Load() (*Data, error) {
	d, err := Read(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("eth80_gray10x10.csv.gz: %w", err)
	}
	return d, nil
}

// Read parses gzipped CSV in the format of the embedded file (README.md:
// header set,class,class_name,object,object_name,image,view,p0,…,p99, one
// image per row) and validates it. Errors wrap ErrBadData.
func Read(r io.Reader) (*Data, error) {
	cr, err := csvgz.Open(r, 7+Pixels, ErrBadData)
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	head, err := cr.Header()
	if err != nil {
		return nil, err
	}
	for j, want := range []string{"set", "class", "class_name", "object", "object_name", "image", "view"} {
		if head[j] != want {
			return nil, fmt.Errorf("%w: header column %d is %q, want %q", ErrBadData, j, head[j], want)
		}
	}
	if err := cr.Numbered(head, 7, "p"); err != nil {
		return nil, err
	}
	d := &Data{Images: make([]float64, Sets*Views*Pixels), Labels: make([]int, Sets), Objects: make([]string, Sets)}
	var seen [Sets][Views]bool
	rows := 0
	integer := func(row int, name, s string, lo, hi int) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil || v < lo || v > hi {
			return 0, fmt.Errorf("%w: row %d: %s %q is not an integer in %d..%d", ErrBadData, row, name, s, lo, hi)
		}
		return v, nil
	}
	err = cr.Rows(func(row int, rec []string) error {
		if rows == Sets*Views {
			return fmt.Errorf("%w: more than %d rows", ErrBadData, Sets*Views)
		}
		set, err := integer(row, "set", rec[0], 1, Sets)
		if err != nil {
			return err
		}
		class, err := integer(row, "class", rec[1], 1, Classes)
		if err != nil {
			return err
		}
		obj, err := integer(row, "object", rec[3], 1, Objects)
		if err != nil {
			return err
		}
		img, err := integer(row, "image", rec[5], 1, Views)
		if err != nil {
			return err
		}
		if set != (class-1)*Objects+obj {
			return fmt.Errorf("%w: row %d: set %d is not (class−1)·%d + object for class %d, object %d", ErrBadData, row, set, Objects, class, obj)
		}
		if rec[2] != ClassNames[class-1] {
			return fmt.Errorf("%w: row %d: class %d is called %q, want %q", ErrBadData, row, class, rec[2], ClassNames[class-1])
		}
		s, v := set-1, img-1
		if seen[s][v] {
			return fmt.Errorf("%w: row %d: set %d image %d appears twice", ErrBadData, row, set, img)
		}
		seen[s][v] = true
		if v == 0 {
			d.Labels[s], d.Objects[s] = class, rec[4]
		}
		px := d.Images[(s*Views+v)*Pixels : (s*Views+v+1)*Pixels]
		for j, p := range rec[7:] {
			x, err := integer(row, "pixel p"+strconv.Itoa(j), p, 0, 255)
			if err != nil {
				return err
			}
			px[j] = float64(x)
		}
		rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows != Sets*Views {
		return nil, fmt.Errorf("%w: %d rows, want %d", ErrBadData, rows, Sets*Views)
	}
	// Every set is complete (rows are unique and there are Sets·Views
	// of them), so each has its label from its first image.
	return d, nil
}
