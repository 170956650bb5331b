package main

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// fakeRuns returns n runs of the given epochs with rows from row(i, k):
// the shapes of the problems' curves, without running them.
func fakeRuns(n, epochs int, row func(i, k int) epochRow) []*outcome {
	var outs []*outcome
	for i := range n {
		h := &history{}
		for k := range epochs {
			r := row(i, k)
			r.Epoch, r.Seconds = k, 0.0065*float64(k+1)*float64(i+1)
			r.SolverSeconds = r.Seconds
			h.rows = append(h.rows, r)
		}
		outs = append(outs, &outcome{name: []string{"hinv", "cg", "ns", "ad"}[i%4], hist: h})
	}
	return outs
}

// curves are the shapes of the problems' histories that the plots
// failed on: a negative objective over 200 epochs (synthetic), a positive
// one over two decades (hyperrep), a hypergradient norm within a decade
// (domain adaptation, whose panel had no tick label), errors over ten
// decades, an accuracy; and a single epoch.
var curves = map[string]struct {
	epochs int
	row    func(i, k int) epochRow
}{
	"synthetic": {200, func(i, k int) epochRow {
		return epochRow{F: -0.019 - 0.73*(1-math.Exp(-float64(k)/(40+5*float64(i)))), HyperGradNorm: 0.17 * math.Exp(-float64(k)/100),
			HyperGradErr: []float64{0, 1e-10, 0.1, 0.5}[i] * (1 + float64(k)/200), Accuracy: math.NaN()}
	}},
	"hyperrep": {100, func(i, k int) epochRow {
		return epochRow{F: 2.8 * math.Exp(-float64(k)/(20+float64(i))), HyperGradNorm: 0.1 + 1/float64(k+1),
			HyperGradErr: math.NaN(), Accuracy: 60 + 30*(1-math.Exp(-float64(k)/10))}
	}},
	"domainadapt": {100, func(i, k int) epochRow {
		return epochRow{F: 0.5 - 0.001*float64(k), HyperGradNorm: 0.082 + 0.1*math.Exp(-float64(k)/30)*(1+0.1*float64(i)),
			HyperGradErr: 3e-11 * (1 + float64(i)), Accuracy: 90.1 + 0.02*float64(k)}
	}},
	"converged": {150, func(i, k int) epochRow {
		return epochRow{F: 0.4786 + math.Exp(-float64(k)), HyperGradNorm: 0.2 * math.Exp(-float64(k)/4), HyperGradErr: 1e-11 * math.Exp(float64(k)/10), Accuracy: math.NaN()}
	}},
	"one epoch": {1, func(i, k int) epochRow {
		return epochRow{F: -0.03, HyperGradNorm: 0.17, HyperGradErr: 4e-11, Accuracy: 50}
	}},
}

var (
	fixedRE = regexp.MustCompile(`^−?\d+(\.(\d+))?$`)
	powerRE = regexp.MustCompile(`^(−?\d+(\.\d+)?×)?10\^\{−?\d+\}$`)
)

// requireTicks requires at least three labelled ticks within the axis's
// range, all in one format: fixed-point with the same decimals, or
// m×10^{k}.
func requireTicks(t *testing.T, a *plot.Axis, what string) {
	t.Helper()
	var labels []string
	eps := 1e-9 * (a.Max - a.Min)
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" && tk.Value >= a.Min-eps && tk.Value <= a.Max+eps {
			labels = append(labels, tk.Label)
		}
	}
	require.GreaterOrEqual(t, len(labels), 3, "%s: %v on [%g, %g]", what, labels, a.Min, a.Max)
	decimals := map[int]bool{}
	fixed, power := 0, 0
	for _, l := range labels {
		if m := fixedRE.FindStringSubmatch(l); m != nil {
			fixed++
			decimals[len(m[2])] = true
		} else if powerRE.MatchString(l) {
			power++
		}
	}
	require.True(t, fixed == len(labels) && len(decimals) == 1 || power == len(labels), "%s: labels in more than one format: %q", what, labels)
}

// TestPanelTicks: every panel of rhgd run and compare has at least three
// labelled ticks on each axis, in one number format.
func TestPanelTicks(t *testing.T) {
	for name, c := range curves {
		for _, n := range []int{1, 4} {
			outs := fakeRuns(n, c.epochs, c.row)
			for _, panels := range [][]panel{runPanels, figure1Panels, progressPanels} {
				for _, pn := range panels {
					p, err := pn.draw(outs)
					require.NoError(t, err)
					if p == nil {
						continue
					}
					requireTicks(t, &p.X, name+": "+pn.title+": x")
					requireTicks(t, &p.Y, name+": "+pn.title+": y")
				}
			}
		}
	}
}

