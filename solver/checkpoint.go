package solver

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/numerr"
)

// Checkpoints
//
// A checkpoint is the whole state of a run between two epochs: the
// iterates, the best iterate and its f, the counts, the step-size rules'
// memories, both random streams (the estimators' and RSHGD's batches') at
// their positions, and the estimator's own state (CG's warm start,
// FirstOrder's z and schedule). LoadState then Resume continue the run as
// if it had never stopped: the same floats, bit for bit, on the same
// backend. The problem's own caches are not part of it; the iterates get
// new identities (Point.XID, YID), so that a problem recomputes its
// per-point work, as it must give the same values either way.
//
// The format, version CheckpointVersion, all integers little-endian:
//
//	"RHGDCKPT"   8 bytes, the magic
//	version      uint32
//	length       uint64, the bytes of the body
//	body         the fields below
//	checksum     uint32, CRC-32C (Castagnoli) of everything before it
//
// In the body a string or a byte string is a uint64 length and its bytes,
// an int an int64, a float64 its IEEE bits as a uint64, a slice a uint64
// length and its elements. The body holds, in order: three lists of
// key=value pairs that describe what the state belongs to (the caller's
// problem description; the problem's shape as the solver sees it:
// manifold types, lengths, NF, NG, oracles; the estimator's spec and the
// settings as Settings.String writes them), f at the saved iterate on the
// whole sums (a fingerprint of the problem's data), the solver's state,
// the estimator's state (its MarshalBinary, or empty) and the caller's
// bytes (SaveState's app, such as a front end's history).

// CheckpointVersion is the version of the checkpoint format SaveState
// writes and LoadState reads. A change to what a checkpoint holds (a new
// field of the solver's or of an estimator's state) is a new version.
const CheckpointVersion = 2

const checkpointMagic = "RHGDCKPT"

// ErrCheckpoint signifies a checkpoint that LoadState cannot restore: not
// a checkpoint, another version, truncated or corrupt, or of another
// problem, other settings or other sizes than the solver's; the message
// says which, with both values (numerr.ErrInvalid).
var ErrCheckpoint = numerr.New(numerr.ErrInvalid, "solver: bad checkpoint")

// Checkpointer saves a run's state between epochs (Settings.Checkpoint),
// by SaveState; CheckpointFile writes it to a file.
type Checkpointer interface {
	// Checkpoint is called by Run and Resume after each epoch that does
	// not end the run, and once more with final set when the epoch limit,
	// the runtime or a cancellation ends it, before the final lower solve
	// (see Result), so that resuming such a state gives the same result.
	// r.Epoch says how many epochs have run. It must not modify the run;
	// an error stops it with status Failure. The calls that do not write
	// must not allocate, as an epoch does not.
	Checkpoint(r *RHGD, final bool) error
}

// Epoch returns the number of epochs run since Reset (or restored by
// LoadState): the index k of the next epoch.
func (r *RHGD) Epoch() int { return r.epoch }

// SaveState writes the run's state, between epochs, to w as a checkpoint
// for LoadState (the format is described in checkpoint.go). problem
// describes the problem, its data included, as the caller knows it (a
// spec string: LoadState refuses a checkpoint whose description differs);
// app is the caller's own data (a front end's history), kept with the
// state and returned by LoadState. It evaluates f once, at the current
// iterate on the whole sums, as the problem's fingerprint. It allocates
// the checkpoint's bytes: call it between epochs, not within one.
func (r *RHGD) SaveState(w io.Writer, problem string, app []byte) error {
	b, err := r.appendCheckpoint(nil, problem, app)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// LoadState restores the state that SaveState wrote to the solver, which
// must have been made by New for the same problem (problem is compared
// with SaveState's) with the same settings and estimator, and returns the
// caller's bytes saved with it; Resume then continues the run. Anything
// else is an error wrapping ErrCheckpoint that says what differs: not a
// checkpoint, another format version, a truncated or corrupt file
// (checksum), another problem description, manifold, size or component
// count, other settings or estimator, or a problem whose f at the saved
// iterate differs (other data). The solver is unchanged when these
// checks fail; an estimator state that its UnmarshalBinary refuses
// leaves the solver with no run to resume (Reset or a good checkpoint
// first). Wall-clock time continues from the saved Stats.Runtime: the time
// between the save and the restore (a process that was killed, the
// epochs after the checkpoint that were lost and are run again) is not
// counted, in Stats.Runtime, EpochStats.Elapsed or Settings.Runtime.
func (r *RHGD) LoadState(rd io.Reader, problem string) ([]byte, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("%w: reading: %w", ErrCheckpoint, err)
	}
	return r.restore(data, problem)
}

