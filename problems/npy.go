package problems

import (
	"archive/zip"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"strings"
)

// The .npy format (numpy's NEP 1): the magic "\x93NUMPY", a major and a
// minor version byte, the header's length (2 bytes little-endian in
// version 1, 4 in versions 2 and 3), the header, a Python dict literal
// {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and ended by '\n', and then the data, shape's product times the
// dtype's size bytes, in C or Fortran order.

// maxHeaderLen bounds an .npy header's length. numpy writes a few dozen
// bytes per axis and reads at most 10000 unless told otherwise.
const maxHeaderLen = 1 << 16

// maxDeflateRatio is the most that deflate expands its input: one
// 258-byte match per two bits at best, 1032:1.
const maxDeflateRatio = 1032

// npyHeader is an .npy member's checked header.
type npyHeader struct {
	descr   string // the dtype as written ("<f8")
	kind    byte   // 'f', 'i' or 'u'
	size    int64  // bytes per entry
	order   binary.ByteOrder
	fortran bool
	shape   []int // nil for a 0-d array
	entries int64 // shape's product
	offset  int64 // bytes before the data: magic, version, length, header
}

// readHeader reads and checks the header of the .npy member f: the
// member's declared size must be one its compressed bytes can hold, the
// header one rhgd reads (numeric dtype, shape of non-negative sizes), its
// data exactly the member's remaining declared bytes. It reads at most the
// header's bytes of the member and allocates only the header.
func readHeader(f *zip.File) (*npyHeader, error) {
	size := f.UncompressedSize64
	switch {
	case f.Flags&0x1 != 0:
		return nil, errors.New("the member is encrypted")
	case f.Method == zip.Store && size != f.CompressedSize64:
		return nil, fmt.Errorf("the zip directory declares %d bytes for a stored member of %d bytes", size, f.CompressedSize64)
	case f.Method == zip.Deflate && size/maxDeflateRatio > f.CompressedSize64:
		return nil, fmt.Errorf("the zip directory declares %d bytes for %d deflated bytes, more than deflate expands them to", size, f.CompressedSize64)
	}
	rc, err := openMember(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := io.LimitReader(rc, int64(min(size, 12+maxHeaderLen)))
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not an .npy file (no \\x93NUMPY magic in its %d bytes)", size)
	}
	var hlen, offset int64
	switch pre[6] {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, fmt.Errorf("the member ends in its .npy preamble: %v", err)
		}
		hlen, offset = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("the member ends in its .npy preamble: %v", err)
		}
		hlen, offset = int64(binary.LittleEndian.Uint32(l[:])), 12
	default:
		return nil, fmt.Errorf(".npy format version %d.%d is not supported (1.0 to 3.0 are)", pre[6], pre[7])
	}
	if hlen > maxHeaderLen {
		return nil, fmt.Errorf("an .npy header of %d bytes, more than %d", hlen, maxHeaderLen)
	}
	if uint64(offset+hlen) > size {
		return nil, fmt.Errorf("an .npy header of %d bytes in a member of %d", hlen, size)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("the member is truncated or corrupt in its .npy header: %v", err)
	}
	h, err := parseHeader(string(buf))
	if err != nil {
		return nil, err
	}
	h.offset = offset + hlen
	if data := size - uint64(h.offset); uint64(h.entries*h.size) != data {
		return nil, fmt.Errorf("its header declares shape %s of %s, %d bytes of data, and the member holds %d",
			pyShape(h.shape), h.descr, h.entries*h.size, data)
	}
	return h, nil
}

// checkLimit checks that h's entries as float64 take at most limit bytes.
func (h *npyHeader) checkLimit(limit int64) error {
	if h.entries > limit/8 || h.entries > math.MaxInt {
		return fmt.Errorf("shape %s: %d entries take %d bytes as float64, over the limit of %d bytes per array (%s raises it)",
			pyShape(h.shape), h.entries, 8*h.entries, limit, EnvMaxArrayBytes)
	}
	return nil
}

// openMember opens the member f's content: its stored bytes, or the
// decompressor over its deflated bytes (the CRC-32 is readData's to
// check).
func openMember(f *zip.File) (io.ReadCloser, error) {
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, err
	}
	switch f.Method {
	case zip.Store:
		return io.NopCloser(raw), nil
	case zip.Deflate:
		return flate.NewReader(raw), nil
	}
	return nil, fmt.Errorf("zip compression method %d is not supported (numpy stores or deflates)", f.Method)
}

