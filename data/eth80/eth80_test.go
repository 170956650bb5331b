package eth80

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/data/internal/datatest"
	"github.com/rhgd/rhgd/numerr"
)

// TestChecksum: the embedded file has the size and SHA-256 that the
// README's table lists.
func TestChecksum(t *testing.T) {
	datatest.Check(t, "eth80_gray10x10.csv.gz", file)
}

// TestLoad: the README's statements about the data: 80 sets of 41 images,
// ten objects per class with the class of the set number, integer pixels
// in 0..255 spread over most of the range, object names that start with the class
// name (the car folders 4, 8 and 10 holding car11, car12 and car14).
func TestLoad(t *testing.T) {
	d, err := Load()
	require.NoError(t, err)
	require.Len(t, d.Images, Sets*Views*Pixels)
	var counts [Classes]int
	for s, l := range d.Labels {
		require.Equal(t, s/Objects+1, l, "set %d", s+1)
		counts[l-1]++
		require.True(t, strings.HasPrefix(d.Objects[s], ClassNames[l-1]), "set %d is %s", s+1, d.Objects[s])
	}
	for _, c := range counts {
		require.Equal(t, Objects, c)
	}
	require.Equal(t, "car11", d.Objects[1*Objects+3])
	require.Equal(t, "car14", d.Objects[1*Objects+9])
	lo, hi := 255.0, 0.0
	for _, p := range d.Images {
		require.Equal(t, float64(int(p)), p)
		lo, hi = min(lo, p), max(hi, p)
	}
	require.GreaterOrEqual(t, lo, 0.0)
	require.LessOrEqual(t, hi, 255.0)
	require.Greater(t, hi-lo, 200.0, "the pixels use the range")
	// First row of the file: set 1, image 1 starts 63, 63, 62, 62, 56.
	require.Equal(t, []float64{63, 63, 62, 62, 56}, d.Set(0)[:5])
}

// TestReadBad: malformed files are errors wrapping ErrBadData (and
// numerr.ErrInvalid), never a panic or a partial Data.
func TestReadBad(t *testing.T) {
	head := "set,class,class_name,object,object_name,image,view"
	for i := 0; i < Pixels; i++ {
		head += ",p" + strconv.Itoa(i)
	}
	row := func(set, class int, name string, obj, img int, pix string) string {
		r := strconv.Itoa(set) + "," + strconv.Itoa(class) + "," + name + "," + strconv.Itoa(obj) + "," + name + strconv.Itoa(obj) + "," + strconv.Itoa(img) + ",000-000"
		for i := 0; i < Pixels; i++ {
			if i == 0 {
				r += "," + pix
			} else {
				r += ",1"
			}
		}
		return r + "\n"
	}
	cases := map[string]string{
		"not gzip":     "",
		"bad header":   strings.Replace(head, "p7", "q7", 1) + "\n",
		"too short":    head + "\n" + row(1, 1, "apple", 1, 1, "0"),
		"pixel 256":    head + "\n" + row(1, 1, "apple", 1, 1, "256"),
		"pixel -1":     head + "\n" + row(1, 1, "apple", 1, 1, "-1"),
		"pixel 1.5":    head + "\n" + row(1, 1, "apple", 1, 1, "1.5"),
		"set mismatch": head + "\n" + row(2, 1, "apple", 1, 1, "0"),
		"class name":   head + "\n" + row(1, 1, "pear", 1, 1, "0"),
		"image 42":     head + "\n" + row(1, 1, "apple", 1, 42, "0"),
		"duplicate":    head + "\n" + row(1, 1, "apple", 1, 1, "0") + row(1, 1, "apple", 1, 1, "0"),
		"short row":    head + "\n1,1,apple,1,apple1,1,000-000,3\n",
		"class 9":      head + "\n" + row(81, 9, "apple", 1, 1, "0"),
	}
	for name, text := range cases {
		var r *bytes.Reader
		if name == "not gzip" {
			r = bytes.NewReader([]byte("plain text"))
		} else {
			r = datatest.Gzip(t, text)
		}
		d, err := Read(r)
		require.ErrorIs(t, err, ErrBadData, name)
		require.ErrorIs(t, err, numerr.ErrInvalid, name)
		require.Nil(t, d, name)
	}
}