// castagnoli is the checksum's table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header sizes: magic, version, body length; the checksum after the body.
const (
	ckHead = len(checkpointMagic) + 4 + 8
	ckTail = 4
)

func (r *RHGD) appendCheckpoint(b []byte, problem string, app []byte) ([]byte, error) {
	probe, err := r.probe(r.x, r.y)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var est []byte
	if m, ok := r.est.(encoding.BinaryMarshaler); ok {
		if est, err = m.MarshalBinary(); err != nil {
			return nil, fmt.Errorf("checkpoint: %s estimator state: %w", r.s.Estimator.Name(), err)
		}
	}
	e := stateEnc{b: b}
	e.b = append(e.b, checkpointMagic...)
	e.b = binary.LittleEndian.AppendUint32(e.b, CheckpointVersion)
	at := len(e.b)
	e.u64(0) // the body's length, below
	e.pairs([]keyval.Pair{{Key: "problem", Value: problem}})
	e.pairs(r.shape())
	e.pairs(r.settingsPairs())
	e.f64(probe)
	r.appendState(&e)
	e.bytes(est)
	e.bytes(app)
	binary.LittleEndian.PutUint64(e.b[at:], uint64(len(e.b)-at-8))
	e.b = binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
	return e.b, nil
}

// probe returns f at (x, y) on the whole sums, at points of new identity,
// so that no cache of the run's iterates answers it.
func (r *RHGD) probe(x, y []float64) (float64, error) {
	f, err := r.p.F(&Point{X: x, Y: y, XID: NewID(), YID: NewID()})
	if err != nil {
		return 0, fmt.Errorf("f at the iterate (the problem's fingerprint): %w", err)
	}
	return f, nil
}

// shape describes the problem as the solver sees it.
func (r *RHGD) shape() []keyval.Pair {
	itoa := strconv.Itoa
	return []keyval.Pair{{Key: "mx", Value: fmt.Sprintf("%T", r.mx)}, {Key: "my", Value: fmt.Sprintf("%T", r.my)},
		{Key: "len_x", Value: itoa(r.mx.Len())}, {Key: "len_y", Value: itoa(r.my.Len())},
		{Key: "nf", Value: itoa(r.p.NF)}, {Key: "ng", Value: itoa(r.p.NG)},
		{Key: "zero_sum", Value: strconv.FormatBool(r.p.ZeroSum)}, {Key: "oracles", Value: r.p.Available().String()}}
}

// settingsPairs are the estimator's spec and the effective settings.
func (r *RHGD) settingsPairs() []keyval.Pair {
	pairs, err := keyval.Split(r.s.String())
	if err != nil { // String writes what Split reads
		panic(fmt.Sprintf("solver: Settings.String %q: %v", r.s.String(), err))
	}
	return append([]keyval.Pair{{Key: "estimator", Value: fmt.Sprint(r.s.Estimator)}}, pairs...)
}

