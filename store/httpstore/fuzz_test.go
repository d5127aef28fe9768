package httpstore_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
)

// FuzzNewServers checks the urls setting: a list (one URL a line) is either refused
// with an invalid argument that shows no password, or each URL is http or https with
// a host, and none is there twice.
func FuzzNewServers(f *testing.F) {
	for _, seed := range []string{
		"http://127.0.0.1:8686",
		"http://a:1\nhttps://b:2",
		"http://a:1\nhttp://a:1/",
		"http://A:1\nhttp://a:1",
		"http://u:pw@h",
		"ftp://h\nhttp://h",
		"http://:1",
		"http://[::1]:8686\nhttp://[::1]:8687",
		"",
		"http://u:HttpP4ssLEAK@h%zz",
		"http://a/X\nhttp://a/x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		urls := strings.Split(list, "\n")
		st, err := httpstore.NewServers(urls)
		if err != nil {
			if !errors.Is(err, store.ErrInvalidArgument) {
				t.Fatalf("NewServers(%q) = %v, want an invalid argument", urls, err)
			}
			for _, raw := range urls {
				if userinfo := userInfo(raw); len(userinfo) > 5 && !strings.Contains(strings.Replace(list, raw, "", 1), userinfo) && strings.Contains(err.Error(), userinfo+"@") {
					t.Fatalf("the error %q shows the user info of %q", err, raw)
				}
			}
			return
		}
		got := st.URLs()
		if len(got) != len(urls) {
			t.Fatalf("URLs() = %q of %q", got, urls)
		}
		seen := map[string]bool{}
		for _, raw := range got {
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
				t.Fatalf("accepted %q, which is no server's URL", raw)
			}
			same := strings.ToLower(u.Scheme+"://"+u.Host) + strings.TrimRight(u.EscapedPath(), "/")
			if seen[same] {
				t.Fatalf("accepted %q twice in %q", raw, urls)
			}
			seen[same] = true
		}
	})
}

// userInfo is what stands between the scheme and the last @ of the authority of
// raw: all that a URL could hold as its user name and password.
func userInfo(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	authority := raw[i+3:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return ""
	}
	return authority[:at]
}
