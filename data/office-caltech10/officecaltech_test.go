package officecaltech

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/data/internal/datatest"
	"github.com/rhgd/rhgd/numerr"
)

// TestChecksums: every embedded file has the size and SHA-256 that the
// README's table lists, and the table lists every embedded file.
func TestChecksums(t *testing.T) {
	listed := datatest.Listed(t, "(?:surf|decaf6)/[^`]+\\.csv\\.gz")
	require.Len(t, listed, 6, "README table rows")
	var seen int
	require.NoError(t, fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		seen++
		b, err := files.ReadFile(path)
		require.NoError(t, err)
		want, ok := listed[path]
		require.True(t, ok, "%s is not in the README", path)
		require.Equal(t, want, datatest.Sum(b), path)
		return nil
	}))
	require.Equal(t, 6, seen)
}

// TestLoadAll loads every available pair, checks shapes and the README's
// statements about the values (integer counts for SURF, non-negative and
// mostly zero for both), and that DeCAF6 of Amazon and Caltech is refused.
func TestLoadAll(t *testing.T) {
	for _, f := range []Features{SURF, DeCAF6} {
		for _, d := range Domains {
			s, err := Load(d, f)
			if !Has(d, f) {
				require.ErrorIs(t, err, ErrUnavailable)
				require.ErrorIs(t, err, numerr.ErrInvalid)
				require.Nil(t, s)
				continue
			}
			require.NoError(t, err, "%v %v", d, f)
			require.Equal(t, d.Samples(), s.N)
			require.Equal(t, f.Dim(), s.D)
			require.Len(t, s.X, s.N*s.D)
			var zeros int
			for _, v := range s.X {
				if v == 0 {
					zeros++
				}
				if f == SURF {
					require.Equal(t, float64(int(v)), v, "SURF counts are integers")
				}
			}
			frac := float64(zeros) / float64(len(s.X))
			t.Logf("%v %v: %d×%d, %.0f%% zeros", d, f, s.N, s.D, 100*frac)
			require.Greater(t, frac, 0.7)
			require.Less(t, frac, 0.95)
		}
	}
	require.Equal(t, []int{958, 1123, 157, 295}, []int{Amazon.Samples(), Caltech.Samples(), DSLR.Samples(), Webcam.Samples()})
}

// TestSameRowOrder: the DeCAF6 and SURF files of DSLR and Webcam list the
// samples in the same order (equal label sequences), as the README says.
func TestSameRowOrder(t *testing.T) {
	for _, d := range []Domain{DSLR, Webcam} {
		a, err := Load(d, SURF)
		require.NoError(t, err)
		b, err := Load(d, DeCAF6)
		require.NoError(t, err)
		require.Equal(t, a.Labels, b.Labels, "%v", d)
	}
}

func TestParse(t *testing.T) {
	for _, d := range Domains {
		got, err := ParseDomain(d.String())
		require.NoError(t, err)
		require.Equal(t, d, got)
		got, err = ParseDomain(d.Letter())
		require.NoError(t, err)
		require.Equal(t, d, got)
	}
	for _, f := range []Features{SURF, DeCAF6} {
		got, err := ParseFeatures(f.String())
		require.NoError(t, err)
		require.Equal(t, f, got)
	}
	_, err := ParseDomain("imagenet")
	require.ErrorIs(t, err, ErrUnavailable)
	_, err = ParseFeatures("vgg")
	require.ErrorIs(t, err, ErrUnavailable)
	require.Equal(t, "Domain(7)", Domain(7).String())
}

// dslrCSV is a valid DSLR SURF file built from the class counts, with the
// edit applied to row k (1-based, 0 for the header) when edit is not nil.
func dslrCSV(k int, edit func(fields []string) []string) string {
	var sb strings.Builder
	head := []string{"label"}
	for j := 0; j < 800; j++ {
		head = append(head, "f"+strconv.Itoa(j))
	}
	emit := func(i int, fields []string) {
		if i == k && edit != nil {
			fields = edit(fields)
		}
		sb.WriteString(strings.Join(fields, ","))
		sb.WriteByte('\n')
	}
	emit(0, head)
	i := 1
	for c, n := range DSLR.ClassCounts() {
		for range n {
			fields := []string{strconv.Itoa(c + 1)}
			for j := 0; j < 800; j++ {
				fields = append(fields, strconv.Itoa((i+j)%3))
			}
			emit(i, fields)
			i++
		}
	}
	return sb.String()
}

// TestReadRejects: each kind of bad file is an error wrapping ErrBadData
// that names the problem; the unedited file passes.
func TestReadRejects(t *testing.T) {
	s, err := Read(datatest.Gzip(t, dslrCSV(0, nil)), DSLR, SURF)
	require.NoError(t, err)
	require.Equal(t, 157, s.N)
	set := func(j int, v string) func([]string) []string {
		return func(f []string) []string { f[j] = v; return f }
	}
	cases := []struct {
		name string
		text string
		msg  string
	}{
		{"label 0", dslrCSV(5, set(0, "0")), "label"},
		{"label 11", dslrCSV(5, set(0, "11")), "label"},
		{"label 1.5", dslrCSV(5, set(0, "1.5")), "label"},
		{"NaN", dslrCSV(7, set(3, "NaN")), "finite"},
		{"Inf", dslrCSV(7, set(3, "+Inf")), "finite"},
		{"negative", dslrCSV(7, set(3, "-1")), "non-negative"},
		{"text", dslrCSV(7, set(3, "x")), "finite"},
		{"short row", dslrCSV(9, func(f []string) []string { return f[:100] }), "wrong number of fields"},
		{"header", dslrCSV(0, set(2, "g1")), "header column"},
		{"header label", dslrCSV(0, set(0, "class")), "header starts"},
		{"class counts", dslrCSV(1, set(0, "2")), "class counts"},
		{"missing row", strings.TrimSuffix(dslrCSV(157, func([]string) []string { return []string{} }), "\n"), "rows"},
		{"empty", "", "header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(datatest.Gzip(t, c.text), DSLR, SURF)
			require.ErrorIs(t, err, ErrBadData)
			require.ErrorContains(t, err, c.msg)
		})
	}
	// One row too many.
	extra := dslrCSV(0, nil) + "1" + strings.Repeat(",0", 800) + "\n"
	_, err = Read(datatest.Gzip(t, extra), DSLR, SURF)
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, "more than")
	// Not gzip.
	_, err = Read(strings.NewReader("label,f0\n"), DSLR, SURF)
	require.ErrorIs(t, err, ErrBadData)
	// A bad domain or feature value.
	_, err = Read(datatest.Gzip(t, dslrCSV(0, nil)), Domain(9), SURF)
	require.ErrorIs(t, err, ErrUnavailable)
	_, err = Read(datatest.Gzip(t, dslrCSV(0, nil)), DSLR, Features(5))
	require.ErrorIs(t, err, ErrUnavailable)
}

func Example() {
	s, err := Load(DSLR, DeCAF6)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Domain, s.Features, s.N, s.D, ClassNames[s.Labels[0]-1])
	_, err = Load(Amazon, DeCAF6)
	fmt.Println(err)
	// Output:
	// dslr decaf6 157 4096 back_pack
	// officecaltech: not available: decaf6 features of amazon (DeCAF6 exists for dslr and webcam only)
}
