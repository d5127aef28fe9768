package server

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
	"github.com/cosid-go/cosid/store/memstore"
)

// routeRole is the role that this server's URL conventions give a route pattern
// ("METHOD /path"): the route table declares each route's own, and
// TestRoutes_FollowTheConventions holds the table to these. A pattern of no known
// prefix needs the admin token: a new prefix is closed until it is thought about.
func routeRole(pattern string) Role {
	_, path, ok := strings.Cut(pattern, " ")
	if !ok {
		path = pattern
	}
	switch {
	case path == "/healthz", path == "/readyz":
		return roleOpen // /readyz tells only ready or not without the monitor token
	case path == "/metrics", path == "/{$}":
		return RoleMonitor
	case path == "/v1/generators", strings.HasPrefix(path, "/v1/generators/"), strings.HasPrefix(path, "/ids/"),
		strings.HasPrefix(path, "/api/"), path == "/decodeSnowflakeId", strings.HasPrefix(path, "/tinyid/"):
		return RoleIDs
	case strings.HasPrefix(path, "/v1/store/admin/"):
		return RoleAdmin
	case strings.HasPrefix(path, "/v1/store/"):
		return RoleStore
	case strings.HasPrefix(path, "/segments/"), strings.HasPrefix(path, "/machines/"):
		return roleOpen
	}
	return RoleAdmin
}

// fullServer serves every route of the table: the 4.x API, the admin API, Leaf's
// and tinyid's too, on testConfig with a keyed generator biz for the last two.
func fullServer(t *testing.T) *Server {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(testConfig + "    biz: { strategy: segment, store: mem, keyed: true }\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return mustNew(t, rt, WithStore(memstore.New()), WithRoleToken(RoleIDs, idsToken), WithRoleToken(RoleStore, storeToken),
		WithRoleToken(RoleAdmin, adminToken), WithRoleToken(RoleMonitor, monitorToken),
		WithCompat4x(), WithLeaf("biz", "event"), WithTinyid("biz"))
}

// TestRoutes_EveryPatternOnceInTheTable checks that the route table names each
// pattern once, and that a server that serves everything registered exactly the
// table's patterns: no route is registered outside it.
func TestRoutes_EveryPatternOnceInTheTable(t *testing.T) {
	seen := map[string]bool{}
	var want []string
	for _, rt := range routes {
		if seen[rt.pattern] {
			t.Errorf("the pattern %q is in the route table twice", rt.pattern)
		}
		seen[rt.pattern] = true
		want = append(want, rt.pattern)
	}
	if got := fullServer(t).patterns; !slices.Equal(got, want) {
		t.Errorf("registered patterns:\n%q\nwant the table's:\n%q", got, want)
	}
	// Without the 4.x switch and an admin token, their routes are not registered.
	plain := newServer(t, nil)
	for _, rt := range routes {
		served := slices.Contains(plain.patterns, rt.pattern)
		if gated := rt.flags&(withCompat4x|withAdminToken|withLeaf|withTinyid) != 0; served == gated {
			t.Errorf("%q: served %v by a server without WithCompat4x or an admin token", rt.pattern, served)
		}
	}
}

// TestRoutes_EveryRowReachesItsHandler sends a request of each row's pattern, with
// the token of its role, and checks that the mux routed it there: the answer is not
// the mux's own 404 or 405, and the route of the metrics is the row's pattern.
func TestRoutes_EveryRowReachesItsHandler(t *testing.T) {
	s := fullServer(t)
	tokens := map[Role]string{RoleIDs: idsToken, RoleStore: storeToken, RoleAdmin: adminToken, RoleMonitor: monitorToken}
	param := regexp.MustCompile(`\{[a-z]+\}`)
	for _, rt := range routes {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok { // a Connect service's path prefix: a procedure of it
			method, path = http.MethodPost, rt.pattern+"Check"
			if i := slices.IndexFunc(procedures, func(p string) bool { return strings.HasPrefix(p, rt.pattern) }); i >= 0 {
				path = procedures[i]
			}
		}
		path = strings.ReplaceAll(param.ReplaceAllString(path, "x"), "{$}", "")
		var header []string
		if token, ok := tokens[rt.role]; ok {
			header = bearerOf(token)
		}
		status, _, body := do(t, s, method, path, "", header...)
		if status == http.StatusUnauthorized || strings.Contains(body, "no such route") || strings.Contains(body, "not allowed; allowed") {
			t.Errorf("%s %s (route %q): %d %s; want the route's own answer", method, path, rt.pattern, status, body)
		}
	}
}

// procedures are a procedure of each service of the Connect API; health's is Check.
var procedures = []string{
	cosidv1connect.IdServiceListGeneratorsProcedure,
	cosidv1connect.StoreServiceSealProcedure,
	"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
	"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
}

// TestRoutes_FollowTheConventions holds the route table to this server's URL
// conventions: each row's role is the one its path calls for (routeRole; the
// Connect services by their service), every GET of ids (/next, /range, /ids/) issues
// ids, and every route that changes a store (the store API, the admin API, 4.x's
// segments and machines, StoreService) is audited.
func TestRoutes_FollowTheConventions(t *testing.T) {
	rpcRoles := map[string]Role{
		"/" + cosidv1connect.IdServiceName + "/":    RoleIDs,
		"/" + cosidv1connect.StoreServiceName + "/": RoleStore,
	}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		want := routeRole(rt.pattern)
		if rt.flags&rpc != 0 {
			want = RoleIDs // health is open, below; reflection takes the ids token
			if r, ok := rpcRoles[rt.pattern]; ok {
				want = r
			}
			if strings.Contains(rt.pattern, ".health.") {
				want = roleOpen
			}
		}
		if rt.role != want {
			t.Errorf("%q: role %s; its path calls for %s", rt.pattern, rt.role, want)
		}
		ids := method == http.MethodGet && (strings.HasSuffix(path, "/next") || strings.HasSuffix(path, "/range") || strings.HasPrefix(path, "/ids/") ||
			strings.HasPrefix(path, "/api/segment/get/") || strings.HasPrefix(path, "/api/snowflake/get/") || strings.HasPrefix(path, "/tinyid/id/"))
		if got := rt.flags&issuesIDs != 0; got != ids {
			t.Errorf("%q: issues ids %v; want %v", rt.pattern, got, ids)
		}
		changes := strings.HasPrefix(path, "/v1/store/") || strings.HasPrefix(path, "/machines/") || strings.HasPrefix(path, "/segments/") ||
			rt.pattern == "/"+cosidv1connect.StoreServiceName+"/"
		if got := rt.flags&audited != 0; got != changes {
			t.Errorf("%q: audited %v; want %v", rt.pattern, got, changes)
		}
	}
}

// TestRoutes_FastNextFollowsTheTable checks that the /next route that ServeHTTP
// matches itself takes the role of its row: with the ids token only.
func TestRoutes_FastNextFollowsTheTable(t *testing.T) {
	s := roleServer(t, nil)
	if !s.fastNext || s.nextRole != RoleIDs {
		t.Fatalf("fastNext %v, nextRole %s; want the fast path, with the row's role ids", s.fastNext, s.nextRole)
	}
	for token, want := range map[string]int{idsToken: 200, storeToken: 401, monitorToken: 401, "": 401} {
		var header []string
		if token != "" {
			header = bearerOf(token)
		}
		if status, _, body := do(t, s, "GET", "/v1/generators/order/next", "", header...); status != want {
			t.Errorf("/next with the token %q: %d %s; want %d", token, status, body, want)
		}
	}
}
