package deploy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"

	// cosid serve registers the driver of the chart's default store, which Validate checks.
	_ "github.com/jackc/pgx/v5/stdlib"
)

const (
	release    = "ids"
	fullname   = "ids-cosid"
	secretsDir = "/run/secrets/cosid"
	configPath = "/etc/cosid/cosid.yaml"
)

// rendered is the chart's objects, by kind.
type rendered struct {
	configMap *corev1.ConfigMap
	secret    *corev1.Secret
	deploy    *appsv1.Deployment
	service   *corev1.Service
	pdb       *policyv1.PodDisruptionBudget
	monitor   *monitoringv1.ServiceMonitor
	names     []string // "Kind/name" of each object, in order
}

// render runs helm template on the chart with the flags sets and decodes its
// objects strictly.
func render(t *testing.T, sets ...string) rendered {
	t.Helper()
	args := []string{"template", release, chartDir, "--namespace", "ids"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	objs, err := DecodeObjects(helm(t, args...))
	if err != nil {
		t.Fatalf("the chart rendered an object that does not decode strictly: %v", err)
	}
	var r rendered
	for _, o := range objs {
		r.names = append(r.names, o.Kind+"/"+o.Name)
		switch v := o.Value.(type) {
		case *corev1.ConfigMap:
			r.configMap = v
		case *corev1.Secret:
			r.secret = v
		case *appsv1.Deployment:
			r.deploy = v
		case *corev1.Service:
			r.service = v
		case *policyv1.PodDisruptionBudget:
			r.pdb = v
		case *monitoringv1.ServiceMonitor:
			r.monitor = v
		default:
			t.Fatalf("the chart renders a %s the test does not check", o.Kind)
		}
	}
	return r
}

func TestChart_PassesHelmLintStrict(t *testing.T) {
	helm(t, "lint", "--strict", chartDir)
	helm(t, "lint", "--strict", chartDir, "--set", "serviceMonitor.enabled=true,secret.create=true",
		"--set", "secret.tokens.ids=i,secret.tokens.store=s,secret.tokens.monitor=m,secret.dsn=postgres://cosid@db/ids")
}

func TestChart_RendersTheObjectsOfEachValues(t *testing.T) {
	tests := []struct {
		name string
		sets []string
		want []string
	}{
		{"Defaults", nil, []string{"ConfigMap/" + fullname, "Service/" + fullname, "Deployment/" + fullname, "PodDisruptionBudget/" + fullname}},
		{"SecretAndServiceMonitor", []string{"secret.create=true,serviceMonitor.enabled=true",
			"secret.tokens.ids=i,secret.tokens.store=s,secret.tokens.monitor=m,secret.dsn=postgres://cosid@db/ids"},
			[]string{"PodDisruptionBudget/" + fullname, "Secret/" + fullname, "ConfigMap/" + fullname, "Service/" + fullname,
				"Deployment/" + fullname, "ServiceMonitor/" + fullname}},
		{"NoPDB", []string{"pdb.enabled=false"}, []string{"ConfigMap/" + fullname, "Service/" + fullname, "Deployment/" + fullname}},
		// One replica may keep its own SQLite file (more are refused: RefusesValuesThatWouldNotRun).
		{"SQLiteOneReplica", []string{"replicaCount=1,pdb.enabled=false,config.cosid.stores.db.driver=sqlite,config.cosid.stores.db.dsn=ids.db"},
			[]string{"ConfigMap/" + fullname, "Service/" + fullname, "Deployment/" + fullname}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := render(t, tt.sets...)
			got, want := slices.Sorted(slices.Values(r.names)), slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Fatalf("objects %v, want %v", got, want)
			}
			t.Logf("rendered: %s", strings.Join(r.names, ", "))
		})
	}
}

func TestChart_DeploymentIsLockedDown(t *testing.T) {
	r := render(t)
	d := r.deploy
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", d.Spec.Replicas)
	}
	checkPod(t, &d.Spec.Template.Spec)
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the Deployment's selector %v does not select its pods %v (%v)", d.Spec.Selector, d.Spec.Template.Labels, err)
	}
}

