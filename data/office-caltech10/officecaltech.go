// Package officecaltech holds the Office-Caltech10 features of the paper's
// domain-adaptation experiment (Sec. 4.4), embedded in the binary: SURF
// histograms (800-d) of the four domains Amazon, Caltech, DSLR and Webcam,
// and DeCAF6 activations (4096-d) of DSLR and Webcam. README.md in this
// directory gives their provenance, checksums and license notes.
//
// Load parses a domain's features and validates them: the header, the number
// of columns, finite non-negative values, labels in 1..10, and the number of
// samples of each class, which the README lists per domain. Read does the
// same for any reader, for data from elsewhere in the same format.
//
// The import path ends in office-caltech10, the data's name; the package
// name is officecaltech.
package officecaltech

import (
	"embed"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rhgd/rhgd/data/internal/csvgz"
	"github.com/rhgd/rhgd/numerr"
)

//go:embed surf/*.csv.gz decaf6/*.csv.gz
var files embed.FS

// Errors.
var (
	// ErrBadData signifies a file that is not what it should be: a wrong
	// header, row or column count, a label outside 1..10, a non-finite or
	// negative value, or class counts other than the README's
	// (numerr.ErrInvalid).
	ErrBadData = numerr.New(numerr.ErrInvalid, "officecaltech: bad data")
	// ErrUnavailable signifies a domain and feature pair with no data here
	// (DeCAF6 of Amazon and Caltech) or an unknown name (numerr.ErrInvalid).
	ErrUnavailable = numerr.New(numerr.ErrInvalid, "officecaltech: not available")
)

// Classes is the number of classes; labels run from 1 to Classes.
const Classes = 10

// ClassNames are the class names, ClassNames[k−1] for label k.
var ClassNames = [Classes]string{"back_pack", "bike", "calculator", "headphones", "keyboard",
	"laptop_computer", "monitor", "mouse", "mug", "projector"}

// Domain is one of the four image sources.
type Domain int

// The domains, in the paper's order.
const (
	Amazon Domain = iota
	Caltech
	DSLR
	Webcam
)

// Domains lists the four domains in the paper's order.
var Domains = []Domain{Amazon, Caltech, DSLR, Webcam}

var domainNames = [...]string{"amazon", "caltech", "dslr", "webcam"}

// String returns the domain's name: amazon, caltech, dslr or webcam.
func (d Domain) String() string {
	if d < 0 || int(d) >= len(domainNames) {
		return fmt.Sprintf("Domain(%d)", int(d))
	}
	return domainNames[d]
}

// Letter returns the domain's initial as the paper writes it (A, C, D, W).
func (d Domain) Letter() string {
	if d < 0 || int(d) >= len(domainNames) {
		return "?"
	}
	return string("ACDW"[d])
}

