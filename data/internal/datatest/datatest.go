// Package datatest holds the data packages' test helpers: the checksums
// their README.md tables list and gzipped test files.
package datatest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Checksum is a file's size in bytes and SHA-256 in hex, as a README's
// table writes them.
type Checksum struct{ Size, SHA256 string }

// Sum returns b's Checksum.
func Sum(b []byte) Checksum {
	sum := sha256.Sum256(b)
	return Checksum{strconv.Itoa(len(b)), hex.EncodeToString(sum[:])}
}

// Listed returns the rows "| `name` | size | sha256 |" of README.md in the
// current directory whose name matches the regular expression name, by
// file name.
func Listed(t testing.TB, name string) map[string]Checksum {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `(" + name + ")` \\| (\\d+) \\| ([0-9a-f]{64}) \\|$")
	listed := map[string]Checksum{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		listed[m[1]] = Checksum{m[2], m[3]}
	}
	return listed
}

// Check checks that README.md in the current directory lists the file
// name with b's size and SHA-256.
func Check(t testing.TB, name string, b []byte) {
	want, ok := Listed(t, regexp.QuoteMeta(name))[name]
	require.True(t, ok, "README table row")
	require.Equal(t, want, Sum(b))
}

// Gzip returns text gzipped, to read.
func Gzip(t testing.TB, text string) *bytes.Reader {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return bytes.NewReader(b.Bytes())
}