// appendState writes the solver's state; restoreState reads it in the
// same order.
func (r *RHGD) appendState(e *stateEnc) {
	st := &r.stats
	e.int(r.epoch)
	for _, v := range [...]int{st.Epochs, st.UpperGrads, st.LowerGrads, st.LowerValues, st.LowerSolves, st.HessVecs,
		st.CrossVecs, st.Iterations, st.RetractFailures, st.LowerXGrads, st.UpperYGrads} {
		e.int(v)
	}
	e.f64(st.Residual)
	e.int(int(time.Since(st.startedWall)))
	for _, v := range [...]float64{r.gy0, r.lastF, r.lastHGNorm, r.hgNorm0, r.lastK, r.bestF,
		r.lowerStep, r.upperMax, r.upperReach, r.adaAlpha2} {
		e.f64(v)
	}
	e.int(r.upperCalm)
	for _, v := range [...][]float64{r.x, r.y, r.hg, r.bestX, r.bestY} {
		e.f64s(v)
	}
	for _, bb := range [...]*bbState{r.lbb, r.ubb} {
		e.bool(bb != nil)
		if bb != nil {
			e.f64s(bb.prevX)
			e.f64s(bb.prevG)
			e.f64(bb.prevStep)
			e.bool(bb.have)
			e.bool(bb.odd)
		}
	}
	e.f64s(r.gWin)
	e.f64s(r.fWin)
	e.pcg(r.pcg)
	e.f64(r.lsCurv)
	e.bool(r.lsPCG != nil)
	if r.lsPCG != nil {
		e.pcg(r.lsPCG)
	}
	e.u64(uint64(len(r.notes)))
	for _, n := range r.notes {
		e.str(n)
	}
	e.bool(r.smp != nil)
	if r.smp != nil {
		e.pcg(r.smp.pcg)
		for i := range r.smp.b {
			e.ints(r.smp.b[i].idx)
		}
	}
}

// savedState is a decoded state, checked before it replaces the solver's.
type savedState struct {
	epoch      int
	stats      Stats
	runtime    time.Duration
	scalars    [10]float64
	upperCalm  int
	x, y, hg   []float64
	bestX      []float64
	bestY      []float64
	bb         [2]savedBB
	gWin, fWin []float64
	pcg, spcg  rand.PCG
	lsCurv     float64
	lsPCG      rand.PCG
	notes      []string
	idx        [numBatches][]int
}

type savedBB struct {
	prevX, prevG []float64
	prevStep     float64
	have, odd    bool
}

// restore checks data and sets the solver's state from it.
func (r *RHGD) restore(data []byte, problem string) ([]byte, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCheckpoint, fmt.Sprintf(format, args...))
	}
	switch {
	case len(data) < len(checkpointMagic) || string(data[:len(checkpointMagic)]) != checkpointMagic:
		return nil, bad("not an rhgd checkpoint (it does not start with %q)", checkpointMagic)
	case len(data) < ckHead:
		return nil, bad("truncated: %d bytes, shorter than the header", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[len(checkpointMagic):]); v != CheckpointVersion {
		return nil, bad("format version %d, this rhgd reads version %d", v, CheckpointVersion)
	}
	body := binary.LittleEndian.Uint64(data[ckHead-8:])
	if want := uint64(ckHead) + body + ckTail; body > uint64(len(data)) || want != uint64(len(data)) {
		if want > uint64(len(data)) || body > uint64(len(data)) {
			return nil, bad("truncated: %d bytes, the header says %d", len(data), want)
		}
		return nil, bad("%d bytes after the checkpoint's end (%d bytes)", uint64(len(data))-want, want)
	}
	end := len(data) - ckTail
	if sum := crc32.Checksum(data[:end], castagnoli); sum != binary.LittleEndian.Uint32(data[end:]) {
		return nil, bad("checksum mismatch: the file is corrupt")
	}
	d := stateDec{b: data[ckHead:end]}
	if err := sameProblem(d.pairs("problem"), problem); err != nil {
		return nil, bad("%v", err)
	}
	if err := samePairs("problem shape", d.pairs("problem shape"), r.shape()); err != nil {
		return nil, bad("%v", err)
	}
	if err := samePairs("settings", d.pairs("settings"), r.settingsPairs()); err != nil {
		return nil, bad("%v", err)
	}
	probe := d.f64("f")
	var s savedState
	r.decodeState(&d, &s)
	est := d.bytes("estimator state")
	app := d.bytes("app data")
	if err := d.done(); err != nil {
		return nil, bad("%v", err)
	}
	// The problem's data: f at the saved iterate, to rounding (a restore
	// on another backend differs in the last bits).
	f, err := r.probe(s.x, s.y)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	if f != probe && !(math.Abs(f-probe) <= 1e-8*max(math.Abs(f), math.Abs(probe))) {
		return nil, bad("of other data: f at the saved iterate is %.17g, this problem's is %.17g", probe, f)
	}
	u, ok := r.est.(encoding.BinaryUnmarshaler)
	switch {
	case ok:
		if err := u.UnmarshalBinary(est); err != nil {
			r.est.Reset()
			r.ready = false
			return nil, bad("%s estimator state: %v", r.s.Estimator.Name(), err)
		}
	case len(est) > 0:
		return nil, bad("%d bytes of estimator state, but the %s estimator keeps none", len(est), r.s.Estimator.Name())
	}
	r.commit(&s)
	return app, nil
}

