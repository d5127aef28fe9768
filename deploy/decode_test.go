package deploy

import (
	"strings"
	"testing"
)

func FuzzDecodeObjects(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\ndata: { k: v }\n---\n# nothing\n"))
	f.Add([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: d }\nspec: { replicas: 2, replicaz: 3 }\n"))
	f.Add([]byte("kind: Service\napiVersion: v1\nmetadata: { name: s }\n--- \napiVersion: v9\nkind: Nope\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := DecodeObjects(data)
		if err != nil {
			return
		}
		for _, o := range objs {
			if o.Value == nil || o.Kind == "" {
				t.Fatalf("decoded %+v without a kind or a value", o)
			}
			if newObject("", o.Kind) != nil {
				t.Fatalf("kind %s decoded without its apiVersion", o.Kind)
			}
		}
	})
}

func TestDecodeObjects_RefusesWhatTheClusterWouldDrop(t *testing.T) {
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: d }\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          securityContext: { %s: true }\n"
	tests := []struct {
		name, doc, mention string
	}{
		{"MisspeltField", strings.Replace(deployment, "%s", "readOnlyRootFileSystem", 1), "readOnlyRootFileSystem"},
		{"FieldTwice", "apiVersion: v1\nkind: Service\nmetadata: { name: s, name: t }\n", "name"},
		{"UnknownKind", "apiVersion: v1\nkind: Pods\nmetadata: { name: p }\n", "Pods"},
		{"NoKind", "metadata: { name: p }\n", "neither apiVersion nor kind"},
		{"FieldOfTheWrongType", "apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: d }\nspec: { replicas: two }\n", "replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeObjects([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("DecodeObjects: %v, want an error naming %q", err, tt.mention)
			}
		})
	}
	objs, err := DecodeObjects([]byte(strings.Replace(deployment, "%s", "readOnlyRootFilesystem", 1) + "---\n# empty\n"))
	if err != nil || len(objs) != 1 || objs[0].Kind != "Deployment" || objs[0].Name != "d" {
		t.Fatalf("the well-spelt Deployment: %+v, %v", objs, err)
	}
}
