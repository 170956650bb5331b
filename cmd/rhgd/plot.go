package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
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
	fBySeconds series = func(r epochRow) (float64, float64) { return r.Seconds, r.F }
	hgByEpoch  series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.HyperGradNorm }
	errByEpoch series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.HyperGradErr }
	accByEpoch series = func(r epochRow) (float64, float64) { return float64(r.Epoch), r.Accuracy }
)

// panel is one plot of one series for several runs.
type panel struct {
	title, xLabel, yLabel string
	log                   bool
	pick                  series
}

// draw returns the panel's plot with one line per run, or nil when no run
// has a point to draw.
func (pn panel) draw(outs []*outcome) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pn.title, pn.xLabel, pn.yLabel
	if pn.log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: 0}
	}
	p.Legend.Top = true
	drawn := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, o := range outs {
		var xys plotter.XYs
		for _, r := range o.hist.rows {
			x, y := pn.pick(r)
			if math.IsNaN(y) || math.IsInf(y, 0) || pn.log && y <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			lo, hi = min(lo, y), max(hi, y)
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(o.name, l)
		drawn++
	}
	if drawn == 0 {
		return nil, nil
	}
	if pn.log && lo == hi { // one value: gonum's padding of a flat range would reach below zero
		p.Y.Min, p.Y.Max = lo/2, hi*2
	}
	p.Add(plotter.NewGrid())
	return p, nil
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
	var plots []*plot.Plot
	for _, pn := range panels {
		p, err := pn.draw(outs)
		if err != nil {
			return err
		}
		if p != nil {
			plots = append(plots, p)
		}
	}
	if len(plots) == 0 {
		return nil
	}
	w, h := vg.Length(len(plots))*11*vg.Centimeter, 9*vg.Centimeter
	png := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))
	svg := vgsvg.New(w, h)
	for _, c := range []draw.Canvas{draw.New(png), draw.New(svg)} {
		tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Centimeter, PadTop: vg.Millimeter * 3,
			PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
		cs := plot.Align([][]*plot.Plot{plots}, tiles, c)
		for j, p := range plots {
			p.Draw(cs[0][j])
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

// plotRun draws one run's curves into dir/run.{png,svg}.
func plotRun(dir string, out *outcome) error {
	return saveFigure(filepath.Join(dir, "run"), []*outcome{out}, []panel{
		{title: "upper objective", xLabel: "epoch", yLabel: "f(x_k, y_k+1)", pick: fByEpoch},
		{title: "hypergradient norm", xLabel: "epoch", yLabel: "‖ĝrad F‖", log: true, pick: hgByEpoch},
		{title: "hypergradient error", xLabel: "epoch", yLabel: "‖ĝ − ĝ_HINV‖ / ‖ĝ_HINV‖", log: true, pick: errByEpoch},
		{title: "accuracy", xLabel: "epoch", yLabel: "%", pick: accByEpoch},
	})
}

// plotCompare draws the paper's Figure 1 panels for several estimators
// into dir/figure1.{png,svg}, and the hypergradient norms and accuracy
// into dir/progress.{png,svg}.
func plotCompare(dir string, outs []*outcome) error {
	if err := saveFigure(filepath.Join(dir, "figure1"), outs, []panel{
		{title: "upper objective by epoch", xLabel: "epoch", yLabel: "f(x_k, y_k+1)", pick: fByEpoch},
		{title: "upper objective by time", xLabel: "seconds", yLabel: "f(x_k, y_k+1)", pick: fBySeconds},
		{title: "hypergradient error", xLabel: "epoch", yLabel: "‖ĝ − ĝ_HINV‖ / ‖ĝ_HINV‖", log: true, pick: errByEpoch},
	}); err != nil {
		return err
	}
	return saveFigure(filepath.Join(dir, "progress"), outs, []panel{
		{title: "hypergradient norm", xLabel: "epoch", yLabel: "‖ĝrad F‖", log: true, pick: hgByEpoch},
		{title: "accuracy", xLabel: "epoch", yLabel: "%", pick: accByEpoch},
	})
}