// ParseDomain returns the domain called s (amazon, caltech, dslr, webcam,
// or its letter A, C, D, W).
func ParseDomain(s string) (Domain, error) {
	for i, n := range domainNames {
		if s == n || s == string("ACDW"[i]) {
			return Domain(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown domain %q (want amazon, caltech, dslr or webcam)", ErrUnavailable, s)
}

// Samples returns the number of samples of the domain.
func (d Domain) Samples() int {
	var n int
	for _, c := range classCounts[d] {
		n += c
	}
	return n
}

// ClassCounts returns the number of samples of each class (index k−1 for
// label k), as the README lists them.
func (d Domain) ClassCounts() [Classes]int { return classCounts[d] }

var classCounts = [4][Classes]int{
	Amazon:  {92, 82, 94, 99, 100, 100, 99, 100, 94, 98},
	Caltech: {151, 110, 100, 138, 85, 128, 133, 94, 87, 97},
	DSLR:    {12, 21, 12, 13, 10, 24, 22, 12, 8, 23},
	Webcam:  {29, 21, 31, 27, 27, 30, 43, 30, 27, 30},
}

// Features names a feature set.
type Features int

// The feature sets.
const (
	SURF Features = iota
	DeCAF6
)

// String returns surf or decaf6.
func (f Features) String() string {
	switch f {
	case SURF:
		return "surf"
	case DeCAF6:
		return "decaf6"
	}
	return fmt.Sprintf("Features(%d)", int(f))
}

// ParseFeatures returns the feature set called s (surf or decaf6).
func ParseFeatures(s string) (Features, error) {
	switch s {
	case "surf":
		return SURF, nil
	case "decaf6":
		return DeCAF6, nil
	}
	return 0, fmt.Errorf("%w: unknown features %q (want surf or decaf6)", ErrUnavailable, s)
}

// Dim returns the number of feature columns: 800 for SURF, 4096 for DeCAF6.
func (f Features) Dim() int {
	if f == DeCAF6 {
		return 4096
	}
	return 800
}

// Has reports whether the data of domain d with features f are here: every
// domain with SURF, DSLR and Webcam only with DeCAF6.
func Has(d Domain, f Features) bool {
	_, ok := fileName(d, f)
	return ok
}

func fileName(d Domain, f Features) (string, bool) {
	switch f {
	case SURF:
		switch d {
		case Amazon:
			return "surf/amazon_SURF_L10.csv.gz", true
		case Caltech:
			return "surf/Caltech10_SURF_L10.csv.gz", true
		case DSLR:
			return "surf/dslr_SURF_L10.csv.gz", true
		case Webcam:
			return "surf/webcam_SURF_L10.csv.gz", true
		}
	case DeCAF6:
		switch d {
		case DSLR:
			return "decaf6/dslr_decaf6.csv.gz", true
		case Webcam:
			return "decaf6/webcam_decaf6.csv.gz", true
		}
	}
	return "", false
}

// Set is one domain's features.
type Set struct {
	Domain   Domain
	Features Features
	// N samples of D features: X is N×D, row-major.
	N, D int
	X    []float64
	// Labels are the classes 1..Classes of the rows.
	Labels []int
}

// Load returns the embedded features f of domain d, validated (see Read).
// It returns an error wrapping ErrUnavailable for DeCAF6 of Amazon or
// Caltech, which are not here.
func Load(d Domain, f Features) (*Set, error) {
	name, ok := fileName(d, f)
	if !ok {
		return nil, fmt.Errorf("%w: %v features of %v (DeCAF6 exists for dslr and webcam only)", ErrUnavailable, f, d)
	}
	file, err := files.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadData, name, err)
	}
	defer file.Close()
	s, err := Read(file, d, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Read parses gzipped CSV in the format of the embedded files (header
// label,f0,…,f{D−1}; one sample per row; D = f.Dim()) as the features f of
// domain d, and validates it: every value finite and non-negative, every
// label an integer in 1..10, and the number of rows of each class that of
// the README (d.ClassCounts). Errors wrap ErrBadData.
func Read(r io.Reader, d Domain, f Features) (*Set, error) {
	if d < 0 || int(d) >= len(domainNames) {
		return nil, fmt.Errorf("%w: domain %d", ErrUnavailable, int(d))
	}
	if f != SURF && f != DeCAF6 {
		return nil, fmt.Errorf("%w: features %d", ErrUnavailable, int(f))
	}
	dim, want := f.Dim(), d.Samples()
	cr, err := csvgz.Open(r, dim+1, ErrBadData)
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	head, err := cr.Header()
	if err != nil {
		return nil, err
	}
	if head[0] != "label" {
		return nil, fmt.Errorf("%w: header starts with %q, want \"label\"", ErrBadData, head[0])
	}
	if err := cr.Numbered(head, 1, "f"); err != nil {
		return nil, err
	}
	s := &Set{Domain: d, Features: f, D: dim, X: make([]float64, 0, want*dim), Labels: make([]int, 0, want)}
	var counts [Classes]int
	err = cr.Rows(func(row int, rec []string) error {
		if s.N == want {
			return fmt.Errorf("%w: more than the %d rows of %v", ErrBadData, want, d)
		}
		lab, err := strconv.Atoi(rec[0])
		if err != nil || lab < 1 || lab > Classes {
			return fmt.Errorf("%w: row %d: label %q is not an integer in 1..%d", ErrBadData, row, rec[0], Classes)
		}
		for j, v := range rec[1:] {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("%w: row %d, column f%d: %q is not a finite non-negative number", ErrBadData, row, j, v)
			}
			s.X = append(s.X, x)
		}
		s.Labels = append(s.Labels, lab)
		counts[lab-1]++
		s.N++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.N != want {
		return nil, fmt.Errorf("%w: %d rows, want %d for %v", ErrBadData, s.N, want, d)
	}
	if counts != classCounts[d] {
		return nil, fmt.Errorf("%w: class counts %v, want %v for %v", ErrBadData, counts, classCounts[d], d)
	}
	return s, nil
}