// checkPod checks the security settings and probes of a pod of cosid serve.
func checkPod(t *testing.T, pod *corev1.PodSpec) {
	t.Helper()
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token: cosid calls no Kubernetes API")
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Error("pod securityContext.runAsUser is not a user other than root")
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod securityContext.seccompProfile is not RuntimeDefault")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("the container has no securityContext")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem is not true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation is not false")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("the container is privileged")
	case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities %+v, want drop [ALL] and no add", sc.Capabilities)
	}
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Errorf("args %q, want cosid serve", c.Args)
	}
	if !hasMount(c, "/tmp") {
		t.Error("no volume at /tmp: the root filesystem is read-only")
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if !slices.Contains(c.Args, "--addr=0.0.0.0:"+strconv.Itoa(int(ports["http"]))) {
		t.Errorf("args %q do not listen on the port named http, %d", c.Args, ports["http"])
	}
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", p.what)
			continue
		}
		if got := p.probe.HTTPGet.Path; got != p.path {
			t.Errorf("%s probe path %q, want %q", p.what, got, p.path)
		}
		if port := p.probe.HTTPGet.Port.String(); ports[port] == 0 {
			t.Errorf("%s probe port %q is no port of the container %v", p.what, port, ports)
		}
		if code := serverAnswer(t, p.probe.HTTPGet.Path); code != http.StatusOK {
			t.Errorf("%s probe: a server of no store answers GET %s with %d, want 200", p.what, p.probe.HTTPGet.Path, code)
		}
	}
}

// serverAnswer returns the status that cosid serve's handler answers GET path with,
// on a runtime of no store: that the probes' paths are its routes.
func serverAnswer(t *testing.T, path string) int {
	t.Helper()
	rt, err := cosid.Open(context.Background(), cosid.Config{Namespace: "app"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	srv, err := server.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://10.1.2.3:8686"+path, nil))
	return w.Code
}

func fmtMode(m *int32) string {
	if m == nil {
		return "unset"
	}
	return fmt.Sprintf("%#o", *m)
}

func hasMount(c corev1.Container, path string) bool {
	return slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == path })
}

func TestChart_ConfigAndTokensReachTheServer(t *testing.T) {
	r := render(t, "secret.roles={ids,store,admin,monitor}")
	c := r.deploy.Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--config="+configPath) {
		t.Errorf("args %q do not name --config=%s", c.Args, configPath)
	}
	for _, role := range []string{"ids", "store", "admin", "monitor"} {
		if flag := "--" + role + "-token-file=" + secretsDir + "/" + role; !slices.Contains(c.Args, flag) {
			t.Errorf("args %q lack %s", c.Args, flag)
		}
	}
	vols := map[string]corev1.Volume{}
	for _, v := range r.deploy.Spec.Template.Spec.Volumes {
		vols[v.Name] = v
	}
	mounted := func(path string) corev1.Volume {
		for _, m := range c.VolumeMounts {
			if m.MountPath == path {
				if !m.ReadOnly {
					t.Errorf("%s is mounted writable", path)
				}
				return vols[m.Name]
			}
		}
		t.Fatalf("nothing is mounted at %s", path)
		return corev1.Volume{}
	}
	if v := mounted("/etc/cosid"); v.ConfigMap == nil || v.ConfigMap.Name != r.configMap.Name {
		t.Errorf("/etc/cosid is %+v, want the ConfigMap %s", v.VolumeSource, r.configMap.Name)
	}
	if v := mounted(secretsDir); v.Secret == nil || v.Secret.SecretName != fullname {
		t.Errorf("%s is %+v, want the Secret %s", secretsDir, v.VolumeSource, fullname)
	} else if m := v.Secret.DefaultMode; m == nil || *m != 0o440 {
		t.Errorf("the Secret's files have mode %s, want 0440: the pod's group reads them, others not", fmtMode(m))
	}
	cfg, err := cosid.ParseConfig([]byte(r.configMap.Data["cosid.yaml"]))
	if err != nil {
		t.Fatalf("the ConfigMap's cosid.yaml: %v", err)
	}
	if dsn := cfg.Stores["db"].Settings["dsn-file"]; dsn != secretsDir+"/dsn" {
		t.Fatalf("the default store's dsn-file is %v, want the Secret's %s/dsn", dsn, secretsDir)
	}
	// Off the cluster (cosid config check in CI) the Secret is not mounted: an
	// offline check reads no file.
	if err := cfg.Offline().Validate(); err != nil {
		t.Errorf("the ConfigMap's cosid.yaml, checked offline: %v", err)
	}
	// Validate reads the DSN file: here a copy of the Secret's.
	dsn := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsn, []byte("postgres://cosid@db:5432/ids\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Stores["db"].Settings["dsn-file"] = dsn
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the ConfigMap's cosid.yaml: %v", err)
	}
}

