package repo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// Replace is one line of go.work's replace block: a module of the repository, at a
// version that a module of go.work requires, by its directory.
type Replace struct {
	Path, Version, Dir string
}

// WorkReplaces returns the replaces that go.work needs: in workspace mode the go
// command reads the go.mod of every version that a module of the workspace requires,
// of the workspace's own modules too, and no proxy has the placeholder version (nor
// a version just released, until it is published). So go.work names the directory
// for each version of a module of the repository that a module of go.work requires.
func (r *Repo) WorkReplaces() []Replace {
	var rs []Replace
	for _, m := range r.Work() {
		for p, v := range m.Requires {
			dep := r.Module(p)
			rep := Replace{Path: p, Version: v, Dir: workDir(dep.Dir)}
			if !slices.Contains(rs, rep) {
				rs = append(rs, rep)
			}
		}
	}
	slices.SortFunc(rs, func(a, b Replace) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Version, b.Version)
	})
	return rs
}

// workDir is a directory as go.work names it: "./" for the root, "./store/redisstore".
func workDir(dir string) string {
	if dir == "." {
		return "./"
	}
	return "./" + dir
}

// SyncWork makes go.work's replaces of the repository's modules WorkReplaces, and
// reports whether it changed the file. Other replaces and the comments stay.
func (r *Repo) SyncWork() (changed bool, err error) {
	workPath := filepath.Join(r.Root, "go.work")
	data, err := os.ReadFile(workPath)
	if err != nil {
		return false, err
	}
	wf, err := modfile.ParseWork(workPath, data, nil)
	if err != nil {
		return false, err
	}
	want := r.WorkReplaces()
	for _, rep := range want {
		if err := wf.AddReplace(rep.Path, rep.Version, rep.Dir, ""); err != nil {
			return false, err
		}
	}
	for _, rep := range slices.Clone(wf.Replace) {
		if !IsRepoPath(rep.Old.Path) {
			continue
		}
		if !slices.Contains(want, Replace{Path: rep.Old.Path, Version: rep.Old.Version, Dir: rep.New.Path}) {
			if err := wf.DropReplace(rep.Old.Path, rep.Old.Version); err != nil {
				return false, err
			}
		}
	}
	wf.SortBlocks()
	wf.Cleanup()
	out := modfile.Format(wf.Syntax)
	if bytes.Equal(out, data) {
		return false, nil
	}
	if err := os.WriteFile(workPath, out, 0o644); err != nil {
		return false, fmt.Errorf("writing go.work: %w", err)
	}
	return true, nil
}
