{{/* Pod and container pieces shared by every component. Arguments: (dict "ctx" $ "component" "<name>"). */}}

{{/* Pod annotations: a Secret managed by the chart rolls every pod when it changes. */}}
{{- define "content-api.podAnnotations" -}}
{{- $values := index .ctx.Values .component -}}
{{- $annotations := dict -}}
{{- if not .ctx.Values.secrets.existingSecret -}}
{{- $_ := set $annotations "checksum/secret" (include (print .ctx.Template.BasePath "/secret.yaml") .ctx | sha256sum) -}}
{{- end -}}
{{- with $values.podAnnotations -}}
{{- $annotations = merge $annotations . -}}
{{- end -}}
{{- if $annotations -}}
{{- toYaml $annotations -}}
{{- end -}}
{{- end }}

{{/* Pod-level settings after `spec:` of the pod template. */}}
{{- define "content-api.podSpec" -}}
{{- $values := index .ctx.Values .component -}}
serviceAccountName: {{ include "content-api.serviceAccountName" .ctx }}
automountServiceAccountToken: {{ .ctx.Values.serviceAccount.automountServiceAccountToken }}
enableServiceLinks: false
terminationGracePeriodSeconds: {{ .ctx.Values.process.terminationGracePeriodSeconds }}
securityContext:
  {{- toYaml .ctx.Values.podSecurityContext | nindent 2 }}
{{- with .ctx.Values.image.pullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . }}
  {{- end }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Container fields every component shares (after `name:`). */}}
{{- define "content-api.containerCommon" -}}
{{- $values := index .ctx.Values .component -}}
image: {{ include "content-api.image" . | quote }}
imagePullPolicy: {{ .ctx.Values.image.pullPolicy }}
securityContext:
  {{- toYaml .ctx.Values.containerSecurityContext | nindent 2 }}
resources:
  {{- toYaml $values.resources | nindent 2 }}
lifecycle:
  preStop:
    exec:
      command: ["sleep", "{{ .ctx.Values.process.preStopSleepSeconds }}"]
{{- end }}

{{/* A variable read from the chart's (or the existing) Secret. */}}
{{- define "content-api.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "content-api.secretName" .ctx }}
      key: {{ .name }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{/* Environment shared by every component: identity, logging, shutdown, telemetry. */}}
{{- define "content-api.commonEnv" -}}
{{- $otel := .ctx.Values.otel -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: LOG_LEVEL
  value: {{ .ctx.Values.process.logLevel | quote }}
- name: SHUTDOWN_TIMEOUT_MS
  value: {{ .ctx.Values.process.shutdownTimeoutMs | int64 | quote }}
{{- if $otel.enabled }}
- name: OTEL_SERVICE_NAME
  value: {{ printf "%s-%s" (include "content-api.name" .ctx) .component | quote }}
- name: OTEL_TRACES_EXPORTER
  value: "otlp"
- name: OTEL_METRICS_EXPORTER
  value: "none"
- name: OTEL_LOGS_EXPORTER
  value: "none"
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $otel.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $otel.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $otel.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $otel.samplerArg | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "k8s.namespace.name=$(POD_NAMESPACE),k8s.pod.name=$(POD_NAME),service.instance.id=$(POD_NAME)%s" (ternary (printf ",%s" $otel.resourceAttributes) "" (ne $otel.resourceAttributes "")) | quote }}
{{- else }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- end }}
{{- end }}

{{/* Environment of a gRPC backend: bind address, port and store. */}}
{{- define "content-api.backendEnv" -}}
{{- $values := index .ctx.Values .component -}}
- name: GRPC_HOST
  value: "0.0.0.0"
- name: GRPC_PORT
  value: {{ $values.port | int64 | quote }}
- name: DATA_DIR
  value: "/data"
- name: STORE
  value: {{ .ctx.Values.store | quote }}
{{- if eq .ctx.Values.store "mongodb" }}
{{ include "content-api.secretEnv" (dict "ctx" .ctx "name" "MONGODB_URL") }}
- name: MONGODB_DB
  value: {{ .ctx.Values.mongodb.database | quote }}
{{- end }}
{{- end }}

{{/*
The component's `env` map, for settings the chart does not set itself. Whole numbers print as
integers (values arrive as float64, which would print 1000000 as 1e+06).
*/}}
{{- define "content-api.extraEnv" -}}
{{- $values := index .ctx.Values .component -}}
{{- range $name, $value := $values.env }}
- name: {{ $name }}
  {{- if and (kindIs "float64" $value) (eq $value (float64 (int64 $value))) }}
  value: {{ int64 $value | toString | quote }}
  {{- else }}
  value: {{ $value | toString | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{/* Volumes: /tmp always; /data from a claim or an emptyDir (backends). */}}
{{- define "content-api.dataVolumes" -}}
{{- $values := index .ctx.Values .component -}}
- name: tmp
  emptyDir: {}
- name: data
  {{- if $values.persistence.existingClaim }}
  persistentVolumeClaim:
    claimName: {{ $values.persistence.existingClaim }}
  {{- else }}
  emptyDir: {}
  {{- end }}
{{- end }}

{{/* gRPC health probes on the backend's own port (the process-level '' service). */}}
{{- define "content-api.grpcProbes" -}}
{{- $values := index .ctx.Values .component -}}
readinessProbe:
  grpc:
    port: {{ $values.port }}
  {{- toYaml $values.probes.readiness | nindent 2 }}
livenessProbe:
  grpc:
    port: {{ $values.port }}
  {{- toYaml $values.probes.liveness | nindent 2 }}
{{- end }}
