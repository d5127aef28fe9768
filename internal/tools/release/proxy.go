package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"

	"github.com/cosid-go/cosid/internal/tools/internal/run"
)

// fileProxy is a module proxy in a directory, the layout that GOPROXY=file://DIR
// reads: ESCAPED_PATH/@v/list, and ESCAPED_VERSION.info, .mod and .zip beside it.
type fileProxy struct {
	dir string
}

// URL is the proxy's GOPROXY entry.
func (p fileProxy) URL() string {
	return "file://" + filepath.ToSlash(p.dir)
}

// addFromGit writes module path at version from the repository in repoDir at rev (a
// tag): its go.mod at rev, and its zip made as the go command makes one from version
// control (git archive, the files of nested modules left out, the root's LICENSE
// added to a nested module that has none), so that its content and its h1: hash are
// those that a proxy would serve for the tag.
func (p fileProxy) addFromGit(ctx context.Context, repoDir, rev, dir, path, version string) error {
	git := run.Cmd{Dir: repoDir}
	modFile := "go.mod"
	subdir := ""
	if dir != "." {
		modFile, subdir = dir+"/go.mod", dir
	}
	mod, err := git.Bytes(ctx, "git", "show", rev+":"+modFile)
	if err != nil {
		return err
	}
	when, err := git.Output(ctx, "git", "log", "-1", "--format=%cI", rev)
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, when)
	if err != nil {
		return fmt.Errorf("the time of %s: %w", rev, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	if err != nil {
		return err
	}
	var zip bytes.Buffer
	if err := modzip.CreateFromVCS(&zip, module.Version{Path: path, Version: version}, repoDir, rev, subdir); err != nil {
		return err
	}
	return p.add(path, version, info, mod, zip.Bytes())
}

// add writes the files of path at version and adds version to the path's list.
func (p fileProxy) add(path, version string, info, mod, zip []byte) error {
	escPath, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	dir := filepath.Join(p.dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for ext, data := range map[string][]byte{".info": info, ".mod": mod, ".zip": zip} {
		if err := os.WriteFile(filepath.Join(dir, escVersion+ext), data, 0o644); err != nil {
			return err
		}
	}
	list := filepath.Join(dir, "list")
	var versions []string
	if data, err := os.ReadFile(list); err == nil {
		versions = strings.Fields(string(data))
	} else if !os.IsNotExist(err) {
		return err
	}
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	semver.Sort(versions)
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

// copyTo adds every module version of p to the proxy in dir: each file is copied
// and each list merged with the one there.
func (p fileProxy) copyTo(dir string) error {
	dst := fileProxy{dir: dir}
	return filepath.WalkDir(p.dir, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(file) != ".info" {
			return err
		}
		vdir := filepath.Dir(file)
		escPath, err := filepath.Rel(p.dir, filepath.Dir(vdir))
		if err != nil {
			return err
		}
		path, err := module.UnescapePath(filepath.ToSlash(escPath))
		if err != nil {
			return err
		}
		escVersion := strings.TrimSuffix(filepath.Base(file), ".info")
		version, err := module.UnescapeVersion(escVersion)
		if err != nil {
			return err
		}
		var data [3][]byte
		for i, ext := range []string{".info", ".mod", ".zip"} {
			if data[i], err = os.ReadFile(filepath.Join(vdir, escVersion+ext)); err != nil {
				return err
			}
		}
		return dst.add(path, version, data[0], data[1], data[2])
	})
}