// TestObjectiveScale: an objective that is positive and falls over more
// than a decade (hyperrep's) gets a log axis; a negative one (synthetic's)
// a linear one.
func TestObjectiveScale(t *testing.T) {
	for name, wantLog := range map[string]bool{"hyperrep": true, "synthetic": false} {
		c := curves[name]
		p, err := figure1Panels[0].draw(fakeRuns(4, c.epochs, c.row))
		require.NoError(t, err)
		_, isLog := p.Y.Scale.(plot.LogScale)
		require.Equal(t, wantLog, isLog, name)
	}
}

// TestFigureLayout: the legend of a figure stands in its own column,
// clear of every panel's data, and the panels' titles are in line (their
// tiles end at the same height); a single run has no legend.
func TestFigureLayout(t *testing.T) {
	for name, c := range curves {
		outs := fakeRuns(4, c.epochs, c.row)
		for _, panels := range [][]panel{figure1Panels, progressPanels, runPanels} {
			plots, _, legend, err := figure(outs, panels)
			require.NoError(t, err)
			require.NotNil(t, legend)
			w := vg.Length(len(plots))*panelW + legendW
			cv := draw.New(vgimg.New(w, panelH))
			cs, lc := layout(cv, plots, legend)
			lr := legend.Rectangle(lc)
			for i, p := range plots {
				d := p.DataCanvas(cs[i])
				overlap := lr.Min.X < d.Max.X && d.Min.X < lr.Max.X && lr.Min.Y < d.Max.Y && d.Min.Y < lr.Max.Y
				require.False(t, overlap, "%s: the legend %v covers panel %d's data %v", name, lr, i, d.Rectangle)
				require.InDelta(t, float64(cs[0].Max.Y), float64(cs[i].Max.Y), 1e-9, "%s: panel %d's title out of line", name, i)
			}
		}
		_, _, legend, err := figure(outs[:1], runPanels)
		require.NoError(t, err)
		require.Nil(t, legend)
	}
}

// TestLabelsRender: every label and tick label is drawn with glyphs the
// plots' font has, and none shows the script syntax (f(x_k, y_k+1) was
// printed as it was written).
func TestLabelsRender(t *testing.T) {
	face := font.DefaultCache.Lookup(plot.DefaultFont, 10)
	var buf sfnt.Buffer
	check := func(what, text string) {
		for _, r := range runs(text) {
			require.NotContains(t, r.s, "_", "%s: %q", what, text)
			require.NotContains(t, r.s, "^", "%s: %q", what, text)
			require.NotContains(t, r.s, "{", "%s: %q", what, text)
			for _, c := range r.s {
				i, err := face.Face.GlyphIndex(&buf, c)
				require.NoError(t, err)
				require.NotZero(t, i, "%s: the font has no %q (in %q)", what, c, text)
			}
		}
	}
	for _, panels := range [][]panel{runPanels, figure1Panels, progressPanels} {
		for _, pn := range panels {
			check("title", pn.title)
			check("x label", pn.xLabel)
			check("y label", pn.yLabel)
		}
	}
	for _, r := range [][2]float64{{1e-15, 1}, {3e-11, 7e-1}, {0.02, 5}, {-0.8, 0}, {0, 200}, {1e5, 1e9}} {
		ticks := logTicks{}.Ticks(r[0], r[1])
		if r[0] <= 0 {
			ticks = linearTicks{}.Ticks(r[0], r[1])
		}
		for _, tk := range ticks {
			check("tick", tk.Label)
		}
	}
	require.Equal(t, []textRun{{s: "f(x"}, {s: "k", shift: subShift}, {s: ", y"}, {s: "k+1", shift: subShift}, {s: ")"}}, runs("f(x_k, y_{k+1})"))
	require.Equal(t, []textRun{{s: "2×10"}, {s: "−5", shift: supShift}}, runs("2×10^{−5}"))
	require.True(t, strings.HasPrefix(powerLabelOf(2e-5), "2×10^{−5}"))
}

func powerLabelOf(v float64) string { return labelled([]float64{v, 1e9})[0].Label }
