//go:build cgo

package main

/*
#include "rhgd.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/rhgd/rhgd/solver"
)

// ckptProxy is a solver's Settings.Checkpoint, set when the solver is
// made: the file rhgd_solver_set_checkpoint chose, or none.
type ckptProxy struct{ file *solver.CheckpointFile }

// Checkpoint implements solver.Checkpointer.
func (c *ckptProxy) Checkpoint(r *solver.RHGD, final bool) error {
	if c.file == nil {
		return nil
	}
	return c.file.Checkpoint(r, final)
}

// marshal returns the history for a checkpoint: its column count, its
// row count, then the rows' doubles, little-endian.
func (r *recorder) marshal() ([]byte, error) {
	b := make([]byte, 0, 16+8*histCols*len(r.history))
	b = binary.LittleEndian.AppendUint64(b, uint64(histCols))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(r.history)))
	for i := range r.history {
		for _, v := range r.history[i] {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b, nil
}

// unmarshalHistory reads marshal's history; a library with more columns
// fills the new ones with NaN.
func unmarshalHistory(b []byte) ([]histRow, error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("the checkpoint's history: %d bytes, want at least 16", len(b))
	}
	cols, n := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	b = b[16:]
	switch {
	case cols < 1 || cols > uint64(histCols):
		return nil, fmt.Errorf("the checkpoint's history has %d columns, this library %d", cols, histCols)
	case n > uint64(len(b))/(8*cols) || uint64(len(b)) != 8*cols*n:
		return nil, fmt.Errorf("the checkpoint's history: %d bytes for %d rows of %d columns", len(b), n, cols)
	}
	rows := make([]histRow, n)
	for i := range rows {
		for j := range rows[i] {
			rows[i][j] = math.NaN()
			if uint64(j) < cols {
				rows[i][j] = math.Float64frombits(binary.LittleEndian.Uint64(b))
				b = b[8:]
			}
		}
	}
	return rows, nil
}

//export rhgdgo_solver_set_checkpoint
func rhgdgo_solver_set_checkpoint(h C.int64_t, path *C.char, every C.int64_t) C.int {
	return guard(func() error {
		s, err := claim[*solverObj](int64(h), "solver")
		if err != nil {
			return err
		}
		defer s.release()
		if path == nil || C.GoString(path) == "" {
			s.ck.file = nil
			return nil
		}
		p := C.GoString(path)
		if every < 1 {
			return argf("%v = %d: want the epochs between checkpoints, >= 1", argTerm("every"), int64(every))
		}
		if fi, err := os.Stat(filepath.Dir(p)); err != nil || !fi.IsDir() {
			return argf("path = %q: its directory %q does not exist", p, filepath.Dir(p))
		}
		s.ck.file = &solver.CheckpointFile{Path: p, Every: int(every), Problem: s.prob.spec, App: s.rec.marshal}
		return nil
	})
}

//export rhgdgo_solver_resume
func rhgdgo_solver_resume(h C.int64_t, path *C.char, fn C.rhgd_epoch_fn, user C.uintptr_t) C.int {
	return guard(func() error {
		if path == nil {
			return argf("path is %v", termNULL)
		}
		s, err := lookup[*solverObj](&handles, int64(h), "solver")
		if err != nil {
			return err
		}
		release, err := s.acquireBoth()
		if err != nil {
			return err
		}
		defer release()
		p := C.GoString(path)
		app, err := (&solver.CheckpointFile{Path: p, Problem: s.prob.spec}).Load(s.r)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return argf("checkpoint %q: no such file", p)
		case err != nil && errors.Is(err, solver.ErrCheckpoint):
			return err
		case err != nil: // unreadable
			return argf("checkpoint: %v", err)
		}
		rows, err := unmarshalHistory(app)
		if err != nil {
			return argf("checkpoint %q: %v", p, err)
		}
		return s.runWith(fn, user, rows, s.r.Resume)
	})
}
