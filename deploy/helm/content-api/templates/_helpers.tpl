{{/* Names, labels and the pieces every component shares. Templates never hand-build names. */}}

{{- define "content-api.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* <release>-<chart>, or the release name alone when it already contains the chart name. */}}
{{- define "content-api.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "content-api.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "content-api.selectorLabels" -}}
app.kubernetes.io/name: {{ include "content-api.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "content-api.labels" -}}
helm.sh/chart: {{ include "content-api.chart" . }}
{{ include "content-api.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "content-api.name" . }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Usage: include "content-api.componentLabels" (dict "ctx" $ "component" "gateway") */}}
{{- define "content-api.componentLabels" -}}
{{ include "content-api.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "content-api.componentSelectorLabels" -}}
{{ include "content-api.selectorLabels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* <fullname>-<component>: the name of a component's Deployment and Service. */}}
{{- define "content-api.componentName" -}}
{{- printf "%s-%s" (include "content-api.fullname" .ctx | trunc 55 | trimSuffix "-") .component }}
{{- end }}

{{/*
The address a client dials: every pod of the backend's headless Service, balanced round_robin by the
gRPC client, which re-resolves when a connection ends (GRPC_MAX_CONNECTION_AGE_MS).
*/}}
{{- define "content-api.serviceAddr" -}}
{{- $values := index .ctx.Values .component }}
{{- printf "dns:///%s.%s.svc.%s:%d" (include "content-api.componentName" .) .ctx.Release.Namespace .ctx.Values.clusterDomain (int $values.port) }}
{{- end }}

{{- define "content-api.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "content-api.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The CloudNativePG Cluster of postgres.cluster: its Services are <name>-rw, -ro, -r; its app Secret <name>-app. */}}
{{- define "content-api.pgClusterName" -}}
{{- printf "%s-pg" (include "content-api.fullname" . | trunc 50 | trimSuffix "-") }}
{{- end }}

{{/* A component's image: its own `image` keys, else the global ones; a digest wins over any tag. */}}
{{- define "content-api.image" -}}
{{- $global := .ctx.Values.image }}
{{- $own := (index .ctx.Values .component).image | default dict }}
{{- $name := printf "%s/%s" ($own.registry | default $global.registry) ($own.repository | default (printf "%s-%s" $global.repository .component)) }}
{{- if $own.digest }}
{{- printf "%s@%s" $name $own.digest }}
{{- else }}
{{- printf "%s:%s" $name ($own.tag | default $global.tag | default .ctx.Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* Whether a component may run more than one pod: the pod count it asks for, at most. */}}
{{- define "content-api.maxPods" -}}
{{- $values := index .ctx.Values .component }}
{{- if $values.autoscaling.enabled }}{{ int $values.autoscaling.maxReplicas }}{{ else }}{{ int $values.replicaCount }}{{ end }}
{{- end }}

{{/*
Refuses values that would render but not run, listing every problem at once
(values.schema.json checks shapes: lengths, `latest` tags, unknown keys; this checks combinations).
*/}}
{{- define "content-api.validateValues" -}}
{{- $v := .Values }}
{{- $errors := list }}
{{- $errors = concat $errors (include "content-api.secretErrors" . | fromJsonArray) }}
{{- if and $v.postgres.cluster.enabled (ne $v.store "postgres") }}
{{- $errors = append $errors (printf "postgres.cluster.enabled needs store=postgres (store is %s)" $v.store) }}
{{- end }}
{{- range $c := list "gateway" "objects" "auth" "poster" }}
{{- $cv := index $v $c }}
{{- if and $cv.autoscaling.enabled (gt (int $cv.autoscaling.minReplicas) (int $cv.autoscaling.maxReplicas)) }}
{{- $errors = append $errors (printf "%s.autoscaling.minReplicas must not exceed maxReplicas" $c) }}
{{- end }}
{{- if eq (int $cv.port) (int $v.metrics.port) }}
{{- $errors = append $errors (printf "metrics.port must differ from %s.port (metrics have a port of their own)" $c) }}
{{- end }}
{{- end }}
{{- /* The one rule for how many pods a stateful backend may run. */}}
{{- if eq $v.store "sqlite" }}
{{- range $c := list "objects" "auth" "poster" }}
{{- if (index $v $c).autoscaling.enabled }}
{{- $errors = append $errors (printf "%s.autoscaling.enabled must be false with store=sqlite (one database file or media directory per pod)" $c) }}
{{- else if gt (int (index $v $c).replicaCount) 1 }}
{{- $errors = append $errors (printf "%s.replicaCount must be 0 or 1 with store=sqlite (one database file or media directory per pod)" $c) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (eq $v.store "sqlite") $v.persistence.enabled (not (has "ReadWriteOnce" $v.persistence.accessModes)) (not (has "ReadWriteOncePod" $v.persistence.accessModes)) (not (has "ReadWriteMany" $v.persistence.accessModes)) }}
{{- $errors = append $errors "persistence.accessModes must let the pod write (ReadWriteOnce, ReadWriteOncePod or ReadWriteMany) with store=sqlite" }}
{{- end }}
{{- if and (gt (int (include "content-api.maxPods" (dict "ctx" $ "component" "auth"))) 1) (not $v.redis.enabled) }}
{{- $errors = append $errors "more than one auth pod (replicaCount or autoscaling.maxReplicas > 1) needs redis.enabled (revocations must be shared)" }}
{{- end }}
{{- /* what the gateway and the objects service share comes from one value, never from one side's extraEnv */}}
{{- $shared := list }}
{{- range include "content-api.sharedReadEnv" . | fromYamlArray }}
{{- $shared = append $shared .name }}
{{- end }}
{{- range $c := list "gateway" "objects" }}
{{- range (index $v $c).extraEnv }}
{{- if has .name $shared }}
{{- $errors = append $errors (printf "%s.extraEnv sets %s: set it with readRules or includeBudget, which reach the gateway and the objects service alike" $c .name) }}
{{- end }}
{{- end }}
{{- end }}
{{- $budgetMs := add (mul (int64 $v.process.preStopSleepSeconds) 1000) (int64 $v.process.shutdownTimeoutMs) }}
{{- if le (mul (int64 $v.process.terminationGracePeriodSeconds) 1000) $budgetMs }}
{{- $errors = append $errors (printf "process.terminationGracePeriodSeconds must exceed preStopSleepSeconds + shutdownTimeoutMs/1000 (%d ms)" $budgetMs) }}
{{- end }}
{{- if and $v.admin.bootstrap.enabled (not $v.secrets.adminPassword) (include "content-api.secretSource" (dict "ctx" . "name" "ADMIN_PASSWORD") | fromJson).chart }}
{{- $errors = append $errors "admin.bootstrap.enabled needs the administrator's password: secrets.adminPassword, secrets.existingSecrets.adminPassword.name, or ADMIN_PASSWORD in secrets.existingSecret" }}
{{- end }}
{{- if $errors }}
{{- fail (printf "\ncontent-api: invalid values:\n  - %s" (join "\n  - " $errors)) }}
{{- end }}
{{- end }}