// sameProblem compares the problem descriptions: key by key when both
// are key=value lists (as the front ends write them), else whole.
func sameProblem(saved []keyval.Pair, problem string) error {
	now := []keyval.Pair{{Key: "problem", Value: problem}}
	if len(saved) != 1 {
		return samePairs("problem", saved, now)
	}
	a, aerr := keyval.Split(saved[0].Value)
	b, berr := keyval.Split(problem)
	if _, dup := keyval.Dup(a); aerr != nil || berr != nil || dup || len(a) == 0 || len(b) == 0 {
		return samePairs("problem", saved, now)
	}
	if _, dup := keyval.Dup(b); dup {
		return samePairs("problem", saved, now)
	}
	return samePairs("problem", a, b)
}

// samePairs compares a checkpoint's description with the solver's,
// naming the first key that differs.
func samePairs(what string, saved, now []keyval.Pair) error {
	if saved == nil {
		return nil // the decoder's error is reported
	}
	look := func(ps []keyval.Pair, k string) (string, bool) {
		for _, p := range ps {
			if p.Key == k {
				return p.Value, true
			}
		}
		return "", false
	}
	for _, p := range saved {
		v, ok := look(now, p.Key)
		switch {
		case !ok:
			return fmt.Errorf("of other %s: %s = %q in the checkpoint, which this solver does not have", what, p.Key, p.Value)
		case v != p.Value:
			return fmt.Errorf("of other %s: %s = %q in the checkpoint, %q in this solver", what, p.Key, p.Value, v)
		}
	}
	for _, p := range now {
		if _, ok := look(saved, p.Key); !ok {
			return fmt.Errorf("of other %s: %s = %q in this solver, which the checkpoint does not have", what, p.Key, p.Value)
		}
	}
	return nil
}