// readData reads the data of the .npy member f, whose checked header is
// h, as float64 in row-major order: the decompressor is read through a
// limit of the data's declared size into a buffer of that many entries,
// and must end there, with the directory's CRC-32.
func readData(f *zip.File, h *npyHeader) ([]float64, error) {
	rc, err := openMember(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	crc := crc32.NewIEEE()
	r := io.TeeReader(rc, crc)
	if _, err := io.CopyN(io.Discard, r, h.offset); err != nil {
		return nil, fmt.Errorf("the member is truncated or corrupt in its header: %v", err)
	}
	n := h.entries * h.size
	lr := io.LimitReader(r, n)
	out := make([]float64, h.entries)
	buf := make([]byte, min(n, (32<<10)/h.size*h.size))
	o := newOrder(h.shape, h.fortran)
	for done := int64(0); done < n; {
		k, err := io.ReadFull(lr, buf[:min(int64(len(buf)), n-done)])
		if err != nil {
			return nil, fmt.Errorf("the member is truncated or corrupt after %d of the %d bytes of data its header declares: %v", done+int64(k), n, err)
		}
		for b := buf[:k]; len(b) > 0; b = b[h.size:] {
			x := h.decode(b)
			i := o.next()
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("entry %d (row-major) is %v", i, x)
			}
			out[i] = x
		}
		done += int64(k)
	}
	var one [1]byte
	switch k, err := io.ReadFull(r, one[:]); {
	case k > 0:
		return nil, fmt.Errorf("the member expands beyond the %d bytes its zip directory declares", f.UncompressedSize64)
	case err != io.EOF:
		return nil, fmt.Errorf("the member is truncated or corrupt at its end: %v", err)
	}
	if f.CRC32 != 0 && crc.Sum32() != f.CRC32 {
		return nil, fmt.Errorf("the member's checksum (CRC-32 %08x) is not the %08x its zip directory declares", crc.Sum32(), f.CRC32)
	}
	return out, nil
}

// decode returns the entry at the start of b as float64.
func (h *npyHeader) decode(b []byte) float64 {
	switch {
	case h.kind == 'f' && h.size == 8:
		return math.Float64frombits(h.order.Uint64(b))
	case h.kind == 'f':
		return float64(math.Float32frombits(h.order.Uint32(b)))
	case h.kind == 'i' && h.size == 8:
		return float64(int64(h.order.Uint64(b)))
	case h.kind == 'i':
		return float64(int32(h.order.Uint32(b)))
	}
	return float64(b[0])
}

// order gives the row-major offset of each entry of an array of a shape,
// in the order a C- or Fortran-ordered file holds them.
type order struct {
	shape, idx []int
	fortran    bool
	i          int
}

func newOrder(shape []int, fortran bool) *order {
	return &order{shape: shape, idx: make([]int, len(shape)), fortran: fortran && len(shape) > 1}
}

// next returns the row-major offset of the file's next entry.
func (o *order) next() int {
	if !o.fortran {
		o.i++
		return o.i - 1
	}
	// idx is the next entry's index; the first axis varies fastest.
	r := 0
	for a, n := range o.shape {
		r = r*n + o.idx[a]
	}
	for a := range o.idx {
		if o.idx[a]++; o.idx[a] < o.shape[a] {
			break
		}
		o.idx[a] = 0
	}
	return r
}

// dtypes are the .npy dtypes rhgd reads (without byte order), with their
// kinds and sizes.
var dtypes = map[string]struct {
	kind byte
	size int64
}{"f8": {'f', 8}, "f4": {'f', 4}, "i8": {'i', 8}, "i4": {'i', 4}, "u1": {'u', 1}}

