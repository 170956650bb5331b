// Package npztest writes .npz files byte by byte, well-formed or hostile
// (headers that claim more than a member holds, zip directories that lie
// about a member's size, deflated members that expand beyond it), for the
// tests of rhgd's .npz loader at every entry point: problems, the rhgd
// command and the C ABI. Everything it writes is small, whatever the
// files claim.
package npztest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"strings"
)

// NPY returns an .npy file (format 1.0): the magic, the header dict
// {'descr': descr, 'fortran_order': False, 'shape': shape}, padded with
// spaces to a multiple of 64 bytes as numpy pads it, then data.
func NPY(descr string, shape []int, data []byte) []byte {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = fmt.Sprint(s)
	}
	tuple := "(" + strings.Join(parts, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	return NPYHeader(fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple), data)
}

// NPYHeader returns an .npy file (format 1.0) with the header dict text
// dict (padded with spaces and a newline to a multiple of 64 bytes)
// followed by data.
func NPYHeader(dict string, data []byte) []byte {
	pad := 64 - (10+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	h := dict + strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	_ = binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

// Float64s returns v little-endian, as numpy's '<f8' data.
func Float64s(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// Values returns n standard normal entries drawn from seed: a matrix of
// them has full rank.
func Values(n int, seed uint64) []float64 {
	rnd := rand.New(rand.NewPCG(seed, 0x4e505a))
	v := make([]float64, n)
	for i := range v {
		v[i] = rnd.NormFloat64()
	}
	return v
}

// Member is one member of an archive that Zip writes.
type Member struct {
	// Name is the member's name in the archive ("X.npy").
	Name string
	// Data are the member's bytes, usually an NPY.
	Data []byte
	// Deflate compresses the member (zip's method 8); else it is stored.
	Deflate bool
	// Zeros, when positive, appends that many zero bytes to a deflated
	// member's content without counting them in the size its directory
	// declares: a member that expands beyond its declared size. Zeros
	// deflate about a thousandfold, so a large count stays a small file.
	Zeros int
	// Size, when positive, is the uncompressed size the zip directory
	// declares instead of the true one (len(Data), plus Zeros).
	Size uint64
	// Cut, when positive, drops that many bytes from the end of the
	// member's stored or compressed bytes, keeping the directory's sizes:
	// a truncated member.
	Cut int
}

// Zip returns a zip archive of the members, with their CRC-32s and sizes
// in the directory as the members say.
func Zip(members ...Member) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, m := range members {
		content := m.Data
		if m.Zeros > 0 {
			content = append(bytes.Clone(m.Data), make([]byte, m.Zeros)...)
		}
		raw := content
		method := zip.Store
		if m.Deflate {
			var c bytes.Buffer
			fw, _ := flate.NewWriter(&c, flate.BestCompression)
			_, _ = fw.Write(content)
			_ = fw.Close()
			raw, method = c.Bytes(), zip.Deflate
		}
		size := uint64(len(content))
		crc := crc32.ChecksumIEEE(content)
		if m.Zeros > 0 {
			size, crc = uint64(len(m.Data)), crc32.ChecksumIEEE(m.Data)
		}
		if m.Size > 0 {
			size = m.Size
		}
		if m.Cut > 0 {
			raw = raw[:max(len(raw)-m.Cut, 0)]
		}
		fh := &zip.FileHeader{Name: m.Name, Method: method, CRC32: crc,
			CompressedSize64: uint64(len(raw)), UncompressedSize64: size}
		fw, err := w.CreateRaw(fh)
		if err != nil {
			panic(err)
		}
		if _, err := fw.Write(raw); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Write writes the archive of the members to path.
func Write(path string, members ...Member) error {
	return os.WriteFile(path, Zip(members...), 0o644)
}

// Hostile is one hostile or broken .npz file for the synthetic problem
// (arrays X n×d and Y n×r), with what its loading must report.
type Hostile struct {
	// Name names the case.
	Name string
	// File is the archive.
	File []byte
	// Array is the array the error must name.
	Array string
	// Msg is a substring of the error's message.
	Msg string
}

// Synthetic returns hostile .npz files for the synthetic problem, each a
// few kilobytes whatever it claims:
//   - "huge": X's header claims a 100000 × 100000 float64 array (80 GB),
//     the member holds 128 bytes of data;
//   - "claims": X's header and its zip directory entry both claim
//     2^27 × 8 float64 entries (8 GiB) for a few hundred deflated bytes;
//   - "bomb": X's directory entry and header are honest about 16 × 8
//     entries, but its deflated stream expands to 4 MiB more;
//   - "object": X is a pickled object array (16 × 1, so that only its
//     dtype is wrong);
//   - "missing": Y is absent, after a 2 MiB X;
//   - "shape": Y has 9 rows for the 4096 of a 2 MiB X;
//   - "short": X's header claims 32 × 8 entries, the member holds 16 × 8;
//   - "truncated": X's deflated stream is cut short of the size its
//     directory entry declares.
//
// A loader that reads an array before it has checked them all allocates
// 2 MiB or more on "missing" and "shape"; one that trusts a header, 80 GB
// or 8 GiB.
func Synthetic() []Hostile {
	x := NPY("<f8", []int{16, 8}, Float64s(Values(16*8, 1)...))
	y := Member{Name: "Y.npy", Data: NPY("<f8", []int{16, 2}, Float64s(Values(16*2, 2)...))}
	big := Member{Name: "X.npy", Data: BigX(), Deflate: true}
	claimed := NPY("<f8", []int{1 << 27, 8}, Float64s(Values(16, 1)...))
	pickled := []byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00.")
	return []Hostile{
		{"huge", Zip(Member{Name: "X.npy", Data: NPY("<f8", []int{100000, 100000}, Float64s(Values(16, 1)...)), Deflate: true}, y),
			"X", "header declares"},
		{"claims", Zip(Member{Name: "X.npy", Data: claimed, Deflate: true, Size: uint64(len(claimed)-128) + 8<<30}, y),
			"X", "zip directory declares"},
		{"bomb", Zip(Member{Name: "X.npy", Data: x, Deflate: true, Zeros: 4 << 20}, y), "X", "expands beyond"},
		{"object", Zip(Member{Name: "X.npy", Data: NPY("|O", []int{16, 1}, pickled)}, y), "X", "|O"},
		{"missing", Zip(big), "Y", "no array"},
		{"shape", Zip(big, Member{Name: "Y.npy", Data: NPY("<f8", []int{9, 2}, Float64s(Values(9*2, 2)...))}), "Y", "shape"},
		{"short", Zip(Member{Name: "X.npy", Data: NPY("<f8", []int{32, 8}, Float64s(Values(16*8, 1)...))}, y),
			"X", "header declares"},
		{"truncated", Zip(Member{Name: "X.npy", Data: x, Deflate: true, Cut: 4}, y), "X", "truncated"},
	}
}

// BigX returns an .npy file of a 4096 × 64 float64 array of zeros: 2 MiB
// of data, which deflate to about 2 KiB.
func BigX() []byte { return NPY("<f8", []int{4096, 64}, make([]byte, 4096*64*8)) }
