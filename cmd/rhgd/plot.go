package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// series picks one curve out of a history: x and y of each row, rows with
// a non-finite (or, on a log axis, non-positive) value left out.
type series func(r epochRow) (x, y float64)

var (
	fByEpoch   series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.F }
	fBySeconds series = func(r epochRow) (float64, float64) { return r.SolverSeconds, r.F }
	// trueByEpoch and trueBySeconds are ‖grad F(x_k)‖, measured by compare
	// where the problem has the true hypergradient.
	trueByEpoch   series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.TrueGradNorm }
	trueBySeconds series = func(r epochRow) (float64, float64) { return r.SolverSeconds, r.TrueGradNorm }
	hgByEpoch     series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.HyperGradNorm }
	errByEpoch    series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.HyperGradErr }
	accByEpoch    series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.Accuracy }
)

// scale is how a panel's y axis is scaled.
type scale int

const (
	linear scale = iota
	logarithmic
	// autoScale is logarithmic when every value is positive and they
	// span a decade or more (hyperrep's objective falls from 2.8 to
	// 0.03, which a linear axis squashes into its bottom tenth), else
	// linear.
	autoScale
)

// panel is one plot of one series for several runs. Its axis labels may
// have sub- and superscripts (see scripts).
type panel struct {
	title, xLabel, yLabel string
	scale                 scale
	pick                  series
}

// The labels of the panels.
const (
	labelEpoch   = "epoch"
	labelSeconds = "seconds (wall clock, measuring excluded)"
	labelTrue    = "‖grad F(x_k)‖"
	labelF       = "f(x_k, y_{k+1})"
	labelHG      = "‖ĝ_k‖"
	labelErr     = "‖ĝ − ĝ_{HINV}‖ / ‖ĝ_{HINV}‖"
	labelAcc     = "accuracy (%)"
)

// axisText sets the axes' labels and tick labels, with the plots' fonts.
var axisText = scripts{fonts: font.DefaultCache}

// yLabelSpace stands in for a y label in gonum's layout, which places the
// label's box at the arithmetic mean of the axis's range: on a log axis
// that is near the top, and the box pushed the data area, and the panel's
// title, out of line with the other panels. It has the height of a label
// with subscripts and almost no width; drawYLabel draws the label itself,
// centred on the data as gonum would.
const yLabelSpace = " _{ }"

// drawYLabel draws p's y label on the canvas c that p was drawn on.
func drawYLabel(c draw.Canvas, p *plot.Plot, label string) {
	sty := p.Y.Label.TextStyle
	x := c.Min.X + sty.Height(yLabelSpace) - sty.FontExtents().Descent
	sty.Rotation += math.Pi / 2
	d := p.DataCanvas(c)
	c.FillText(sty, vg.Point{X: x, Y: d.Center().Y}, label)
}

// draw returns the panel's plot with one line per run, or nil when no run
// has a point to draw.
func (pn panel) draw(outs []*outcome) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pn.title, pn.xLabel, yLabelSpace
	for _, s := range []*text.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		s.Handler = axisText
	}
	type curve struct {
		xys plotter.XYs
		i   int
	}
	var curves []curve
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, o := range outs {
		var xys plotter.XYs
		for _, r := range o.hist.rows {
			x, y := pn.pick(r)
			if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(x) || pn.scale == logarithmic && y <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			lo, hi = min(lo, y), max(hi, y)
		}
		if len(xys) > 0 {
			curves = append(curves, curve{xys, i})
		}
	}
	if len(curves) == 0 {
		return nil, nil
	}
	isLog := pn.scale == logarithmic || pn.scale == autoScale && lo > 0 && hi >= 10*lo
	for _, c := range curves {
		l, err := plotter.NewLine(c.xys)
		if err != nil {
			return nil, err
		}
		styleLine(l, c.i)
		p.Add(l)
	}
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker = linearTicks{}
	p.X.Min, p.X.Max = bracket(p.X.Min, p.X.Max)
	if isLog {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		if lo == hi { // one value: gonum's padding of a flat range would reach below zero
			p.Y.Min, p.Y.Max = lo/2, hi*2
		}
		p.Y.Min, p.Y.Max = logBracket(p.Y.Min, p.Y.Max)
	} else {
		p.Y.Tick.Marker = linearTicks{}
		p.Y.Min, p.Y.Max = bracket(p.Y.Min, p.Y.Max)
	}
	if p.X.Min == p.X.Max { // one point (epochs and seconds are ≥ 0)
		p.X.Max = p.X.Min + 1
	}
	if !isLog && p.Y.Min == p.Y.Max {
		p.Y.Min, p.Y.Max = bracket(p.Y.Min-0.5*math.Max(1, math.Abs(p.Y.Min)), p.Y.Max+0.5*math.Max(1, math.Abs(p.Y.Max)))
	}
	return p, nil
}

// styleLine gives the i-th run's line its colour and dashes.
func styleLine(l *plotter.Line, i int) {
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i)
	l.Width = vg.Points(1.5)
}

// figure returns the panels that have data with their y labels, and the
// legend of the runs, which is drawn beside them (nil for a single run,
// whose panels need none).
func figure(outs []*outcome, panels []panel) ([]*plot.Plot, []string, *plot.Legend, error) {
	var plots []*plot.Plot
	var yLabels []string
	for _, pn := range panels {
		p, err := pn.draw(outs)
		if err != nil {
			return nil, nil, nil, err
		}
		if p != nil {
			plots, yLabels = append(plots, p), append(yLabels, pn.yLabel)
		}
	}
	if len(outs) < 2 {
		return plots, yLabels, nil, nil
	}
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	for i, o := range outs {
		line := &plotter.Line{}
		styleLine(line, i)
		l.Add(o.name, line)
	}
	return plots, yLabels, &l, nil
}