func TestChart_ServicePDBAndServiceMonitorSelectThePods(t *testing.T) {
	r := render(t, "secret.create=true,serviceMonitor.enabled=true",
		"secret.tokens.ids=i,secret.tokens.store=s,secret.tokens.monitor=m,secret.dsn=postgres://cosid@db/ids")
	pods := labels.Set(r.deploy.Spec.Template.Labels)
	if !labels.SelectorFromSet(r.service.Spec.Selector).Matches(pods) {
		t.Errorf("the Service's selector %v does not select the pods %v", r.service.Spec.Selector, pods)
	}
	if len(r.service.Spec.Ports) != 2 || r.service.Spec.Ports[0].TargetPort.String() != "http" || r.service.Spec.Ports[1].TargetPort.String() != "grpc" {
		t.Errorf("the Service's ports %+v, want one to the port named http, one to grpc", r.service.Spec.Ports)
	}
	sel, err := metav1.LabelSelectorAsSelector(r.pdb.Spec.Selector)
	if err != nil || !sel.Matches(pods) {
		t.Errorf("the PodDisruptionBudget's selector %v does not select the pods (%v)", r.pdb.Spec.Selector, err)
	}
	if m := r.pdb.Spec.MinAvailable; m == nil || m.IntValue() < 1 || int32(m.IntValue()) >= *r.deploy.Spec.Replicas {
		t.Errorf("minAvailable %v: want at least 1 and fewer than the %d replicas, so that a node drains", m, *r.deploy.Spec.Replicas)
	}
	sm := r.monitor
	sel, err = metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(r.service.Labels)) {
		t.Errorf("the ServiceMonitor's selector %v does not select the Service %v (%v)", sm.Spec.Selector, r.service.Labels, err)
	}
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("%d endpoints, want 1", len(sm.Spec.Endpoints))
	}
	ep := sm.Spec.Endpoints[0]
	if ep.Port != r.service.Spec.Ports[0].Name || ep.Path != "/metrics" {
		t.Errorf("the ServiceMonitor scrapes port %q path %q, want %q /metrics", ep.Port, ep.Path, r.service.Spec.Ports[0].Name)
	}
	if a := ep.Authorization; a == nil || a.Type != "Bearer" || a.Credentials == nil || a.Credentials.Name != r.secret.Name || a.Credentials.Key != "monitor" {
		t.Errorf("the ServiceMonitor's authorization %+v, want the Bearer token of the Secret's key monitor", a)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.secret.StringData {
			if !yield(k) {
				return
			}
		}
	})
	if want := []string{"dsn", "ids", "monitor", "store"}; !slices.Equal(keys, want) {
		t.Errorf("the Secret's keys %v, want %v", keys, want)
	}
}

// TestChart_ExposesTheGRPCPort checks that the gRPC listener of cosid serve is on
// (--grpc-addr on grpc.port), a port of the pod and of the Service named grpc, and
// that grpc.enabled=false leaves all three out.
func TestChart_ExposesTheGRPCPort(t *testing.T) {
	for _, tt := range []struct {
		name string
		sets []string
		port int32 // 0: no gRPC listener
	}{
		{"Default", nil, 8687},
		{"OtherPort", []string{"grpc.port=9090"}, 9090},
		{"Off", []string{"grpc.enabled=false"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := render(t, tt.sets...)
			c := r.deploy.Spec.Template.Spec.Containers[0]
			var args []string
			for _, a := range c.Args {
				if strings.HasPrefix(a, "--grpc-addr") {
					args = append(args, a)
				}
			}
			var pod, svc []string
			for _, p := range c.Ports {
				if p.Name == "grpc" {
					pod = append(pod, strconv.Itoa(int(p.ContainerPort)))
				}
			}
			for _, p := range r.service.Spec.Ports {
				if p.TargetPort.String() == "grpc" {
					svc = append(svc, p.Name+":"+strconv.Itoa(int(p.Port)))
				}
			}
			var want [3]string
			if tt.port != 0 {
				n := strconv.Itoa(int(tt.port))
				want = [3]string{"--grpc-addr=0.0.0.0:" + n, n, "grpc:" + n}
			}
			got := [3]string{strings.Join(args, " "), strings.Join(pod, " "), strings.Join(svc, " ")}
			if got != want {
				t.Errorf("flag, pod port, Service port = %q, want %q", got, want)
			}
		})
	}
}

