package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/memstore"
)

// TestSecurity_H2_ChromiumNoCorsBlobRefused replays the review's attack in headless
// Chromium: a page of another origin posts a Blob with mode "no-cors" (a request
// that needs no preflight) to the store API's seal. The request reaches the server,
// which refuses it: the key is not sealed.
func TestSecurity_H2_ChromiumNoCorsBlobRefused(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv(testenv.Require) == "1" {
			t.Fatalf("chromium is not installed and %s=1", testenv.Require)
		}
		t.Skip("chromium is not installed")
	}
	st := memstore.New()
	s := newServer(t, st)
	var mu sync.Mutex
	var posts []string // the Sec-Fetch-Site and status of each POST that reached the server
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		if r.Method == http.MethodPost {
			mu.Lock()
			posts = append(posts, fmt.Sprintf("%s %s %d", r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Content-Type"), rec.Code))
			mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer target.Close()
	page := fmt.Sprintf(`<!doctype html><body><script>
fetch(%q, {method: "POST", mode: "no-cors", body: new Blob(['{"key":"csrf/sealed"}'])})
  .then(() => { document.body.id = "sent" }, (e) => { document.body.id = "failed" });
</script></body>`, target.URL+"/v1/store/seal")
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}))
	defer attacker.Close()
	// localhost is another site than 127.0.0.1, where the target listens.
	dom := runChromium(t, chromium, "--virtual-time-budget=5000", "--dump-dom", strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1))
	mu.Lock()
	defer mu.Unlock()
	if len(posts) == 0 {
		t.Fatalf("Chromium sent no POST to the server (page: %s); the attack was not tried", dom)
	}
	for _, p := range posts {
		if !strings.HasSuffix(p, " 403") {
			t.Errorf("a cross-site POST (Sec-Fetch-Site, Content-Type, status: %s) was not refused with 403", p)
		}
	}
	if _, err := st.Reserve(t.Context(), "csrf/sealed", 1, 0); err != nil {
		t.Errorf("the page sealed the key: %v", err)
	}
}