// decodeState reads appendState's fields into s, checking every length
// against the solver's.
func (r *RHGD) decodeState(d *stateDec, s *savedState) {
	s.epoch = d.nonneg("epoch")
	st := &s.stats
	for _, p := range [...]struct {
		v    *int
		name string
	}{{&st.Epochs, "Stats.Epochs"}, {&st.UpperGrads, "Stats.UpperGrads"}, {&st.LowerGrads, "Stats.LowerGrads"},
		{&st.LowerValues, "Stats.LowerValues"}, {&st.LowerSolves, "Stats.LowerSolves"}, {&st.HessVecs, "Stats.HessVecs"},
		{&st.CrossVecs, "Stats.CrossVecs"}, {&st.Iterations, "Stats.Iterations"}, {&st.RetractFailures, "Stats.RetractFailures"},
		{&st.LowerXGrads, "Stats.LowerXGrads"}, {&st.UpperYGrads, "Stats.UpperYGrads"}} {
		*p.v = d.nonneg(p.name)
	}
	st.Residual = d.f64("Stats.Residual")
	s.runtime = time.Duration(d.nonneg("Stats.Runtime"))
	for i := range s.scalars {
		s.scalars[i] = d.f64("state")
	}
	s.upperCalm = d.nonneg("upper safeguard's calm epochs")
	s.x = d.f64sLen("x", r.mx.Len())
	s.y = d.f64sLen("y", r.my.Len())
	s.hg = d.f64sLen("hypergradient", r.mx.Len())
	s.bestX = d.f64sLen("best x", r.mx.Len())
	s.bestY = d.f64sLen("best y", r.my.Len())
	for i, bb := range [...]*bbState{r.lbb, r.ubb} {
		name := [...]string{"lower BB", "upper BB"}[i]
		if has := d.bool(name); d.err == nil && has != (bb != nil) {
			d.err = fmt.Errorf("%s state present %v, want %v", name, has, bb != nil)
		}
		if bb == nil || d.err != nil {
			continue
		}
		sb := &s.bb[i]
		sb.prevX = d.f64sLen(name+" point", len(bb.prevX))
		sb.prevG = d.f64sLen(name+" gradient", len(bb.prevG))
		sb.prevStep = d.f64(name + " step")
		sb.have = d.bool(name + " memory")
		sb.odd = d.bool(name + " parity")
	}
	s.gWin = d.f64sMax("lower window", cap(r.gWin))
	s.fWin = d.f64sMax("upper window", cap(r.fWin))
	d.pcgInto(&s.pcg, "estimators' random stream")
	s.lsCurv = d.f64("LowerSolve check's curvature")
	if has := d.bool("LowerSolve check"); d.err == nil && has != (r.lsPCG != nil) {
		d.err = fmt.Errorf("LowerSolve check's random stream present %v, want %v", has, r.lsPCG != nil)
	}
	if r.lsPCG != nil {
		d.pcgInto(&s.lsPCG, "LowerSolve check's random stream")
	}
	n := d.count("start notes", 8)
	for i := 0; i < n && d.err == nil; i++ {
		s.notes = append(s.notes, d.str("start note"))
	}
	if has := d.bool("sampler"); d.err == nil && has != (r.smp != nil) {
		d.err = fmt.Errorf("RSHGD's sampler present %v, want %v", has, r.smp != nil)
	}
	if r.smp != nil {
		d.pcgInto(&s.spcg, "RSHGD's random stream")
		for i := range r.smp.b {
			b := &r.smp.b[i]
			s.idx[i] = d.intsLen(fmt.Sprintf("batch %d", i), len(b.idx), b.n)
		}
	}
}

// commit replaces the solver's state by s.
func (r *RHGD) commit(s *savedState) {
	r.epoch = s.epoch
	r.stats = s.stats
	r.stats.Runtime = s.runtime
	r.stats.startedWall = time.Now().Add(-s.runtime)
	v := &s.scalars
	r.gy0, r.lastF, r.lastHGNorm, r.hgNorm0, r.lastK, r.bestF = v[0], v[1], v[2], v[3], v[4], v[5]
	r.lowerStep, r.upperMax, r.upperReach, r.adaAlpha2 = v[6], v[7], v[8], v[9]
	r.upperCalm = s.upperCalm
	copy(r.x, s.x)
	copy(r.y, s.y)
	copy(r.hg, s.hg)
	copy(r.bestX, s.bestX)
	copy(r.bestY, s.bestY)
	// New identities: no cache of the problem's may take the restored
	// iterates for points it saw.
	r.cur.XID, r.cur.YID = NewID(), NewID()
	for i, bb := range [...]*bbState{r.lbb, r.ubb} {
		if bb != nil {
			sb := &s.bb[i]
			copy(bb.prevX, sb.prevX)
			copy(bb.prevG, sb.prevG)
			bb.prevStep, bb.have, bb.odd = sb.prevStep, sb.have, sb.odd
		}
	}
	if r.gWin != nil {
		r.gWin = append(r.gWin[:0], s.gWin...)
	}
	if r.fWin != nil {
		r.fWin = append(r.fWin[:0], s.fWin...)
	}
	*r.pcg = s.pcg
	r.lsCurv = s.lsCurv
	if r.lsPCG != nil {
		*r.lsPCG = s.lsPCG
	}
	r.notes = append(r.notes[:0], s.notes...)
	if r.smp != nil {
		*r.smp.pcg = s.spcg
		for i := range r.smp.b {
			b := &r.smp.b[i]
			copy(b.idx, s.idx[i])
			if b.idx != nil {
				b.id = NewID()
			}
		}
	}
	r.ready = true
}