// pyShape writes shape as numpy does: (2, 3), (4,), ().
func pyShape(shape []int) string {
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// parseHeader parses an .npy header: a Python dict literal with exactly
// the keys 'descr' (a numeric dtype string), 'fortran_order' (True or
// False) and 'shape' (a tuple of non-negative integers, Python 2's 3L
// too), then whitespace.
func parseHeader(s string) (*npyHeader, error) {
	p := &hparser{s: s}
	h := &npyHeader{}
	var descr, shape string
	seen := map[string]bool{}
	p.ws()
	if !p.eat('{') {
		return nil, p.errf("not a dict")
	}
	for p.ws(); !p.eat('}'); p.ws() {
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errf("%q twice", key)
		}
		seen[key] = true
		if p.ws(); !p.eat(':') {
			return nil, p.errf("no ':' after %q", key)
		}
		p.ws()
		switch key {
		case "descr":
			if p.peek() == '[' || p.peek() == '{' {
				return nil, p.errf("'descr' is a structured dtype, which rhgd does not read (want float64, float32, int64, int32 or uint8)")
			}
			if descr, err = p.str(); err != nil {
				return nil, err
			}
		case "fortran_order":
			switch w := p.word(); w {
			case "True", "False":
				h.fortran = w == "True"
			default:
				return nil, p.errf("'fortran_order' is %q, not True or False", w)
			}
		case "shape":
			start := p.p
			if h.shape, err = p.tuple(); err != nil {
				return nil, err
			}
			shape = s[start:p.p]
		default:
			return nil, p.errf("unknown key %q", key)
		}
		if p.ws(); !p.eat(',') && p.peek() != '}' {
			return nil, p.errf("no ',' or '}' after %q", key)
		}
	}
	if strings.TrimRight(s[p.p:], " \t\r\n") != "" {
		return nil, p.errf("%q after the dict", s[p.p:])
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return nil, p.errf("no %q", k)
		}
	}

	h.descr = descr
	t, order := descr, binary.ByteOrder(binary.LittleEndian)
	if t != "" && strings.ContainsRune("<>|=", rune(t[0])) {
		if t[0] == '>' {
			order = binary.BigEndian
		} else if t[0] == '=' {
			order = binary.NativeEndian
		}
		t = t[1:]
	}
	if strings.HasPrefix(t, "O") {
		return nil, fmt.Errorf("dtype %s is an object array (pickled Python objects), which rhgd does not read: save numeric arrays", descr)
	}
	dt, ok := dtypes[t]
	if !ok || descr[0] == '|' && dt.size > 1 {
		return nil, fmt.Errorf("dtype %s is not supported (want float64, float32, int64, int32 or uint8)", descr)
	}
	h.kind, h.size, h.order = dt.kind, dt.size, order

	h.entries = 1
	for _, n := range h.shape {
		if n == 0 {
			h.entries = 0
			break
		}
	}
	for _, n := range h.shape {
		if h.entries == 0 {
			break
		}
		if int64(n) > math.MaxInt64/h.size/h.entries {
			return nil, fmt.Errorf("shape %s has too many entries", shape)
		}
		h.entries *= int64(n)
	}
	return h, nil
}

// hparser reads a Python literal from s at p.
type hparser struct {
	s string
	p int
}

func (p *hparser) errf(format string, args ...any) error {
	h := p.s
	if len(h) > 80 {
		h = h[:80] + "…"
	}
	return fmt.Errorf("bad .npy header %q: "+format, append([]any{h}, args...)...)
}

func (p *hparser) ws() {
	for p.p < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.p]) >= 0 {
		p.p++
	}
}

func (p *hparser) peek() byte {
	if p.p < len(p.s) {
		return p.s[p.p]
	}
	return 0
}

func (p *hparser) eat(c byte) bool {
	if p.peek() == c && p.p < len(p.s) {
		p.p++
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *hparser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errf("a key or a 'descr' that is not a string")
	}
	end := strings.IndexByte(p.s[p.p+1:], q)
	if end < 0 {
		return "", p.errf("an unclosed string")
	}
	v := p.s[p.p+1 : p.p+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", p.errf("a string with escapes")
	}
	p.p += end + 2
	return v, nil
}

// word reads letters.
func (p *hparser) word() string {
	start := p.p
	for p.p < len(p.s) && (p.s[p.p] >= 'A' && p.s[p.p] <= 'Z' || p.s[p.p] >= 'a' && p.s[p.p] <= 'z') {
		p.p++
	}
	return p.s[start:p.p]
}

// tuple reads a tuple of non-negative integers.
func (p *hparser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, p.errf("'shape' is not a tuple")
	}
	var out []int
	for p.ws(); !p.eat(')'); p.ws() {
		start := p.p
		for p.p < len(p.s) && p.s[p.p] >= '0' && p.s[p.p] <= '9' {
			p.p++
		}
		n, err := strconv.ParseInt(p.s[start:p.p], 10, 0)
		if err != nil {
			return nil, p.errf("'shape' has %q, not a size", p.s[start:min(p.p+1, len(p.s))])
		}
		p.eat('L')
		out = append(out, int(n))
		if p.ws(); !p.eat(',') && p.peek() != ')' {
			return nil, p.errf("'shape' is not a tuple of sizes")
		}
	}
	return out, nil
}
