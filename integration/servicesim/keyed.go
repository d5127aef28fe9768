package servicesim

import (
	"fmt"
	"sync"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/memstore"
)

// Keyed plays a keyed template under load on two replicas of one store: eight keys
// where three may be live (max-live-keys), closed when idle for two seconds
// (idle-close), so that keys are evicted and opened again all the time, each close
// giving back what its generator did not hand out (S7); replicas restart, drained
// (SIGTERM) or crashed, while clients take ids and ranges of the keys from either.
//
// It checks that no value of a key is handed out twice.
func Keyed(seed uint64, steps int) (res Result) {
	w := newWorld("keyed", seed, &res)
	defer w.end()
	maxLive, idle, step := 3, 2*time.Second, int64(20)
	cfg := cosid.Config{
		Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}},
		Generators: map[string]cosid.GeneratorConfig{"order": {
			Strategy: "segment", Store: "mem", Keyed: true, MaxLiveKeys: &maxLive, IdleClose: &idle, Step: &step,
		}},
	}
	reps := w.replicas(2, cfg, memstore.New())

	for s := range steps {
		res.Steps = s + 1
		var wg sync.WaitGroup
		if r := w.rng.IntN(100); r < 20 {
			i, graceful := w.rng.IntN(len(reps.names)), w.rng.IntN(4) > 0
			w.count(&res.Faults)
			w.note("%s restarts (graceful %v)", reps.names[i], graceful)
			wg.Go(func() { reps.restart(i, graceful) })
		}
		for c := range 4 {
			key := fmt.Sprintf("k%d", w.rng.IntN(8))
			client, server := reps.pick()
			by := fmt.Sprintf("client%d@%s", c, server)
			count, ranged := 1+w.rng.Int64N(50), w.rng.IntN(3) == 0
			wg.Go(func() {
				if ranged {
					w.nextRange(client, by, "order", key, count*4)
					return
				}
				w.next(client, by, "order", key, count)
			})
		}
		wg.Wait()
		time.Sleep(time.Duration(w.rng.Int64N(int64(3 * time.Second))))
	}
	return res
}
