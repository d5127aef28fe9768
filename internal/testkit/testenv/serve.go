package testenv

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Serve is a cosid serve process of a test, started by StartServe.
type Serve struct {
	URL string // http://host:port, where it listens
	cmd *exec.Cmd

	mu  sync.Mutex
	log strings.Builder
}

var listening = regexp.MustCompile(`listening" addr=(\S+)`)

// StartServe starts cmd, a cosid serve whose --addr is a free loopback port, and
// returns it once its log says where it listens, failing t with the log when it
// ends first or does not listen within a minute. The process is killed when t ends.
func StartServe(t testing.TB, cmd *exec.Cmd) *Serve {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Serve{cmd: cmd}
	addr := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		io.Copy(io.Discard, pipe)
		close(addr)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		cmd.Wait()
	})
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("cosid serve ended before it listened:\n%s", s.Log())
		}
		s.URL = "http://" + a
		return s
	case <-time.After(time.Minute):
		t.Fatalf("cosid serve did not listen within a minute:\n%s", s.Log())
	}
	return nil
}

// Log returns what the process logged so far.
func (s *Serve) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Kill kills the process (SIGKILL): a server that stops without a goodbye.
func (s *Serve) Kill(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
}

var (
	buildOnce sync.Once
	cosidBin  string
	buildErr  error
)

// Cosid builds cmd/cosid once for the test binary and returns its path, in a
// temporary directory that RemoveCosid removes (call it from TestMain).
func Cosid(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cosid-bin-")
		if err != nil {
			buildErr = err
			return
		}
		cosidBin = filepath.Join(dir, "cosid")
		if out, err := exec.Command("go", "build", "-o", cosidBin, "github.com/cosid-go/cosid/cmd/cosid").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building cmd/cosid: %v", buildErr)
	}
	return cosidBin
}

// RemoveCosid removes the binary that Cosid built, if it built one.
func RemoveCosid() {
	if cosidBin != "" {
		os.RemoveAll(filepath.Dir(cosidBin))
	}
}
