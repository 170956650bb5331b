package grassmann

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rhgd/rhgd/stiefel"
)

// Retraction names a retraction of Gr(n, p).
type Retraction int

// The retractions; see the package documentation.
const (
	// QR is qf(X + tU) with R's diagonal positive: stiefel's QR
	// retraction, the default there too.
	QR Retraction = iota
	// Polar is the polar factor of X + tU: stiefel's polar retraction.
	Polar
	// Exponential is Exp_X(tU).
	Exponential
)

// retractionNames are the names String writes and ParseRetraction reads,
// stiefel's names for the same maps.
var retractionNames = [...]string{QR: "qr", Polar: "polar", Exponential: "exp"}

// String returns the retraction's name: qr, polar or exp.
func (r Retraction) String() string {
	if r >= 0 && int(r) < len(retractionNames) {
		return retractionNames[r]
	}
	return fmt.Sprintf("Retraction(%d)", int(r))
}

// ParseRetraction returns the retraction a name gives (case-insensitive):
// qr, polar, or exp (also exponential); the error lists the names.
func ParseRetraction(name string) (Retraction, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "exponential" {
		return Exponential, nil
	}
	for r, s := range retractionNames {
		if s == n {
			return Retraction(r), nil
		}
	}
	return 0, fmt.Errorf("grassmann: unknown retraction %q (want qr, polar or exp)", name)
}

// RetractionNames returns the retractions' names, qr, polar and exp, the
// first the default (the zero value), as manifold/spec's table lists them.
func RetractionNames() []string { return slices.Clone(retractionNames[:]) }

// Retractions returns the retractions' names, qr, polar and exp, as
// SetRetraction reads them (solver.RetractionChooser).
func (g *Grassmann) Retractions() []string { return RetractionNames() }

// RetractionName returns the name of Retraction, the retraction Retract
// uses.
func (g *Grassmann) RetractionName() string { return g.Retraction.String() }

// SetRetraction sets Retraction to the one ParseRetraction reads in name;
// on an error it leaves Retraction as it was.
func (g *Grassmann) SetRetraction(name string) error {
	r, err := ParseRetraction(name)
	if err != nil {
		return err
	}
	g.Retraction = r
	return nil
}

// Retract sets dst = R_X(tU) with the retraction g.Retraction. dst may be
// x or u. It returns an error for non-finite input, and for a U so far
// from horizontal that X + tU has dependent columns.
func (g *Grassmann) Retract(dst, x, u []float64, t float64) error {
	g.check(dst, x, u)
	switch g.Retraction {
	case QR, Polar:
		g.st.Retraction = stiefel.QR
		if g.Retraction == Polar {
			g.st.Retraction = stiefel.Polar
		}
		if err := g.st.Retract(dst, x, u, t); err != nil {
			return fmt.Errorf("grassmann: %w", err)
		}
		return nil
	case Exponential:
		return g.Exp(dst, x, u, t)
	}
	panic(fmt.Sprintf("grassmann: unknown retraction %v", g.Retraction))
}