func TestChart_RefusesValuesThatWouldNotRun(t *testing.T) {
	tests := []struct {
		name    string
		sets    []string
		mention string
	}{
		{"UnknownRole", []string{"secret.roles={ids,stor}"}, "secret.roles"},
		{"CreatedSecretWithoutAToken", []string{"secret.create=true,secret.tokens.ids=i"}, "secret.tokens.store"},
		{"SQLiteWithReplicas", []string{"config.cosid.stores.db.driver=sqlite,config.cosid.stores.db.dsn=ids.db"}, "config.cosid.stores.db: a SQLite store"},
		{"MemoryWithReplicas", []string{"replicaCount=3,config.cosid.stores.db.type=memory"}, "config.cosid.stores.db: a memory store"},
		{"NoStoreWithReplicas", []string{"config.cosid.stores=null,config.cosid.generators=null,config.cosid.serve=null"}, "config.cosid.stores: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"template", release, chartDir}
			for _, s := range tt.sets {
				args = append(args, "--set", s)
			}
			out, err := helmRun(t, args...)
			if err == nil {
				t.Fatalf("helm template rendered:\n%s", out)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("the refusal does not name %s: %v", tt.mention, err)
			}
		})
	}
}

func TestStatefulSetExample_TakesMachineIDsFromItsOrdinals(t *testing.T) {
	data, err := os.ReadFile("k8s/snowflake-statefulset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := DecodeObjects(data)
	if err != nil {
		t.Fatal(err)
	}
	var (
		sts *appsv1.StatefulSet
		svc *corev1.Service
		cm  *corev1.ConfigMap
	)
	for _, o := range objs {
		switch v := o.Value.(type) {
		case *appsv1.StatefulSet:
			sts = v
		case *corev1.Service:
			svc = v
		case *corev1.ConfigMap:
			cm = v
		default:
			t.Fatalf("the example has a %s the test does not check", o.Kind)
		}
	}
	if sts == nil || svc == nil || cm == nil {
		t.Fatalf("objects %v, want a StatefulSet, its headless Service and its ConfigMap", objs)
	}
	if sts.Spec.ServiceName != svc.Name || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("serviceName %q, Service %s of clusterIP %q: want the headless Service", sts.Spec.ServiceName, svc.Name, svc.Spec.ClusterIP)
	}
	pod := &sts.Spec.Template.Spec
	checkPod(t, pod)
	host := slices.IndexFunc(pod.Containers[0].Env, func(e corev1.EnvVar) bool {
		return e.Name == "HOSTNAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name"
	})
	if host < 0 {
		t.Error("HOSTNAME is not the pod's name, whose ordinal from-hostname reads")
	}
	cfg, err := cosid.ParseConfig([]byte(cm.Data["cosid.yaml"]))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := cfg.Generators["event"]
	if !ok || g.Strategy != cosid.StrategySnowflake {
		t.Fatalf("generators %v, want the snowflake event", cfg.Generators)
	}
	checkStateVolume(t, sts, g.StateFile)
	// Every ordinal the StatefulSet makes is a machine of the layout; one past it is refused.
	for ord := range *sts.Spec.Replicas {
		t.Setenv("HOSTNAME", sts.Name+"-"+strconv.Itoa(int(ord)))
		if err := cfg.Validate(); err != nil {
			t.Errorf("pod %s-%d: %v", sts.Name, ord, err)
		}
	}
	t.Setenv("HOSTNAME", sts.Name+"-1024")
	if err := cfg.Validate(); err == nil {
		t.Error("pod orders-1024, past the layout's 1024 machines, validates: machine-id is not from-hostname")
	}
	// Off the cluster (cosid config check in CI, on a laptop) the host name has no
	// ordinal: an offline check leaves from-hostname to the pod.
	t.Setenv("HOSTNAME", "vm")
	if err := cfg.Offline().Validate(); err != nil {
		t.Errorf("the example's cosid.yaml, checked offline on host vm: %v", err)
	}
}

