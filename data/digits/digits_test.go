package digits

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/data/internal/datatest"
	"github.com/rhgd/rhgd/numerr"
)

// TestChecksum: the embedded file has the size and SHA-256 that the
// README's table lists.
func TestChecksum(t *testing.T) {
	datatest.Check(t, "digits.csv.gz", file)
}

// TestLoad: 1797 images with the README's class counts, integer pixels
// using the whole range 0..16, and the first row of the file (a zero).
func TestLoad(t *testing.T) {
	d, err := Load()
	require.NoError(t, err)
	require.Len(t, d.X, Samples*Pixels)
	require.Len(t, d.Labels, Samples)
	lo, hi := 16.0, 0.0
	for _, p := range d.X {
		require.Equal(t, float64(int(p)), p)
		lo, hi = min(lo, p), max(hi, p)
	}
	require.Equal(t, 0.0, lo)
	require.Equal(t, 16.0, hi)
	require.Equal(t, 0, d.Labels[0])
	require.Equal(t, []float64{0, 0, 5, 13, 9, 1, 0, 0}, d.X[:8])
}

// TestReadBad: malformed files are errors wrapping ErrBadData.
func TestReadBad(t *testing.T) {
	row := func(pix, label string) string {
		return pix + strings.Repeat(",0", Pixels-1) + "," + label + "\n"
	}
	cases := map[string]string{
		"pixel 17":     row("17", "3"),
		"pixel -1":     row("-1", "3"),
		"pixel 0.5":    row("0.5", "3"),
		"label 10":     row("1", "10"),
		"label x":      row("1", "x"),
		"short row":    "1,2,3\n",
		"too few rows": row("1", "3"),
	}
	for name, text := range cases {
		d, err := Read(datatest.Gzip(t, text))
		require.ErrorIs(t, err, ErrBadData, name)
		require.ErrorIs(t, err, numerr.ErrInvalid, name)
		require.Nil(t, d, name)
	}
	_, err := Read(bytes.NewReader([]byte("not gzip")))
	require.ErrorIs(t, err, ErrBadData)
	// The right number of rows with the wrong class counts.
	var b strings.Builder
	for i := 0; i < Samples; i++ {
		b.WriteString(row("1", "0"))
	}
	_, err = Read(datatest.Gzip(t, b.String()))
	require.ErrorIs(t, err, ErrBadData)
	require.Contains(t, err.Error(), "class counts")
}
