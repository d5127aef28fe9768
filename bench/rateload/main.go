// Command rateload sends GET requests to a URL at a fixed rate, whatever the answers'
// latency (an open loop, which wrk is not), and prints the rate reached and the p50,
// p99 and p99.9 latency, each measured from when its request was due, so that a
// stalled server shows in the figures instead of slowing the load down.
//
//	rateload -url http://127.0.0.1:8686/v1/generators/order/next -rate 25000 -duration 10s
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "", "the URL to GET")
	rate := flag.Int("rate", 1000, "requests per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	workers := flag.Int("workers", 256, "requests in flight at most")
	flag.Parse()
	if *url == "" || *rate < 1 || *workers < 1 {
		fmt.Fprintln(os.Stderr, "rateload: -url, a -rate ≥ 1 and -workers ≥ 1 are required")
		os.Exit(2)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}, Timeout: 10 * time.Second}
	due := make(chan time.Time, *workers*4)
	lat := make([][]time.Duration, *workers)
	failed := make([]int, *workers)
	var wg sync.WaitGroup
	for w := range *workers {
		wg.Go(func() {
			for t := range due {
				resp, err := client.Get(*url)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != http.StatusOK {
					failed[w]++
					continue
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		})
	}
	interval := time.Second / time.Duration(*rate)
	start := time.Now()
	sent := 0
	for {
		now := time.Now()
		if now.Sub(start) >= *duration {
			break
		}
		for n := int(now.Sub(start) / interval); sent <= n; sent++ {
			due <- start.Add(time.Duration(sent) * interval)
		}
		time.Sleep(200 * time.Microsecond)
	}
	close(due)
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	fails := 0
	for _, f := range failed {
		fails += f
	}
	if len(all) == 0 {
		fmt.Printf("rate %d/s: no request succeeded (%d failed)\n", *rate, fails)
		os.Exit(1)
	}
	q := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("asked %6d req/s  got %8.0f req/s  failed %d  p50 %9v  p99 %9v  p99.9 %9v\n",
		*rate, float64(len(all))/elapsed.Seconds(), fails, q(0.50).Round(time.Microsecond), q(0.99).Round(time.Microsecond), q(0.999).Round(time.Microsecond))
}
