package bench

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/rhgd/rhgd/blas"
)

// allThreadsPeer is rhgd's own call with the one-thread windows off: every
// native call on all of the library's threads (blas.AllThreads). Its ratio
// to rhgd is what the windows gain (above 1) or cost (below 1) on this
// machine, in this run.
const allThreadsPeer = "rhgd.allthreads"

// goPeer reports whether name is a variant of rhgd's call that the
// harness runs in its own process rather than in bench/peers.py.
func goPeer(name string) bool { return strings.HasPrefix(name, "rhgd.") }

// onlyGoPeers reports whether every peer of names runs in process.
func onlyGoPeers(names []string) bool {
	return !slices.ContainsFunc(names, func(n string) bool { return !goPeer(n) })
}

// withPeerTable runs f under the table of the Go peer name.
func withPeerTable(name string, f func() error) error {
	if name != allThreadsPeer {
		return errors.New("bench: unknown Go peer " + name)
	}
	defer blas.UseTable(blas.AllThreads())()
	return f()
}

// loadPeer loads peer name on c's inputs and returns its output's
// fingerprint: in process for a Go peer, else through p.
func loadPeer(p *Peer, name string, prep *Prepared, c *Case) (float64, error) {
	if !goPeer(name) {
		if p == nil {
			return 0, errors.New("bench: no Python peer process")
		}
		return p.Load(name, name, prep.Files, c.Params)
	}
	if err := withPeerTable(name, prep.Run); err != nil {
		return 0, err
	}
	if prep.Output == nil {
		return 0, nil
	}
	return fingerprint(prep.Output()), nil
}

// timePeer times peer name's call for at least minTime.
func timePeer(p *Peer, name string, prep *Prepared, minTime time.Duration) (float64, error) {
	if !goPeer(name) {
		return p.Time(name, minTime)
	}
	var t float64
	err := withPeerTable(name, func() (err error) {
		t, err = measure(prep.Run, minTime)
		return err
	})
	return t, err
}
