// Package deploy holds the tests of the deployment files of this directory: the
// container image that image.sh builds (image_test.go), the Helm chart helm/cosid
// and the example manifests of k8s/ (chart_test.go). Its one function decodes
// rendered Kubernetes objects strictly, so that a misspelt field is an error
// instead of a setting the cluster silently drops.
package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one decoded Kubernetes object: a *corev1.ConfigMap, *corev1.Secret,
// *corev1.Service, *appsv1.Deployment, *appsv1.StatefulSet,
// *policyv1.PodDisruptionBudget or *monitoringv1.ServiceMonitor.
type Object struct {
	Kind string // the object's kind, as in its YAML
	Name string // metadata.name
	// Value is the typed object.
	Value any
}

// newObject returns an empty value of the type of apiVersion and kind, or nil for
// a kind that DecodeObjects does not know.
func newObject(apiVersion, kind string) any {
	switch apiVersion + " " + kind {
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}
	case "v1 Secret":
		return &corev1.Secret{}
	case "v1 Service":
		return &corev1.Service{}
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}
	case "apps/v1 StatefulSet":
		return &appsv1.StatefulSet{}
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	case "monitoring.coreos.com/v1 ServiceMonitor":
		return &monitoringv1.ServiceMonitor{}
	}
	return nil
}

// DecodeObjects decodes the YAML documents of data (helm template's output, a
// manifest file) into the k8s.io/api types of their kinds, strictly: a field the
// type lacks (a misspelling), a field given twice, or a kind it does not know is
// an error that names the document's position and kind. Empty documents (a
// template that rendered nothing, comments only) are skipped.
func DecodeObjects(data []byte) ([]Object, error) {
	var objs []Object
	for i, doc := range splitDocuments(data) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if tm.APIVersion == "" && tm.Kind == "" {
			if isBlank(doc) {
				continue
			}
			return nil, fmt.Errorf("document %d has neither apiVersion nor kind", i+1)
		}
		v := newObject(tm.APIVersion, tm.Kind)
		if v == nil {
			return nil, fmt.Errorf("document %d: apiVersion %q kind %q is none the decoder knows: add its type to newObject", i+1, tm.APIVersion, tm.Kind)
		}
		if err := unmarshalStrict(doc, v); err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i+1, tm.Kind, err)
		}
		meta, ok := v.(metav1.Object)
		if !ok {
			return nil, fmt.Errorf("document %d (%s): no metadata", i+1, tm.Kind)
		}
		objs = append(objs, Object{Kind: tm.Kind, Name: meta.GetName(), Value: v})
	}
	return objs, nil
}

// unmarshalStrict decodes the YAML doc into v as the API server does a strict
// request: yaml.UnmarshalStrict alone matches JSON names without regard to case (as
// encoding/json does), so readOnlyRootFileSystem would set readOnlyRootFilesystem
// here while the API server drops it. sigs.k8s.io/json matches them exactly.
func unmarshalStrict(doc []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(doc) // a key given twice is an error
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(j, v, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// splitDocuments splits a YAML stream at its "---" lines.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	for line := range bytes.Lines(data) {
		if t := strings.TrimRight(string(line), " \t\r\n"); t == "---" || strings.HasPrefix(t, "--- ") {
			docs = append(docs, bytes.Clone(cur.Bytes()))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	return append(docs, cur.Bytes())
}

// isBlank reports whether doc holds nothing but white space and comments.
func isBlank(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		t := strings.TrimSpace(string(line))
		if t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}
