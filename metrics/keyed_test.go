package metrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cosid-go/cosid/metrics"
)

func TestKeyCollector_OneSeriesSetPerTemplate(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewKeyCollector(func() []metrics.KeyCount {
		return []metrics.KeyCount{{Generator: "invoice", Live: 3, Opened: 9, Evicted: 4, IdleClosed: 2}}
	}))
	want := `
# HELP cosid_keyed_keys_closed_total Keys a keyed generator closed, by reason: max-live-keys or idle-close.
# TYPE cosid_keyed_keys_closed_total counter
cosid_keyed_keys_closed_total{generator="invoice",reason="idle-close"} 2
cosid_keyed_keys_closed_total{generator="invoice",reason="max-live-keys"} 4
# HELP cosid_keyed_keys_opened_total Keys a keyed generator opened.
# TYPE cosid_keyed_keys_opened_total counter
cosid_keyed_keys_opened_total{generator="invoice"} 9
# HELP cosid_keyed_live_keys Keys of a keyed generator open now.
# TYPE cosid_keyed_live_keys gauge
cosid_keyed_live_keys{generator="invoice"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