// Sizes of a figure: each panel, and the legend's column.
const (
	panelW, panelH = 11 * vg.Centimeter, 9 * vg.Centimeter
	legendW        = 3 * vg.Centimeter
)

// layout places the panels in a row on c, and the legend (if any) in a
// column to their right, clear of the data; it returns the panels'
// canvases and the legend's.
func layout(c draw.Canvas, plots []*plot.Plot, legend *plot.Legend) ([]draw.Canvas, draw.Canvas) {
	pc, lc := c, c
	if legend != nil {
		pc = draw.Crop(c, 0, -legendW, 0, 0)
		lc = draw.Crop(c, c.Size().X-legendW+vg.Millimeter*3, 0, 0, -vg.Centimeter)
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Centimeter, PadTop: vg.Millimeter * 3,
		PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
	// Align gives the panels' data equal areas by cropping their tiles: a
	// panel whose top tick label reaches higher (10^{0}) keeps more room
	// above its data, and its title would stand higher than the others.
	// Padding every title to the same room keeps them in line.
	room := make([]vg.Length, len(plots))
	var most vg.Length
	for i, p := range plots {
		tile := tiles.At(pc, i, 0)
		d := p.DataCanvas(tile)
		room[i] = tile.Max.Y - d.Max.Y
		most = max(most, room[i])
	}
	for i, p := range plots {
		p.Title.Padding += most - room[i]
	}
	return plot.Align([][]*plot.Plot{plots}, tiles, pc)[0], lc
}

// saveFigure draws the panels that have data side by side into
// base.png and base.svg. A panic inside the plotting library is returned
// as an error: a figure is never worth the results already computed.
func saveFigure(base string, outs []*outcome, panels []panel) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot %s: %v", filepath.Base(base), r)
		}
	}()
	plots, yLabels, legend, err := figure(outs, panels)
	if err != nil || len(plots) == 0 {
		return err
	}
	w, h := vg.Length(len(plots))*panelW, panelH
	if legend != nil {
		w += legendW
	}
	png := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))
	svg := vgsvg.New(w, h)
	for _, c := range []draw.Canvas{draw.New(png), draw.New(svg)} {
		cs, lc := layout(c, plots, legend)
		for j, p := range plots {
			p.Draw(cs[j])
			drawYLabel(cs[j], p, yLabels[j])
		}
		if legend != nil {
			legend.Draw(lc)
		}
	}
	if err := writeTo(base+".png", vgimg.PngCanvas{Canvas: png}); err != nil {
		return err
	}
	return writeTo(base+".svg", svg)
}

func writeTo(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// runPanels are the panels of one run.
var runPanels = []panel{
	{title: "upper objective", xLabel: labelEpoch, yLabel: labelF, scale: autoScale, pick: fByEpoch},
	{title: "hypergradient norm", xLabel: labelEpoch, yLabel: labelHG, scale: logarithmic, pick: hgByEpoch},
	{title: "hypergradient error vs HINV", xLabel: labelEpoch, yLabel: labelErr, scale: logarithmic, pick: errByEpoch},
	{title: "accuracy", xLabel: labelEpoch, yLabel: labelAcc, pick: accByEpoch},
}

// plotRun draws one run's curves into dir/run.{png,svg}.
func plotRun(dir string, out *outcome) error {
	return saveFigure(filepath.Join(dir, "run"), []*outcome{out}, runPanels)
}

// The panels of compare: the paper's Figure 1 (objective by epoch and by
// time, and the hypergradient error when measured), and the progress of
// the hypergradient norm, the true one (by epoch and time, where the
// problem has it) and the accuracy. Time is the solver's
// (history.csv's solver_seconds): the wall clock less the measuring.
var (
	figure1Panels = []panel{
		{title: "upper objective by epoch", xLabel: labelEpoch, yLabel: labelF, scale: autoScale, pick: fByEpoch},
		{title: "upper objective by time", xLabel: labelSeconds, yLabel: labelF, scale: autoScale, pick: fBySeconds},
		{title: "hypergradient error vs HINV", xLabel: labelEpoch, yLabel: labelErr, scale: logarithmic, pick: errByEpoch},
	}
	progressPanels = []panel{
		{title: "hypergradient norm", xLabel: labelEpoch, yLabel: labelHG, scale: logarithmic, pick: hgByEpoch},
		{title: "true hypergradient norm by epoch", xLabel: labelEpoch, yLabel: labelTrue, scale: logarithmic, pick: trueByEpoch},
		{title: "true hypergradient norm by time", xLabel: labelSeconds, yLabel: labelTrue, scale: logarithmic, pick: trueBySeconds},
		{title: "accuracy", xLabel: labelEpoch, yLabel: labelAcc, pick: accByEpoch},
	}
)

// plotCompare draws the paper's Figure 1 panels for several estimators
// into dir/figure1.{png,svg}, and the hypergradient norms and accuracy
// into dir/progress.{png,svg}.
func plotCompare(dir string, outs []*outcome) error {
	if err := saveFigure(filepath.Join(dir, "figure1"), outs, figure1Panels); err != nil {
		return err
	}
	return saveFigure(filepath.Join(dir, "progress"), outs, progressPanels)
}
