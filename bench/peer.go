package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// Peer is the Python process (bench/peers.py) that runs the peer calls.
// It is not safe for concurrent use.
type Peer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	// Hello is the worker's self-description: library versions, the BLAS
	// numpy loaded and its thread count, and the ops it can run.
	Hello PeerHello
}

// PeerHello is what the worker reports about itself.
type PeerHello struct {
	Versions     map[string]string `json:"versions"`
	BLAS         []map[string]any  `json:"blas"`
	TorchThreads int               `json:"torch_threads"`
	Ops          []string          `json:"ops"`
}

type peerReply struct {
	Error       string  `json:"error"`
	Fingerprint float64 `json:"fingerprint"`
	Seconds     float64 `json:"seconds"`
	Calls       int     `json:"calls"`
}

// StartPeer starts python on script with every library pinned to threads
// threads and OpenBLAS on the kernel set core (none: its own choice).
func StartPeer(python, script string, threads int, core string) (*Peer, error) {
	cmd := exec.Command(python, script)
	t := strconv.Itoa(threads)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS="+t, "OMP_NUM_THREADS="+t,
		"MKL_NUM_THREADS="+t, "RHGD_BENCH_THREADS="+t)
	if core != "" {
		cmd.Env = append(cmd.Env, "OPENBLAS_CORETYPE="+core)
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the peer %s %s: %w", python, script, err)
	}
	p := &Peer{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	p.out.Buffer(make([]byte, 1<<16), 1<<24)
	if err := p.call(map[string]any{"cmd": "hello"}, &p.Hello); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// call sends one request and decodes the reply into rep.
func (p *Peer) call(req map[string]any, rep any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("bench: peer: %w", err)
	}
	if !p.out.Scan() {
		if err := p.out.Err(); err != nil {
			return fmt.Errorf("bench: peer: %w", err)
		}
		return errors.New("bench: peer: the worker exited")
	}
	line := p.out.Bytes()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return fmt.Errorf("bench: peer: bad reply %q: %w", line, err)
	}
	if e.Error != "" {
		return fmt.Errorf("bench: peer: %s", e.Error)
	}
	return json.Unmarshal(line, rep)
}

// Load prepares op on the inputs files (name → .npy path) under key and
// runs it once; it returns the output's fingerprint.
func (p *Peer) Load(key, op string, files map[string]string, params map[string]any) (float64, error) {
	var r peerReply
	err := p.call(map[string]any{"cmd": "load", "key": key, "op": op, "files": files, "params": params}, &r)
	return r.Fingerprint, err
}

// Time repeats the op loaded under key until minTime has passed and
// returns the mean seconds per call.
func (p *Peer) Time(key string, minTime time.Duration) (float64, error) {
	var r peerReply
	err := p.call(map[string]any{"cmd": "time", "key": key, "min_time": minTime.Seconds()}, &r)
	return r.Seconds, err
}

// Drop forgets every loaded op and its inputs.
func (p *Peer) Drop() error { return p.call(map[string]any{"cmd": "drop"}, &peerReply{}) }

// Close stops the worker.
func (p *Peer) Close() error {
	b, _ := json.Marshal(map[string]any{"cmd": "quit"})
	p.in.Write(append(b, '\n'))
	p.in.Close()
	return p.cmd.Wait()
}