// CheckpointFile is a Checkpointer that writes the run's state to the
// file Path every Every epochs and when the run stops by its budget or a
// cancellation (see Checkpointer), atomically: a temporary file in Path's
// directory, synced, then renamed over Path, so that a process killed
// while writing leaves the previous checkpoint whole. Load restores it.
// A CheckpointFile serves one solver at a time.
type CheckpointFile struct {
	// Path is the checkpoint's file.
	Path string
	// Every is the interval in epochs, ≥ 1 (0 is an error, not a
	// default).
	Every int
	// Problem describes the problem (SaveState's problem).
	Problem string
	// App, if not nil, returns the caller's bytes to save with the state
	// (SaveState's app); it is called only when a checkpoint is written.
	App func() ([]byte, error)

	// wrote is 1 + the epoch of the last periodic write, so that the
	// final call right after it (the run's last epoch was a multiple of
	// Every) does not write the same state again; 0 after a final call.
	// Since periodic writes come at every multiple of Every, a run at
	// that epoch has always just written it itself.
	wrote int
}

// Checkpoint implements Checkpointer; it allocates only when it writes.
func (c *CheckpointFile) Checkpoint(r *RHGD, final bool) error {
	if c.Every < 1 {
		return fmt.Errorf("%w: CheckpointFile.Every = %d, want ≥ 1", ErrBadSetting, c.Every)
	}
	switch {
	case !final && r.epoch%c.Every != 0:
		return nil
	case final && c.wrote == r.epoch+1:
		c.wrote = 0
		return nil
	}
	var app []byte
	if c.App != nil {
		var err error
		if app, err = c.App(); err != nil {
			return fmt.Errorf("checkpoint %s: %w", c.Path, err)
		}
	}
	b, err := r.appendCheckpoint(nil, c.Problem, app)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(c.Path, b); err != nil {
		return err
	}
	c.wrote = r.epoch + 1
	if final {
		c.wrote = 0
	}
	return nil
}

// Load restores the state in the file Path to r (LoadState) and returns
// the caller's bytes saved with it. A missing file is an error matching
// fs.ErrNotExist, so that a caller can start afresh instead.
func (c *CheckpointFile) Load(r *RHGD) ([]byte, error) {
	b, err := os.ReadFile(c.Path)
	if err != nil {
		return nil, err
	}
	app, err := r.restore(b, c.Problem)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	return app, nil
}

// WriteFileAtomic writes data to path through a temporary file in the
// same directory, synced to disk and renamed over path, then syncs the
// directory where it can: a reader, or a process that restarts after a
// crash, sees either the old file or the new one, never a part. A
// process killed before the rename leaves a temporary file
// (".name.tmp…") beside path.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	_, err = f.Write(data)
	if err == nil { // CreateTemp's 0600 is for a temporary file, not for the result
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	// The rename itself, on disk: best effort, as some file systems
	// cannot sync a directory; the file is whole either way.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// stateEnc appends the fields of a checkpoint (see the format above); the
// estimators' MarshalBinary use it too.
type stateEnc struct{ b []byte }

func (e *stateEnc) u64(v uint64)   { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *stateEnc) int(v int)      { e.u64(uint64(int64(v))) }
func (e *stateEnc) f64(v float64)  { e.u64(math.Float64bits(v)) }
func (e *stateEnc) bytes(v []byte) { e.u64(uint64(len(v))); e.b = append(e.b, v...) }
func (e *stateEnc) str(v string)   { e.u64(uint64(len(v))); e.b = append(e.b, v...) }

func (e *stateEnc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *stateEnc) f64s(v []float64) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.f64(x)
	}
}

func (e *stateEnc) ints(v []int) {
	e.u64(uint64(len(v)))
	for _, x := range v {
		e.int(x)
	}
}

func (e *stateEnc) pairs(ps []keyval.Pair) {
	e.u64(uint64(len(ps)))
	for _, p := range ps {
		e.str(p.Key)
		e.str(p.Value)
	}
}

