package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/tune"
)

// tuneCmd is `rhgd tune`: measure this machine's thread crossovers and
// save them where rhgd reads them (blas.ProfilePath).
func tuneCmd(w io.Writer, args []string) error {
	o := tune.Default
	var quick, dry bool
	var calls, threadList string
	fs, err := parse(w, "tune", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&quick, "quick", false, "measure to n = 1024 with three rounds of 20 ms (about a minute)")
		fs.IntVar(&o.Load, "load", o.Load, "busy threads beside the loaded measurements (0: quiet only, for a machine with no neighbours)")
		fs.IntVar(&o.MaxOrder, "max-order", o.MaxOrder, "largest order measured")
		fs.IntVar(&o.Rounds, "rounds", o.Rounds, "alternations of one thread and all per order")
		fs.DurationVar(&o.MinTime, "min-time", o.MinTime, "each side's time per round")
		fs.StringVar(&calls, "calls", "", "comma-separated call kinds to measure (default: all; the others keep the fallback's)")
		fs.BoolVar(&dry, "dry-run", false, "print the profile without saving it")
		fs.StringVar(&threadList, "threads", "", "comma-separated thread counts to measure, a profile each (default: the present count, "+
			"RHGD_THREADS or the physical cores; a Python process runs OpenBLAS's own count, the logical CPUs on SMT machines)")
	})
	if err != nil || fs == nil {
		return err
	}
	if quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["max-order"] {
			o.MaxOrder = tune.Quick.MaxOrder
		}
		if !set["rounds"] {
			o.Rounds = tune.Quick.Rounds
		}
		if !set["min-time"] {
			o.MinTime = tune.Quick.MinTime
		}
	}
	if calls != "" {
		for _, s := range strings.Split(calls, ",") {
			c, ok := blas.ParseCall(strings.TrimSpace(s))
			if !ok {
				var names []string
				for c := range blas.NumCalls {
					names = append(names, c.String())
				}
				return usagef("-calls: unknown call %q (want %s)", s, strings.Join(names, ", "))
			}
			o.Calls = append(o.Calls, c)
		}
	}
	if err := o.Validate(); err != nil {
		return usagef("%v", err)
	}
	path := blas.ProfilePath(nil)
	if path == "" && !dry {
		return usagef("no profile path (%s=off, or no cache directory): use -dry-run or set %s", blas.EnvProfile, blas.EnvProfile)
	}
	counts := []int{blas.Threads()}
	if threadList != "" {
		counts = nil
		for _, f := range strings.Split(threadList, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 {
				return usagef("-threads: %q is not a thread count ≥ 2", f)
			}
			counts = append(counts, n)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o.Progress = w
	for _, n := range counts {
		if n != blas.Threads() {
			if err := blas.SetThreads(n); err != nil {
				return err
			}
		}
		if err := tuneOnce(ctx, w, o, path, dry); err != nil {
			return err
		}
	}
	return nil
}

// tuneOnce measures and saves the profile at the present thread count.
func tuneOnce(ctx context.Context, w io.Writer, o tune.Options, path string, dry bool) error {
	fmt.Fprintf(w, "rhgd tune: %s\n", blas.CurrentKey())
	if l, ok := loadAverage(); ok && l > 0.5 {
		fmt.Fprintf(w, "rhgd tune: warning: the 1-minute load average is %.2f; the quiet measurements are quiet only on an idle machine\n", l)
	}
	t0 := time.Now()
	p, err := tune.Run(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	fmt.Fprintf(w, "\nmeasured in %s; threads from (order n; level-3 calls by n³, level-2 by n²):\n", time.Since(t0).Round(time.Second))
	fb := blas.CurrentFallback()
	for c := range blas.NumCalls {
		from := p.ThreadsFrom[c.String()]
		s := "never"
		if from > 0 {
			s = fmt.Sprint(from)
		}
		old := "never"
		if fb.From[c] != blas.Never {
			old = fmt.Sprint(fb.From[c])
		}
		tag := ""
		if _, ok := p.Curves[c.String()]; !ok {
			tag = " (not measured: the fallback's)"
		}
		fmt.Fprintf(w, "  %-6s %6s   (fallback %s)%s\n", c, s, old, tag)
	}
	if dry {
		return nil
	}
	if err := blas.SaveProfile(path, p); err != nil {
		return err
	}
	fmt.Fprintf(w, "saved to %s; rhgd uses it from the next start at %d threads (`rhgd info` shows the table in use)\n", path, p.Key.Threads)
	return nil
}

// loadAverage is the 1-minute load average (Linux's /proc/loadavg).
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}
