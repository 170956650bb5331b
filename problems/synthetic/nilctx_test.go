package synthetic_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// TestNilContext: Run and Minimize refuse a nil context with an error
// wrapping numerr.ErrInvalid, before any work; they used to take nil as
// "never cancelled".
func TestNilContext(t *testing.T) {
	p, _, w0, m0 := setup(t, 20, 5, 2)
	var nilCtx context.Context
	if _, err := solver.Minimize(nilCtx, p.Bilevel(), w0, m0, nil); !errors.Is(err, numerr.ErrInvalid) {
		t.Errorf("Minimize(nil ctx): %v, want numerr.ErrInvalid", err)
	}
	s := synthetic.Paper.Settings
	s.Epochs = 2
	r, err := solver.New(p.Bilevel(), &s)
	require.NoError(t, err)
	if _, err := r.Run(nilCtx, w0, m0); !errors.Is(err, numerr.ErrInvalid) {
		t.Errorf("Run(nil ctx): %v, want numerr.ErrInvalid", err)
	}
	if res, err := r.Run(context.Background(), w0, m0); err != nil || res.Stats.Epochs != 2 {
		t.Errorf("Run(Background): %v after %v epochs, want 2 and no error", err, res)
	}
}
