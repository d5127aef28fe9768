// Package run runs the git and go commands of the release tools, each bounded by its
// context, and says in its error what ran, where, and what it printed.
package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Timeout bounds one command.
const Timeout = 10 * time.Minute

// Cmd is a command to run in Dir with Env added to (and overriding) the process's
// environment.
type Cmd struct {
	Dir string
	Env []string
}

// Output runs name with args and returns what it printed on standard output, without
// the trailing newline.
func (c Cmd) Output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := c.Bytes(ctx, name, args...)
	return strings.TrimSuffix(string(out), "\n"), err
}

// Bytes runs name with args and returns what it printed on standard output.
func (c Cmd) Bytes(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = c.Dir
	cmd.Env = Environ(c.Env...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, context.Cause(ctx))
		}
		return nil, fmt.Errorf("%s (in %s): %v\n%s", strings.Join(cmd.Args, " "), c.Dir, err, msg)
	}
	return stdout.Bytes(), nil
}

// Run is Output without the output.
func (c Cmd) Run(ctx context.Context, name string, args ...string) error {
	_, err := c.Output(ctx, name, args...)
	return err
}

// Environ returns the process's environment with the KEY=VALUE pairs of env set in
// it, a later pair of a key winning.
func Environ(env ...string) []string {
	out := os.Environ()
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		out = dropKey(out, key)
		out = append(out, kv)
	}
	return out
}

func dropKey(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			out = append(out, kv)
		}
	}
	return out
}
