package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
)

// startMain starts this binary as rhgd with args in dir.
func startMain(t *testing.T, dir, args string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RHGD_TEST_AS_MAIN=1", "RHGD_TEST_ARGS="+args)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	return cmd, &errb
}

// waitFile waits up to a minute for path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		require.True(t, time.Now().Before(deadline), "no %s after a minute", path)
		time.Sleep(2 * time.Millisecond)
	}
}

// readSummary reads a run's summary.json.
func readSummary(t *testing.T, dir string) summary {
	t.Helper()
	var s summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// sameRunOutputs requires two runs' outputs to be the same but for their
// times: iterates.npz byte for byte, every history column but the
// seconds, and the summary's results and counts.
func sameRunOutputs(t *testing.T, want, got string) {
	t.Helper()
	a, err := os.ReadFile(filepath.Join(want, "iterates.npz"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(got, "iterates.npz"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(a, b), "iterates.npz differ")
	ha, ra := readHistory(t, filepath.Join(want, "history.csv"))
	hb, rb := readHistory(t, filepath.Join(got, "history.csv"))
	require.Equal(t, ha, hb)
	require.Len(t, rb, len(ra))
	for i := range ra {
		for j, name := range ha {
			if name != "seconds" && name != "solver_seconds" {
				require.Equal(t, ra[i][j], rb[i][j], "row %d, %s", i, name)
			}
		}
	}
	sa, sb := readSummary(t, want), readSummary(t, got)
	require.Equal(t, sa.Status, sb.Status)
	require.Equal(t, sa.Epochs, sb.Epochs)
	require.Equal(t, *sa.Objective, *sb.Objective)
	require.Equal(t, *sa.BestObjective, *sb.BestObjective)
	require.Equal(t, *sa.HyperGradNorm, *sb.HyperGradNorm)
	require.Equal(t, sa.Oracles, sb.Oracles)
	require.Equal(t, sa.Settings, sb.Settings)
}

// TestRunCheckpointKill: rhgd run -checkpoint killed with SIGKILL at a
// random point after its first checkpoint, then run again with the same
// command line, resumes (saying so) and writes the outputs of the
// uninterrupted run: the same iterates.npz, history (but the times) and
// summary; for CG and for RSHGD with the adaptive preset.
func TestRunCheckpointKill(t *testing.T) {
	rnd := rand.New(rand.NewPCG(29, 2))
	for _, c := range []struct{ flags, every string }{
		{"synthetic -epochs 150", "5"},
		{"hyperrep -n 100 -ntrain 50 -d 20 -k 5 -stochastic -preset adaptive -epochs 800", "50"},
	} {
		flags := c.flags
		t.Run(strings.Fields(flags)[0], func(t *testing.T) {
			dir := t.TempDir()
			want, got, ck := filepath.Join(dir, "want"), filepath.Join(dir, "got"), filepath.Join(dir, "ck")
			require.NoError(t, run(strings.Fields("run "+flags+" -quiet -out "+want), io.Discard))
			args := "run " + flags + " -quiet -out " + got + " -checkpoint " + ck + " -checkpoint-every " + c.every
			cmd, errb := startMain(t, dir, args)
			waitFile(t, filepath.Join(ck, checkpointName))
			time.Sleep(time.Duration(rnd.IntN(100)) * time.Millisecond)
			require.NoError(t, cmd.Process.Kill())
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the run ended before the kill: %s", errb.String())
			require.Contains(t, ee.String(), "killed")
			_, err = os.Stat(filepath.Join(got, "summary.json"))
			require.ErrorIs(t, err, os.ErrNotExist, "the killed run wrote its outputs")

			var note bytes.Buffer
			old := stderr
			stderr = &note
			defer func() { stderr = old }()
			require.NoError(t, run(strings.Fields(args), io.Discard))
			require.Contains(t, note.String(), "rhgd: note: resuming "+filepath.Join(ck, checkpointName)+" after epoch ")
			t.Log(strings.TrimSpace(note.String()))
			sameRunOutputs(t, want, got)
		})
	}
}

// TestRunCheckpointSignals: SIGTERM and Ctrl-C stop a run with
// -checkpoint after its epoch; it writes its checkpoint there, the
// history, the summary (status Cancelled) and the iterates, and exits
// with 143 or 130 and one line naming the checkpoint; the same command
// then resumes after exactly the epochs the summary counts.
func TestRunCheckpointSignals(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		word string
	}{{syscall.SIGTERM, 143, "terminated"}, {syscall.SIGINT, 130, "interrupted"}} {
		t.Run(c.word, func(t *testing.T) {
			dir := t.TempDir()
			args := "run synthetic -epochs 1000000 -runtime 2m -quiet -out out -checkpoint ck -checkpoint-every 1000"
			ckpt := filepath.Join(dir, "ck", checkpointName)
			epochs := 0
			for round := range 2 {
				out := filepath.Join(dir, "out")
				require.NoError(t, os.RemoveAll(out))
				cmd, errb := startMain(t, dir, args)
				// The output directory is made once the signals are
				// handled; the checkpoint comes only at the stop.
				waitFile(t, out)
				time.Sleep(50 * time.Millisecond)
				require.NoError(t, cmd.Process.Signal(c.sig))
				err := cmd.Wait()
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee, errb.String())
				require.Equal(t, c.code, ee.ExitCode(), errb.String())
				msg := errb.String()
				if round == 1 {
					note, rest, ok := strings.Cut(msg, "\n")
					require.True(t, ok, msg)
					require.Contains(t, note, "resuming ck/"+checkpointName+" after epoch ")
					require.Contains(t, note, " after epoch "+strconv.Itoa(epochs)+" of ")
					msg = rest
				}
				require.Equal(t, 1, strings.Count(msg, "\n"), msg)
				require.Contains(t, msg, c.word)
				require.Contains(t, msg, "ck/"+checkpointName)
				_, err = os.Stat(ckpt)
				require.NoError(t, err)
				s := readSummary(t, filepath.Join(dir, "out"))
				require.Equal(t, "Cancelled", s.Status)
				require.Greater(t, s.Epochs, epochs)
				_, rows := readHistory(t, filepath.Join(dir, "out", "history.csv"))
				require.Len(t, rows, s.Epochs)
				z, err := problems.OpenNPZ(filepath.Join(dir, "out", "iterates.npz"))
				require.NoError(t, err)
				require.ElementsMatch(t, []string{"x", "y", "best_x", "best_y"}, z.Names())
				require.NoError(t, z.Close())
				epochs = s.Epochs
			}
		})
	}
}
