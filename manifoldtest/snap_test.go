package manifoldtest_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/stiefel"
)

// fatalRecorder is a testing.TB whose Fatal and Fatalf record the message
// and stop the check by panicking with the recorder.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatal(args ...any) { f.msg = fmt.Sprint(args...); panic(f) }

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// snapFailure runs Snap and returns the message it stopped with, "" if
// it passed.
func snapFailure(m manifoldtest.Snapper, x, x32 []float64) (msg string) {
	r := &fatalRecorder{}
	defer func() {
		if p := recover(); p != nil {
			if p != r {
				panic(p)
			}
			msg = r.msg
		}
	}()
	manifoldtest.Snap(r, m, x, x32)
	return ""
}

// silentSnap is stiefel snapping without a note.
type silentSnap struct{ *stiefel.Stiefel }

func (s silentSnap) SnapPoint(dst, x []float64) (string, error) {
	_, err := s.Stiefel.SnapPoint(dst, x)
	return "", err
}

// TestSnap: stiefel's SnapPoint passes; the check fails a snap without a
// note, and a "float32" point that is a point already.
func TestSnap(t *testing.T) {
	s := stiefel.New(8, 3)
	x := make([]float64, 24)
	s.RandPoint(x, rand.New(rand.NewPCG(1, 1)))
	x32 := f32test.Round(x)
	got, note := manifoldtest.Snap(t, s, x, x32)
	require.NotEmpty(t, note)
	require.NoError(t, s.CheckPoint(got))
	require.Contains(t, snapFailure(silentSnap{s}, x, x32), "without a note")
	require.Contains(t, snapFailure(s, x, x), "does not exercise the projection")
}
