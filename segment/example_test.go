package segment_test

import (
	"fmt"
	"log"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/memstore"
)

func ExampleNew() {
	st := memstore.New() // in production: a sqlstore, redisstore, … shared by every instance
	defer st.Close()

	g, err := segment.New(st, "app/order", segment.DefaultBatchPolicy())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	for range 3 {
		id, err := g.Next()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id)
	}
	// Output:
	// 1
	// 2
	// 3
}

func ExampleGenerator_NextRange() {
	st := memstore.New()
	defer st.Close()
	g, err := segment.New(st, "app/line-item", segment.DefaultBatchPolicy())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	r, err := g.NextRange(50) // ids for a bulk insert of 50 rows
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r, r.Len())
	// Output: [1, 51) 50
}

func ExampleNewPeriodic() {
	st := memstore.New()
	defer st.Close()
	shanghai := time.FixedZone("CST", 8*60*60) // or time.LoadLocation("Asia/Shanghai")

	// A clock stopped at 09:30 on 27 October 2026 in Shanghai, for a stable output.
	at := time.Date(2026, 10, 27, 9, 30, 0, 0, shanghai)
	bills, err := segment.NewPeriodic(st, "app/bill", segment.YearMonthDay, shanghai,
		segment.DefaultBatchPolicy(), segment.DefaultPeriodicPolicy(),
		segment.WithClock(func() time.Time { return at }))
	if err != nil {
		log.Fatal(err)
	}
	defer bills.Close()

	for range 2 {
		id, err := bills.Next()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id.Period, id.Value)
	}
	// Output:
	// 20261027 1
	// 20261027 2
}

func ExampleGenerator_Stats() {
	st := memstore.New()
	defer st.Close()
	p := segment.DefaultBatchPolicy()
	p.Lookahead = 0 // reserve only when a range runs out, so that the figures are fixed
	g, err := segment.New(st, "app/order", p)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	for range 5 {
		if _, err := g.Next(); err != nil {
			log.Fatal(err)
		}
	}

	s := g.Stats()
	fmt.Printf("%s: ids from %v, next %d; %d reservation of %d, %d failed\n",
		s.Key, s.Current, s.Next, s.Reserves, s.Batch, s.Failures)
	// Output:
	// app/order: ids from [1, 101), next 6; 1 reservation of 100, 0 failed
}