func (e *stateEnc) pcg(p *rand.PCG) {
	b, err := p.MarshalBinary()
	if err != nil { // it has no error to return
		panic(err)
	}
	e.bytes(b)
}

// stateDec reads what stateEnc wrote, keeping the first error, which
// names the field; every length is checked against what is left.
type stateDec struct {
	b   []byte
	err error
}

func (d *stateDec) take(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("%s: needs %d bytes, %d are left", what, n, len(d.b))
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *stateDec) u64(what string) uint64 {
	p := d.take(8, what)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

func (d *stateDec) f64(what string) float64 { return math.Float64frombits(d.u64(what)) }

// nonneg reads an int that must be ≥ 0.
func (d *stateDec) nonneg(what string) int {
	v := int64(d.u64(what))
	if v < 0 && d.err == nil {
		d.err = fmt.Errorf("%s = %d, want ≥ 0", what, v)
	}
	return int(v)
}

func (d *stateDec) bool(what string) bool {
	p := d.take(1, what)
	switch {
	case p == nil:
		return false
	case p[0] > 1:
		d.err = fmt.Errorf("%s: byte %d, want 0 or 1", what, p[0])
	}
	return p[0] == 1
}

func (d *stateDec) bytes(what string) []byte {
	n := d.u64(what)
	return d.take(n, what)
}

func (d *stateDec) str(what string) string { return string(d.bytes(what)) }

// count reads a slice's length of elements of size bytes each.
func (d *stateDec) count(what string, size uint64) int {
	n := d.u64(what)
	if d.err == nil && n > uint64(len(d.b))/size {
		d.err = fmt.Errorf("%s: %d entries, but %d bytes are left", what, n, len(d.b))
	}
	return int(n)
}

// f64sLen reads a []float64 that must have n entries.
func (d *stateDec) f64sLen(what string, n int) []float64 {
	k := d.count(what, 8)
	if d.err == nil && k != n {
		d.err = fmt.Errorf("%s: %d entries, this solver's has %d", what, k, n)
	}
	return d.f64sN(what, k)
}

// f64sMax reads a []float64 of at most n entries.
func (d *stateDec) f64sMax(what string, n int) []float64 {
	k := d.count(what, 8)
	if d.err == nil && k > n {
		d.err = fmt.Errorf("%s: %d entries, at most %d", what, k, n)
	}
	return d.f64sN(what, k)
}

func (d *stateDec) f64sN(what string, k int) []float64 {
	if d.err != nil {
		return nil
	}
	v := make([]float64, k)
	for i := range v {
		v[i] = d.f64(what)
	}
	return v
}

// intsLen reads a []int of n entries, each in [0, bound).
func (d *stateDec) intsLen(what string, n, bound int) []int {
	k := d.count(what, 8)
	if d.err == nil && k != n {
		d.err = fmt.Errorf("%s: %d entries, this solver's has %d", what, k, n)
	}
	if d.err != nil {
		return nil
	}
	v := make([]int, k)
	for i := range v {
		x := int64(d.u64(what))
		if d.err == nil && (x < 0 || x >= int64(bound)) {
			d.err = fmt.Errorf("%s: entry %d = %d, want in [0, %d)", what, i, x, bound)
		}
		v[i] = int(x)
	}
	return v
}

func (d *stateDec) pairs(what string) []keyval.Pair {
	n := d.count(what, 16)
	if d.err != nil {
		return nil
	}
	ps := make([]keyval.Pair, n)
	for i := range ps {
		ps[i] = keyval.Pair{Key: d.str(what), Value: d.str(what)}
	}
	if d.err != nil {
		return nil
	}
	return ps
}

func (d *stateDec) pcgInto(p *rand.PCG, what string) {
	b := d.bytes(what)
	if d.err != nil {
		return
	}
	if err := p.UnmarshalBinary(b); err != nil {
		d.err = fmt.Errorf("%s: %w", what, err)
	}
}

// done reports the first error, or bytes left over.
func (d *stateDec) done() error {
	if d.err == nil && len(d.b) > 0 {
		return fmt.Errorf("%d bytes left over", len(d.b))
	}
	return d.err
}
