package main

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws a bar on standard error for runs that take longer than
// a second, when standard error is a terminal and -quiet is off.
type progress struct {
	cur *progressbar.ProgressBar
}

// newProgress returns nil (no bar) when quiet or when standard error is
// not a terminal.
func newProgress(quiet bool) *progress {
	if quiet || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &progress{}
}

// bar returns the per-epoch callback of one run of the given epochs; the
// bar appears once the run has taken a second.
func (p *progress) bar(desc string, epochs int) func(epoch int) {
	start := time.Now()
	return func(epoch int) {
		if p.cur == nil {
			if time.Since(start) < time.Second {
				return
			}
			p.cur = progressbar.NewOptions(epochs, progressbar.OptionSetWriter(os.Stderr),
				progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		p.cur.Set(epoch + 1)
	}
}

// done removes the current bar.
func (p *progress) done() {
	if p != nil && p.cur != nil {
		p.cur.Finish()
		p.cur = nil
	}
}
