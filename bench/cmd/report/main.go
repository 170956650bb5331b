// Command report runs rhgd's benchmark harness (package bench) and writes
// a dated Markdown report with tables and plots:
//
//	go run ./bench/cmd/report            # `make bench`: every size, with peers
//	go run ./bench/cmd/report -quick     # `make bench-quick`: small sizes, once
//
// It also runs bench/torch_problems.py (rhgd.torch on a user's own
// problems against a hand-written loop, the authors' port and an eigh
// model), whose rows join the targets table; it needs the shared library
// (-lib, make lib) and PyTorch. -run 'torch/problems' runs it alone.
//
// The peers run in /usr/bin/python3 (bench/peers.py) with numpy, scipy,
// POT and PyTorch; every library is pinned to the same thread count.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/rhgd/rhgd/bench"
	"github.com/rhgd/rhgd/blas"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run() error {
	quick := flag.Bool("quick", false, "small sizes, one round: checks that every case and peer runs")
	out := flag.String("out", "bench/results", "directory under which the dated report directory is made")
	threads := flag.Int("threads", 0, "thread count of every library (0: the physical cores)")
	python := flag.String("python", "/usr/bin/python3", "the Python that runs the peers")
	script := flag.String("peers", "bench/peers.py", "the peer worker script")
	noPeers := flag.Bool("no-peers", false, "time rhgd alone")
	match := flag.String("run", "", "only the cases whose name (group/op/size) matches this regular expression")
	rounds := flag.Int("rounds", 0, "alternating rounds per case (0: 5, or 1 with -quick)")
	replot := flag.String("replot", "", "redraw the scaling plots of the finished run in this directory from its results.json, timing nothing")
	torchProblems := flag.Bool("torch", true, "also run bench/torch_problems.py (a user's own problems in PyTorch) with the library -lib")
	lib := flag.String("lib", "build/librhgd.so", "the shared library bench/torch_problems.py loads (make lib)")
	flag.Parse()
	if *replot != "" {
		wrote, err := bench.Replot(*replot)
		for _, w := range wrote {
			fmt.Println("wrote", w)
		}
		return err
	}

	cfg, err := blas.ConfigFromEnv(blas.Config{Threads: *threads})
	if err != nil {
		return err
	}
	if cfg.Threads == 0 {
		cfg.Threads = blas.PhysicalCores()
	}
	if err := blas.Init(cfg); err != nil {
		return err
	}
	c := bench.Config{Sizes: bench.FullSizes(), Log: os.Stderr,
		Timing: bench.Timing{Rounds: 5, MinRounds: 3, MinTime: 200 * time.Millisecond, Budget: 20 * time.Second}}
	name := time.Now().UTC().Format("2006-01-02")
	if *quick {
		c.Sizes = bench.QuickSizes()
		c.Timing = bench.Timing{Rounds: 1, MinRounds: 1}
		name += "-quick"
	}
	if *rounds > 0 {
		c.Timing.Rounds = *rounds
	}
	if *match != "" {
		re, err := regexp.Compile(*match)
		if err != nil {
			return err
		}
		c.Match = re.MatchString
	}
	dir := filepath.Join(*out, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if c.Dir, err = os.MkdirTemp("", "rhgd-bench-"); err != nil {
		return err
	}
	defer os.RemoveAll(c.Dir)

	info := bench.NewRunInfo(cfg.Threads)
	if !*noPeers {
		p, err := bench.StartPeer(*python, *script, cfg.Threads, blas.CurrentInfo().Core)
		if err != nil {
			return fmt.Errorf("%w (-no-peers times rhgd alone)", err)
		}
		defer p.Close()
		c.Peer = p
		info.Peer = &p.Hello
	}
	start := time.Now()
	res := bench.Run(c)
	info.Command = commandLine()
	info.Crossovers = bench.MeasureCrossovers(*quick)
	// The torch problems run with every case, or alone under -run 'torch/problems'.
	if *torchProblems && !*noPeers && (c.Match == nil || c.Match("torch/problems")) {
		info.Torch = bench.RunTorchProblems(*python, filepath.Join(filepath.Dir(*script), "torch_problems.py"), *lib, dir, *quick)
		if info.Torch.Err != "" {
			fmt.Fprintln(os.Stderr, "report: torch problems:", info.Torch.Err)
		}
	}
	info.Elapsed = time.Since(start)
	path, err := bench.WriteReport(dir, info, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report: %s (%s)\n", path, time.Since(start).Round(time.Second))
	if n := bench.Failures(res); n > 0 {
		return fmt.Errorf("%d cases or peers failed (see the report)", n)
	}
	if info.Torch != nil && info.Torch.Err != "" {
		return fmt.Errorf("bench/torch_problems.py failed (see the report)")
	}
	return nil
}

func commandLine() string {
	s := "go run ./bench/cmd/report"
	for _, a := range os.Args[1:] {
		s += " " + a
	}
	return s
}
