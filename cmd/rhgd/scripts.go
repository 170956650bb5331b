package main

import (
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// scripts is a gonum/plot text handler for plain text with subscripts
// and superscripts, written "x_k", "y_{k+1}", "10^{−5}": the plots' font
// (Liberation) has no Unicode ₖ, ₊, ⁰ or ⁻, and gonum's LaTeX handler
// does not lay out scripts. A script is a single rune or a braced group,
// set smaller and shifted off the baseline; scripts do not nest.
type scripts struct{ fonts *font.Cache }

var _ text.Handler = scripts{}

// The size of a script relative to its text, and the shifts of its
// baseline, relative to the text's font size.
const (
	scriptSize = 0.7
	subShift   = -0.2
	supShift   = 0.4
)

// textRun is a piece of a line set at one size and baseline.
type textRun struct {
	s     string
	shift float64 // baseline shift, relative to the font size
}

// runs splits a line into text and scripts.
func runs(line string) []textRun {
	var out []textRun
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, textRun{s: b.String()})
			b.Reset()
		}
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if (c != '_' && c != '^') || i+1 == len(rs) {
			b.WriteRune(c)
			continue
		}
		flush()
		shift := subShift
		if c == '^' {
			shift = supShift
		}
		j := i + 1
		var script string
		if rs[j] == '{' {
			end := j + 1
			for end < len(rs) && rs[end] != '}' {
				end++
			}
			script = string(rs[j+1 : end])
			i = end
		} else {
			script = string(rs[j])
			i = j
		}
		out = append(out, textRun{s: script, shift: shift})
	}
	flush()
	return out
}

// Cache implements text.Handler.
func (h scripts) Cache() *font.Cache { return h.fonts }

// Extents implements text.Handler: those of the text's font.
func (h scripts) Extents(fnt font.Font) font.Extents {
	f := h.fonts.Lookup(fnt, fnt.Size)
	return f.Extents()
}

// Lines implements text.Handler.
func (h scripts) Lines(txt string) []string {
	return strings.Split(strings.TrimRight(txt, "\n"), "\n")
}

// face returns the face of a run.
func (h scripts) face(fnt font.Font, r textRun) *font.Face {
	size := fnt.Size
	if r.shift != 0 {
		size = vg.Length(scriptSize) * size
	}
	f := h.fonts.Lookup(fnt, size)
	return &f
}

// Box implements text.Handler.
func (h scripts) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	ext := h.Extents(fnt)
	height, depth = ext.Ascent, ext.Descent
	for _, r := range runs(txt) {
		f := h.face(fnt, r)
		width += f.Width(r.s)
		shift := vg.Length(r.shift) * fnt.Size
		height = max(height, f.Extents().Ascent+shift)
		depth = max(depth, f.Extents().Descent-shift)
	}
	return width, height, depth
}

// Draw implements text.Handler, as text.Plain does, one run at a time.
func (h scripts) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
		defer c.Pop()
	}
	sin, cos := math.Sincos(sty.Rotation)
	pt.X, pt.Y = pt.Y*vg.Length(sin)+pt.X*vg.Length(cos), pt.Y*vg.Length(cos)-pt.X*vg.Length(sin)

	lines := h.Lines(txt)
	ext := h.Extents(sty.Font)
	gap := ext.Height - ext.Ascent - ext.Descent
	top := pt.Y + sty.Height(txt)*vg.Length(sty.YAlign) + sty.Height(txt) // the block's top
	for _, line := range lines {
		w, ht, d := h.Box(line, sty.Font)
		base := top - ht
		x := pt.X + vg.Length(sty.XAlign)*w
		for _, r := range runs(line) {
			f := h.face(sty.Font, r)
			c.FillString(*f, vg.Point{X: x, Y: base + vg.Length(r.shift)*sty.Font.Size}, r.s)
			x += f.Width(r.s)
		}
		top = base - d - gap
	}
}
