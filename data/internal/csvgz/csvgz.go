// Package csvgz reads the gzipped CSV files that the data packages embed:
// one way to open them, to check numbered header columns and to walk the
// rows, so that every package reports a broken file in the same words.
// Every error wraps the bad-data error the package passes in.
package csvgz

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Reader reads the records of a gzipped CSV stream.
type Reader struct {
	gz  *gzip.Reader
	cr  *csv.Reader
	bad error
}

// Open returns a Reader of the gzipped CSV r whose records have fields
// columns; the records share one slice (csv.Reader.ReuseRecord). A stream
// that is not gzip is an error wrapping bad. Close the Reader when done.
func Open(r io.Reader, fields int, bad error) (*Reader, error) {
	gz, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %w", bad, err)
	}
	cr := csv.NewReader(gz)
	cr.FieldsPerRecord = fields
	cr.ReuseRecord = true
	return &Reader{gz: gz, cr: cr, bad: bad}, nil
}

// Close closes the gzip stream.
func (r *Reader) Close() error { return r.gz.Close() }

// Header returns the first record.
func (r *Reader) Header() ([]string, error) {
	head, err := r.cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: header: %w", r.bad, err)
	}
	return head, nil
}

// Rows calls row for each remaining record, numbered from 1, and stops at
// the first error.
func (r *Reader) Rows(row func(n int, rec []string) error) error {
	for n := 1; ; n++ {
		rec, err := r.cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", r.bad, err)
		}
		if err := row(n, rec); err != nil {
			return err
		}
	}
}

// Numbered checks that the header columns from column from on are
// prefix0, prefix1, … (p0, p1, … for pixels, f0, f1, … for features).
func (r *Reader) Numbered(head []string, from int, prefix string) error {
	for j, h := range head[from:] {
		if want := prefix + strconv.Itoa(j); h != want {
			return fmt.Errorf("%w: header column %d is %q, want %q", r.bad, j+from, h, want)
		}
	}
	return nil
}