// checkStateVolume checks that the state file of the StatefulSet's fixed machine
// id lies on a volume of the pod's own that outlives it: a claim of
// volumeClaimTemplates mounted writable at the file's directory, not an emptyDir.
func checkStateVolume(t *testing.T, sts *appsv1.StatefulSet, stateFile string) {
	t.Helper()
	if stateFile == "" || !path.IsAbs(stateFile) {
		t.Fatalf("state-file %q, want an absolute path on the pod's volume: a restart with the clock set back would repeat ids", stateFile)
	}
	c := sts.Spec.Template.Spec.Containers[0]
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.MountPath == path.Dir(stateFile) && !m.ReadOnly
	})
	if i < 0 {
		t.Fatalf("no writable volume is mounted at %s, the state file's directory", path.Dir(stateFile))
	}
	name := c.VolumeMounts[i].Name
	if !slices.ContainsFunc(sts.Spec.VolumeClaimTemplates, func(pvc corev1.PersistentVolumeClaim) bool { return pvc.Name == name }) {
		t.Errorf("the state file's volume %q is no claim of volumeClaimTemplates: it would not outlive the pod", name)
	}
	if slices.ContainsFunc(sts.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == name }) {
		t.Errorf("the pod declares the volume %q itself, which shadows the claim", name)
	}
	if fs := sts.Spec.Template.Spec.SecurityContext.FSGroup; fs == nil || *fs != *sts.Spec.Template.Spec.SecurityContext.RunAsUser {
		t.Errorf("fsGroup %v: the claim is not writable by the container's user", fs)
	}
}

// TestChart_RateLimitsReachTheServer checks that the chart's values carry
// serve.limits.rate into the ConfigMap's cosid.yaml: written out and off (0) by
// default, so that an operator sees the settings there, and the values a release
// sets, which the configuration accepts.
func TestChart_RateLimitsReachTheServer(t *testing.T) {
	tests := []struct {
		name string
		sets []string
		want cosid.ServeRate
	}{
		{"OffByDefault", nil, cosid.ServeRate{}},
		{"Set", []string{"config.cosid.serve.limits.rate.ids-per-second=20000,config.cosid.serve.limits.rate.burst=100000,config.cosid.serve.limits.rate.new-keys-per-second=10"},
			cosid.ServeRate{IDsPerSecond: 20000, Burst: 100000, NewKeysPerSecond: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := render(t, tt.sets...)
			cfg, err := cosid.ParseConfig([]byte(r.configMap.Data["cosid.yaml"]))
			if err != nil {
				t.Fatalf("the ConfigMap's cosid.yaml: %v", err)
			}
			var raw struct {
				Cosid struct {
					Serve struct {
						Limits struct {
							Rate map[string]any `json:"rate"`
						} `json:"limits"`
					} `json:"serve"`
				} `json:"cosid"`
			}
			if err := yaml.Unmarshal([]byte(r.configMap.Data["cosid.yaml"]), &raw); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"ids-per-second", "burst", "new-keys-per-second"} {
				if _, ok := raw.Cosid.Serve.Limits.Rate[k]; !ok {
					t.Errorf("the ConfigMap's cosid.yaml has no serve.limits.rate.%s: %v", k, raw.Cosid.Serve.Limits.Rate)
				}
			}
			if got := cfg.Serve.Limits.Rate; got != tt.want {
				t.Fatalf("serve.limits.rate = %+v, want %+v", got, tt.want)
			}
			if cfg.Serve.Store != "db" {
				t.Errorf("serve.store = %q, want db", cfg.Serve.Store)
			}
			if err := cfg.Offline().Validate(); err != nil {
				t.Errorf("the ConfigMap's cosid.yaml, checked offline: %v", err)
			}
		})
	}
}

// heldStreamBytes is the most heap a StreamRanges call held open and unread costs
// the server (docs/server.md, "Streams": about 1 MB on the gRPC listener,
// BenchmarkStreamMemory in server/).
const heldStreamBytes = 1 << 20

// TestChart_HeldStreamsFitTheMemoryLimit: with the default values, the streams
// serve.limits.max-streams lets callers hold, at their cost each, and the memory the
// pod requests for the rest fit the container's memory limit, so that holding
// every stream cannot get the pod killed for memory.
func TestChart_HeldStreamsFitTheMemoryLimit(t *testing.T) {
	r := render(t)
	cfg, err := cosid.ParseConfig([]byte(r.configMap.Data["cosid.yaml"]))
	if err != nil {
		t.Fatalf("the ConfigMap's cosid.yaml: %v", err)
	}
	most := int64(cfg.Serve.Limits.MaxStreams)
	if most == 0 {
		most = 256 // the server's default
	}
	res := r.deploy.Spec.Template.Spec.Containers[0].Resources
	limit, base := res.Limits.Memory().Value(), res.Requests.Memory().Value()
	if need := most*heldStreamBytes + base; limit == 0 || need > limit {
		t.Fatalf("max-streams %d × %d bytes + the %d requested = %d bytes, over the memory limit of %d: lower cosid.serve.limits.max-streams in config, or raise resources.limits.memory",
			most, heldStreamBytes, base, need, limit)
	}
}
