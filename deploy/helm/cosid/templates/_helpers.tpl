{{/* cosid.fullname is the name of every object: the release's, with the chart's name unless the release has it. */}}
{{- define "cosid.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* cosid.selectorLabels select the pods of this release. */}}
{{- define "cosid.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* cosid.labels are the labels of every object. */}}
{{- define "cosid.labels" -}}
{{ include "cosid.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* cosid.secretName is the Secret of the tokens and the DSN. */}}
{{- define "cosid.secretName" -}}
{{- .Values.secret.name | default (include "cosid.fullname" .) -}}
{{- end -}}

{{/* cosid.roles checks secret.roles and returns them, one a line. */}}
{{- define "cosid.roles" -}}
{{- range .Values.secret.roles }}
{{- if not (has . (list "ids" "store" "admin" "monitor")) }}
{{- fail (printf "secret.roles: %q is not a role of cosid serve; use ids, store, admin, monitor" .) }}
{{- end }}
{{ . }}
{{- end }}
{{- end -}}

{{/* cosid.checkStores refuses a store of one pod's own (a SQLite file, memory, or no store: the embedded SQLite default) under more than one replica: each pod would hand out the same ids. */}}
{{- define "cosid.checkStores" -}}
{{- if gt (int .Values.replicaCount) 1 }}
{{- $stores := (.Values.config.cosid | default dict).stores | default dict }}
{{- if not $stores }}
{{- fail (printf "config.cosid.stores: none, so each of the %d replicas would use an embedded SQLite file of its own and hand out the same ids: configure a shared store (PostgreSQL, MySQL, Redis, …), or set replicaCount: 1" (int .Values.replicaCount)) }}
{{- end }}
{{- range $name, $st := $stores }}
{{- if or (eq (toString $st.type) "memory") (and (eq (toString $st.type) "sql") (eq (toString $st.driver) "sqlite")) }}
{{- fail (printf "config.cosid.stores.%s: a %s store is one pod's own, so each of the %d replicas would hand out the same ids: use a shared store (PostgreSQL, MySQL, Redis, …), or set replicaCount: 1" $name (ternary "SQLite" "memory" (eq (toString $st.type) "sql")) (int $.Values.replicaCount)) }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}
