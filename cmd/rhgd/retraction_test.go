package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// fixedSPD is a problem's own manifold that embeds SPD but has one
// retraction, as synthetic's float32 lower steps have.
type fixedSPD struct{ *spd.SPD }

func (fixedSPD) String() string        { return "SPD with a fixed retraction" }
func (fixedSPD) Retractions() []string { return nil }

// TestSetRetraction: -retr-x/-retr-y choose through
// solver.RetractionChooser what the type switch on Stiefel and SPD chose,
// with the same errors (the texts are the switch's), and the names the
// help and summary.json show are the same.
func TestSetRetraction(t *testing.T) {
	for _, c := range []struct {
		m                solver.Manifold
		name, err, after string
	}{
		{stiefel.New(4, 2), "", "", "qr"},
		{stiefel.New(4, 2), "polar", "", "polar"},
		{stiefel.New(4, 2), "EXPONENTIAL", "", "exp"},
		{stiefel.New(4, 2), "bogus", `Stiefel retractions are qr, polar, cayley and exp, not "bogus"`, "qr"},
		{spd.New(3), "", "", "second-order"},
		{spd.New(3), "exp", "", "exp"},
		{spd.New(3), "qr", `SPD retractions are second-order and exp, not "qr"`, "second-order"},
		{euclid.New(2, 1), "", "", ""},
		{euclid.New(2, 1), "qr", `the manifold *euclid.Euclidean has one retraction; "qr" cannot be chosen`, ""},
		{fixedSPD{spd.New(2)}, "exp", `the manifold SPD with a fixed retraction has one retraction; "exp" cannot be chosen`, ""},
	} {
		err := setRetraction(c.m, c.name)
		if c.err == "" {
			require.NoError(t, err, "%T %q", c.m, c.name)
		} else {
			require.EqualError(t, err, c.err)
		}
		require.Equal(t, c.after, retractionName(c.m), "%T %q", c.m, c.name)
	}
}

// TestRetractionFlagHelp: the help of -retr-x, a fixed text, lists the
// names the manifolds offer.
func TestRetractionFlagHelp(t *testing.T) {
	var o runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	o.register(fs, &problems.Spec{})
	usage := fs.Lookup("retr-x").Usage
	for _, m := range []solver.Manifold{stiefel.New(3, 2), spd.New(2)} {
		c, ok := solver.AsRetractionChooser(m)
		require.True(t, ok)
		require.Contains(t, usage, strings.Join(c.Retractions(), "|")+" ("+typeName(m)+")")
	}
}

// TestRetractionFixedByProblem: synthetic's float32 lower steps follow
// the second-order retraction, so its lower manifold offers no choice,
// although it embeds SPD.
func TestRetractionFixedByProblem(t *testing.T) {
	_, stderr, code := asMainOut(t, "run synthetic -lower-float32-steps 2 -retr-y exp")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `the manifold SPD with float32 lower steps (lower-float32-steps) has one retraction; "exp" cannot be chosen`)
}
