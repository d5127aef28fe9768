package servicesim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid"
	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/store/memstore"
)

// Streams plays bulk loaders on two replicas of one store: clients stream ranges of
// a segment generator with StreamRanges and cancel mid-stream after a drawn number
// of ranges, or read them with ReadRanges, asking a drawn number ahead, and cancel
// mid-stream or close their side and read the rest, beside clients that take single ids and ranges, while replicas restart,
// drained (SIGTERM, which gives back, S7) or crashed, also under open streams.
//
// It checks that no value is handed out twice, that every range a stream sent
// holds the ids asked for, and that a ReadRanges stream sends no range it was not
// asked for.
func Streams(seed uint64, steps int) (res Result) {
	w := newWorld("streams", seed, &res)
	defer w.end()
	step := int64(100)
	cfg := cosid.Config{
		Stores:     map[string]cosid.StoreConfig{"mem": {Type: "memory"}},
		Generators: map[string]cosid.GeneratorConfig{"bulk": {Strategy: "segment", Store: "mem", Step: &step}},
	}
	reps := w.replicas(2, cfg, memstore.New())

	for s := range steps {
		res.Steps = s + 1
		var wg sync.WaitGroup
		for c := range 4 {
			client, server := reps.pick()
			by := fmt.Sprintf("client%d@%s", c, server)
			switch r := w.rng.IntN(4); r {
			case 0:
				size, most := 1+w.rng.Int64N(500), 1+w.rng.IntN(20)
				pause := time.Duration(w.rng.Int64N(int64(time.Millisecond)))
				wg.Go(func() { w.stream(client, by, "bulk", size, most, pause) })
			case 1:
				size, ahead, most := 1+w.rng.Int64N(500), 1+w.rng.Int64N(8), 1+w.rng.Int64N(20)
				closeSend := w.rng.IntN(2) == 0
				pause := time.Duration(w.rng.Int64N(int64(time.Millisecond)))
				h2c, _ := reps.pickH2C()
				wg.Go(func() { w.readStream(h2c, by, "bulk", size, ahead, most, closeSend, pause) })
			case 2:
				count := 1 + w.rng.Int64N(100)
				wg.Go(func() { w.next(client, by, "bulk", "", count) })
			default:
				count := 1 + w.rng.Int64N(1000)
				wg.Go(func() { w.nextRange(client, by, "bulk", "", count) })
			}
		}
		if r := w.rng.IntN(100); r < 20 {
			i, graceful := w.rng.IntN(len(reps.names)), w.rng.IntN(4) > 0
			w.count(&res.Faults)
			w.note("%s restarts (graceful %v)", reps.names[i], graceful)
			wait := time.Duration(w.rng.Int64N(int64(50 * time.Millisecond)))
			wg.Go(func() {
				time.Sleep(wait) // among the calls of the step, open streams included
				reps.restart(i, graceful)
			})
		}
		wg.Wait()
		time.Sleep(time.Duration(w.rng.Int64N(int64(2 * time.Second))))
	}
	return res
}

// stream reads up to most ranges of size ids of name from a StreamRanges of c,
// recording each and pausing after it, and cancels the call.
func (w *world) stream(c interface {
	StreamRanges(context.Context, *connect.Request[cosidv1.StreamRangesRequest]) (*connect.ServerStreamForClient[cosidv1.StreamRangesResponse], error)
}, by, name string, size int64, most int, pause time.Duration) {
	w.count(&w.res.Calls)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.StreamRanges(ctx, connect.NewRequest(&cosidv1.StreamRangesRequest{Name: name, Size: size}))
	if err != nil {
		w.count(&w.res.Errors)
		return
	}
	defer st.Close()
	for got := 0; got < most; got++ {
		if !st.Receive() {
			w.count(&w.res.Errors)
			return
		}
		m := st.Msg()
		if m.GetEnd()-m.GetStart() != size {
			w.check.fail("%s: a stream of ranges of %d ids of %s sent [%d, %d)", by, size, name, m.GetStart(), m.GetEnd())
		}
		w.check.took(name+"/", m.GetStart(), m.GetEnd(), by+" (stream)")
		time.Sleep(pause)
	}
}

// readStream reads up to most ranges of size ids of name from a ReadRanges call of
// c, keeping ahead ranges asked beyond those read, recording each and pausing after
// it. Then it cancels the call, or (closeSend) closes its side and reads the ranges
// still asked for, which must be all the call sends before its clean end.
func (w *world) readStream(c interface {
	ReadRanges(context.Context) *connect.BidiStreamForClient[cosidv1.ReadRangesRequest, cosidv1.ReadRangesResponse]
}, by, name string, size, ahead, most int64, closeSend bool, pause time.Duration) {
	w.count(&w.res.Calls)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := c.ReadRanges(ctx)
	defer st.CloseResponse()
	asked := min(ahead, most)
	if err := st.Send(&cosidv1.ReadRangesRequest{Name: name, Size: size, Want: asked}); err != nil {
		w.count(&w.res.Errors)
		return
	}
	took := func(m *cosidv1.ReadRangesResponse, got int64) {
		if got > asked {
			w.check.fail("%s: a ReadRanges stream sent range %d, of %d asked", by, got, asked)
		}
		if m.GetEnd()-m.GetStart() != size {
			w.check.fail("%s: a ReadRanges stream of ranges of %d ids of %s sent [%d, %d)", by, size, name, m.GetStart(), m.GetEnd())
		}
		w.check.took(name+"/", m.GetStart(), m.GetEnd(), by+" (read)")
	}
	got := int64(0)
	for got < most {
		m, err := st.Receive()
		if err != nil {
			w.count(&w.res.Errors)
			return
		}
		got++
		took(m, got)
		if asked < most {
			if err := st.Send(&cosidv1.ReadRangesRequest{Want: 1}); err != nil {
				w.count(&w.res.Errors)
				return
			}
			asked++
		}
		time.Sleep(pause)
	}
	if !closeSend {
		return // cancelled mid-stream
	}
	if err := st.CloseRequest(); err != nil {
		w.count(&w.res.Errors)
		return
	}
	for {
		m, err := st.Receive()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			w.count(&w.res.Errors)
			return
		}
		got++
		took(m, got)
	}
}
