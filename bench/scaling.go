package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Scaling is the fitted cost of one operation against its size.
type Scaling struct {
	Group, Op string
	FlopCount string
	// Expected is the exponent of the flop count in N, Fitted the
	// least-squares slope of log time against log N over the sizes From
	// and up (the smallest size is left out when there are three or more:
	// call overhead dominates it).
	Expected, Fitted float64
	From, To         float64
}

// scalings fits every operation measured at two sizes or more.
func scalings(res []Result) []Scaling {
	var out []Scaling
	type key struct{ g, op string }
	var keys []key
	for _, r := range res {
		k := key{r.Case.Group, r.Case.Op}
		if k.g != stagesGroup && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		var ns, ts []float64
		var c *Case
		for _, r := range res {
			if r.Case.Group == k.g && r.Case.Op == k.op && r.Err == "" {
				ns, ts, c = append(ns, r.Case.N), append(ts, r.Median()), r.Case
			}
		}
		if len(ns) < 2 {
			continue
		}
		if len(ns) >= 3 {
			i := slices.Index(ns, slices.Min(ns))
			ns, ts = slices.Delete(ns, i, i+1), slices.Delete(ts, i, i+1)
		}
		out = append(out, Scaling{Group: k.g, Op: k.op, FlopCount: c.FlopCount, Expected: c.Exponent,
			Fitted: fitExponent(ns, ts), From: slices.Min(ns), To: slices.Max(ns)})
	}
	return out
}

// scalingVar names what N is in each group.
var scalingVar = map[string]string{"stiefel": "n·p²", "epoch": "d", "batch": "b·n³"}

func writeScaling(b *strings.Builder, ss []Scaling) {
	if len(ss) == 0 {
		return
	}
	b.WriteString("## Scaling\n\nThe exponent α of time ∝ N^α fitted by least squares on log-log axes (N is n, or n·p² for Stiefel, d for epochs and b·n³ for batches), " +
		"beside the exponent of the operation's flop count. Below the flop count's exponent, fixed costs still weigh at the smaller sizes.\n\n" +
		"| group | op | flop count | exponent | fitted | over N |\n|---|---|---|---:|---:|---|\n")
	for _, s := range ss {
		fmt.Fprintf(b, "| %s | %s | %s | %g | %.2f | %s = %g … %g |\n", s.Group, s.Op, s.FlopCount, s.Expected, s.Fitted,
			cmpOr(scalingVar[s.Group], "n"), s.From, s.To)
	}
	b.WriteString("\n")
}

// scalingSeries is op's (N, median time) in group g, by N: not in case
// order, since the batch group lists b = 1000 and b = 10000 per n, whose
// N = b·n³ interleave.
func scalingSeries(res []Result, g, op string) plotter.XYs {
	var xys plotter.XYs
	for _, r := range res {
		if t := r.Median(); r.Case.Group == g && r.Case.Op == op && t > 0 && !math.IsInf(t, 0) {
			xys = append(xys, plotter.XY{X: r.Case.N, Y: t})
		}
	}
	slices.SortFunc(xys, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	return xys
}

// plotScaling draws time against N on log-log axes, a line per op of the
// group, into path (SVG); false when the group has fewer than two sizes.
func plotScaling(path, g string, res []Result) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil { // a figure is never worth the results
			ok, err = false, fmt.Errorf("plot %s: %v", path, r)
		}
	}()
	p := plot.New()
	p.Title.Text = cmpOr(groupTitles[g], g)
	p.X.Label.Text, p.Y.Label.Text = cmpOr(scalingVar[g], "n"), "seconds per call (rhgd)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	var ops []string
	for _, r := range res {
		if r.Case.Group == g && !slices.Contains(ops, r.Case.Op) {
			ops = append(ops, r.Case.Op)
		}
	}
	for i, op := range ops {
		xys := scalingSeries(res, g, op)
		if len(xys) < 2 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return false, err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(op, l, pts)
		ok = true
	}
	if !ok {
		return false, nil
	}
	p.Add(plotter.NewGrid())
	return true, p.Save(14*vg.Centimeter, 10*vg.Centimeter, path)
}
