package solver

import "fmt"

// MarshalBinary returns SABA's state between estimates (the fields Reset
// clears): v, the point (cx, cy) it and the averages live at, the
// pending flag with the joint step's D_x and D_v, each block order's
// pass, and each table's rows, their points, the average and the steps
// since its refresh. Identities are not kept: after UnmarshalBinary the
// next point is taken as a move from (cx, cy), with its transports,
// which between epochs is what the uninterrupted run does (x has moved
// since the joint step, and y since the last lower direction).
func (s *saba) MarshalBinary() ([]byte, error) {
	var e stateEnc
	e.bool(s.have)
	e.bool(s.pending)
	for _, v := range [...][]float64{s.v, s.cx, s.cy, s.dv, s.dx} {
		e.f64s(v)
	}
	for _, b := range [...]*vrBlocks{s.g, s.f} {
		e.ints(b.order)
		e.int(b.next)
	}
	for _, t := range s.tables() {
		e.int(t.since)
		e.f64s(t.avg)
		for k, ok := range t.has {
			e.bool(ok)
			if ok {
				e.f64s(t.mem[k])
				e.f64s(t.pts[k])
			}
		}
	}
	return e.b, nil
}

func (s *saba) tables() [5]*vrTable { return [...]*vrTable{s.gy, s.hv, s.fy, s.cv, s.fx} }

// UnmarshalBinary restores MarshalBinary's state; on an error nothing
// changes.
func (s *saba) UnmarshalBinary(b []byte) error {
	d := stateDec{b: b}
	have, pending := d.bool("have"), d.bool("pending")
	var vecs [5][]float64
	for i, v := range [...][]float64{s.v, s.cx, s.cy, s.dv, s.dx} {
		vecs[i] = d.f64sLen([...]string{"v", "cx", "cy", "dv", "dx"}[i], len(v))
	}
	var orders [2][]int
	var nexts [2]int
	for i, bl := range [...]*vrBlocks{s.g, s.f} {
		orders[i] = d.intsLen("block order", len(bl.order), len(bl.order))
		if nexts[i] = d.nonneg("block position"); d.err == nil && nexts[i] >= len(bl.order) {
			d.err = fmt.Errorf("block position %d of %d blocks", nexts[i], len(bl.order))
		}
	}
	type row struct {
		has      bool
		mem, pts []float64
	}
	var since [5]int
	var avgs [5][]float64
	var rows [5][]row
	for i, t := range s.tables() {
		since[i] = d.nonneg("steps since refresh")
		avgs[i] = d.f64sLen("average", len(t.avg))
		rows[i] = make([]row, len(t.has))
		for k := range rows[i] {
			if rows[i][k].has = d.bool("row present"); rows[i][k].has {
				rows[i][k].mem = d.f64sLen("row", len(t.avg))
				rows[i][k].pts = d.f64sLen("row point", len(t.avg))
			}
		}
	}
	if err := d.done(); err != nil {
		return err
	}
	s.have, s.pending = have, pending
	for i, v := range [...][]float64{s.v, s.cx, s.cy, s.dv, s.dx} {
		copy(v, vecs[i])
	}
	s.cxID, s.cyID = 0, 0
	for i, bl := range [...]*vrBlocks{s.g, s.f} {
		copy(bl.order, orders[i])
		bl.next = nexts[i]
	}
	for i, t := range s.tables() {
		t.since = since[i]
		copy(t.avg, avgs[i])
		for k, r := range rows[i] {
			t.has[k] = r.has
			if r.has {
				copy(t.mem[k], r.mem)
				copy(t.pts[k], r.pts)
			}
		}
	}
	return nil
}
