package metrics_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// rulesFile holds the alert rules that an operator loads into Prometheus.
const rulesFile = "../deploy/prometheus/cosid-rules.yml"

// recorder is a Registerer that keeps what is registered with it.
type recorder struct{ collectors []prometheus.Collector }

func (r *recorder) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return nil
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	r.collectors = append(r.collectors, cs...)
}
func (r *recorder) Unregister(prometheus.Collector) bool { return false }

var fqName = regexp.MustCompile(`fqName: "([a-z0-9_]+)"`)

// registeredNames returns the names of every metric the package's collectors
// describe, with the series names of histograms.
func registeredNames(t *testing.T) []string {
	t.Helper()
	var r recorder
	if _, err := metrics.New(&r); err != nil {
		t.Fatal(err)
	}
	r.collectors = append(r.collectors,
		metrics.NewStatsCollector(func() []segment.Stats { return nil }),
		metrics.NewLeaseCollector(func() []store.Lease { return nil }),
		metrics.NewCapacityCollector(metrics.Capacity{Targets: func() []metrics.CapacityTarget { return nil }}))
	var names []string
	for _, c := range r.collectors {
		ch := make(chan *prometheus.Desc, 64)
		c.Describe(ch)
		close(ch)
		for d := range ch {
			m := fqName.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("no name in %v", d)
			}
			names = append(names, m[1], m[1]+"_bucket", m[1]+"_count", m[1]+"_sum")
		}
	}
	return names
}

// TestRules_NameRegisteredMetrics reads the alert rules' metric names: a metric
// renamed here and not there fails, as would an alert that can never fire.
func TestRules_NameRegisteredMetrics(t *testing.T) {
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	names := registeredNames(t)
	used := regexp.MustCompile(`\bcosid_[a-z0-9_]+`).FindAllString(string(rules), -1)
	if len(used) < 5 {
		t.Fatalf("%s names %d metrics, want one or more per alert", rulesFile, len(used))
	}
	for _, name := range used {
		if !slices.Contains(names, name) {
			t.Errorf("%s uses %s, which the metrics package does not register", rulesFile, name)
		}
	}
}
