package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/problems"
)

// checkpointName is the checkpoint's file in -checkpoint's directory.
const checkpointName = "checkpoint.rhgd"

// defaultCheckpointEvery is -checkpoint-every's default.
const defaultCheckpointEvery = 10

// registerCheckpoint declares rhgd run's -checkpoint and
// -checkpoint-every.
func (o *runFlags) registerCheckpoint(fs *flag.FlagSet) {
	fs.StringVar(&o.checkpoint, "checkpoint", "", "directory of the run's checkpoint ("+checkpointName+"), written every -checkpoint-every epochs and on SIGTERM or Ctrl-C; a run started with a checkpoint there resumes it")
	fs.IntVar(&o.checkpointEvery, "checkpoint-every", defaultCheckpointEvery, "epochs between checkpoints (≥ 1), with -checkpoint")
}

// checkCheckpoint validates the checkpoint flags.
func (o *runFlags) checkCheckpoint() error {
	switch {
	case o.checkpointEvery < 1:
		return usagef("-checkpoint-every %d: want ≥ 1 (it is %d when left out)", o.checkpointEvery, defaultCheckpointEvery)
	case o.given("checkpoint-every") && o.checkpoint == "":
		return usagef("-checkpoint-every is given without -checkpoint")
	}
	return nil
}

// problemDesc describes the instance the command line builds, for the
// checkpoint: a run resumes only the checkpoint of the same problem, with
// the same problem flags, seed, data file, retractions and measurements
// (the solver compares its settings and the problem's f itself).
func (o *runFlags) problemDesc(spec *problems.Spec, in *problems.Instance) string {
	pairs := []keyval.Pair{{Key: "problem", Value: spec.Name}}
	pf := o.problemFlags()
	for _, k := range slices.Sorted(maps.Keys(pf)) {
		pairs = append(pairs, keyval.Pair{Key: k, Value: pf[k]})
	}
	pairs = append(pairs, keyval.Pair{Key: "seed", Value: strconv.FormatUint(o.seed, 10)},
		keyval.Pair{Key: "data", Value: o.data},
		keyval.Pair{Key: "retr_x", Value: retractionName(in.Problem.Mx)},
		keyval.Pair{Key: "retr_y", Value: retractionName(in.Problem.My)},
		keyval.Pair{Key: "hinv_error", Value: strconv.FormatBool(o.hinvError)})
	return keyval.Join(pairs)
}

// savedHistory is the history's part of a checkpoint.
type savedHistory struct {
	Rows     []epochRow
	Overhead time.Duration
}

// marshal returns the history for a checkpoint (solver.CheckpointFile's
// App).
func (h *history) marshal() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(savedHistory{h.rows, h.overhead}); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return b.Bytes(), nil
}

// restore sets the history to a checkpoint's.
func (h *history) restore(b []byte) error {
	var s savedHistory
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("the checkpoint's history: %w", err)
	}
	h.rows, h.overhead = s.Rows, s.Overhead
	return nil
}

// resume restores the job's checkpoint when its file exists, and says so
// on stderr; a checkpoint of another run is an error naming what differs.
func (j *job) resume() error {
	if err := os.MkdirAll(filepath.Dir(j.ck.Path), 0o755); err != nil {
		return err
	}
	app, err := j.ck.Load(j.r)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return asUsage(fmt.Errorf("%w (remove it to start afresh)", err))
	}
	if err := j.h.restore(app); err != nil {
		return fmt.Errorf("%s: %w", j.ck.Path, err)
	}
	j.resumed = true
	fmt.Fprintf(stderr, "rhgd: note: resuming %s after epoch %d of %d\n", j.ck.Path, j.r.Epoch(), j.set.Epochs)
	return nil
}

// errTerminated signifies a run stopped by SIGTERM.
var errTerminated = errors.New("terminated")

// stopSignals returns a context cancelled by Ctrl-C (SIGINT) or SIGTERM,
// the error that names the signal received (nil while none has come), and
// the function that stops listening.
func stopSignals() (context.Context, func() error, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var mu sync.Mutex
	var got error
	go func() {
		select {
		case s := <-ch:
			mu.Lock()
			got = errInterrupted
			if s == syscall.SIGTERM {
				got = errTerminated
			}
			mu.Unlock()
			cancel()
		case <-ctx.Done():
		}
	}()
	which := func() error {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	return ctx, which, func() { signal.Stop(ch); cancel() }
}
