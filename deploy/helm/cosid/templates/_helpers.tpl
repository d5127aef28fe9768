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
