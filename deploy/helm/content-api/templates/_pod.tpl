{{/* Pod and container pieces shared by every component. Arguments: (dict "ctx" $ "component" "<name>"). */}}

{{/*
The claim the chart makes for a backend's /data: with store=sqlite (its files live there), persistence on,
and no claim of its own named. Empty otherwise.
*/}}
{{- define "content-api.chartClaim" -}}
{{- $values := index .ctx.Values .component -}}
{{- if and (eq .ctx.Values.store "sqlite") .ctx.Values.persistence.enabled (not $values.persistence.existingClaim) -}}
{{- printf "%s-data" (include "content-api.componentName" .) -}}
{{- end -}}
{{- end }}

{{/* Pod annotations: a Secret managed by the chart rolls every pod when it changes. */}}
{{- define "content-api.podAnnotations" -}}
{{- $values := index .ctx.Values .component -}}
{{- $annotations := dict -}}
{{- if include "content-api.chartSecretData" .ctx | fromJson -}}
{{- $_ := set $annotations "checksum/secret" (include (print .ctx.Template.BasePath "/secret.yaml") .ctx | sha256sum) -}}
{{- end -}}
{{- with $values.podAnnotations -}}
{{- $annotations = merge $annotations . -}}
{{- end -}}
{{- if $annotations -}}
{{- toYaml $annotations -}}
{{- end -}}
{{- end }}

{{/* Spread constraints: an entry without a labelSelector spreads this component's pods. */}}
{{- define "content-api.topologySpread" -}}
{{- $selector := include "content-api.componentSelectorLabels" . | fromYaml -}}
{{- $constraints := list -}}
{{- range (index .ctx.Values .component).topologySpreadConstraints -}}
{{- $constraint := deepCopy . -}}
{{- if not (hasKey $constraint "labelSelector") -}}
{{- $_ := set $constraint "labelSelector" (dict "matchLabels" $selector) -}}
{{- end -}}
{{- $constraints = append $constraints $constraint -}}
{{- end -}}
{{- with $constraints -}}
{{- toYaml . -}}
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
{{- with $values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with include "content-api.topologySpread" . }}
topologySpreadConstraints:
  {{- . | nindent 2 }}
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

{{/* Environment shared by every component: identity, logging, shutdown, metrics, telemetry. */}}
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
- name: METRICS_PORT
  value: {{ .ctx.Values.metrics.port | int64 | quote }}
{{- if $otel.enabled }}
- name: OTEL_SERVICE_NAME
  value: {{ printf "%s-%s" (include "content-api.name" .ctx) .component | quote }}
- name: OTEL_TRACES_EXPORTER
  value: "otlp"
{{- /* Metrics are scraped from METRICS_PORT (prom-client), never pushed over OTLP. */}}
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

{{/* Credentials of every service: the service token secret, and how access tokens are verified. */}}
{{- define "content-api.identityEnv" -}}
{{ include "content-api.secretEnv" (dict "ctx" . "name" "SERVICE_SECRET") }}
{{ include "content-api.secretEnv" (dict "ctx" . "name" "JWT_SECRET") }}
- name: JWT_ISSUER
  value: {{ .Values.jwt.issuer | quote }}
- name: JWT_ALGORITHM
  value: {{ .Values.jwt.algorithm | quote }}
{{- end }}

{{/*
What the gateway and the objects service must agree on, from one set of values: the read rules (the
objects service answers reads by them, the gateway's live streams pick each caller's events by them) and
the include budget (both check a page against it).
*/}}
{{- define "content-api.sharedReadEnv" -}}
{{- $rules := .Values.readRules -}}
- name: VISIBLE_STATUSES
  value: {{ join "," $rules.visibleStatuses | quote }}
- name: PUBLICATION_WINDOW_FILTER
  value: {{ $rules.publicationWindowFilter | quote }}
- name: WRITER_GROUPS
  value: {{ join "," $rules.writerGroups | quote }}
- name: INCLUDE_BUDGET
  value: {{ .Values.includeBudget | int64 | quote }}
{{- end }}

{{/* Environment of a gRPC backend: bind address, port, connection age and store. */}}
{{- define "content-api.backendEnv" -}}
{{- $values := index .ctx.Values .component -}}
- name: GRPC_HOST
  value: "0.0.0.0"
- name: GRPC_PORT
  value: {{ $values.port | int64 | quote }}
- name: GRPC_MAX_CONNECTION_AGE_MS
  value: {{ .ctx.Values.process.grpcMaxConnectionAgeMs | int64 | quote }}
{{ include "content-api.storeEnv" (dict "ctx" .ctx) }}
- name: MIGRATE_ON_START
  value: {{ include "content-api.migrateOnStart" .ctx | quote }}
{{- end }}

{{/*
The store settings of the backends and of the migration Job (one list, so both open the same stores):
STORE, DATA_DIR, the database URL and its pool settings, the poster's media store.
Arguments: ctx, and optionally chartSecret (see content-api.secretSource) and statementTimeoutMs.
*/}}
{{- define "content-api.storeEnv" -}}
{{- $v := .ctx.Values -}}
- name: DATA_DIR
  value: "/data"
- name: STORE
  value: {{ $v.store | quote }}
{{- /* the poster's media: beside the store (PostgreSQL, GridFS), or a directory under DATA_DIR next to SQLite files */}}
- name: MEDIA_STORE
  value: {{ get (dict "postgres" "postgres" "mongodb" "gridfs" "sqlite" "local") $v.store | quote }}
{{- if eq $v.store "postgres" }}
{{ include "content-api.secretEnv" (dict "ctx" .ctx "name" "DATABASE_URL" "chartSecret" .chartSecret) }}
- name: PG_POOL_SIZE
  value: {{ $v.postgres.poolSize | int64 | quote }}
- name: PG_STATEMENT_TIMEOUT_MS
  value: {{ .statementTimeoutMs | default $v.postgres.statementTimeoutMs | int64 | quote }}
- name: PG_ACQUIRE_TIMEOUT_MS
  value: {{ $v.postgres.acquireTimeoutMs | int64 | quote }}
{{- else if eq $v.store "mongodb" }}
{{ include "content-api.secretEnv" (dict "ctx" .ctx "name" "MONGODB_URL" "chartSecret" .chartSecret) }}
- name: MONGODB_DB
  value: {{ $v.mongodb.database | quote }}
{{- end }}
{{- end }}

{{/* Probes: the gateway over HTTP (/readyz asks its backends, /healthz only the process), backends with native gRPC health. */}}
{{- define "content-api.probes" -}}
{{- $values := index .ctx.Values .component -}}
{{- $ready := dict "grpc" (dict "port" (int $values.port)) -}}
{{- $live := $ready -}}
{{- if eq .component "gateway" -}}
{{- $ready = dict "httpGet" (dict "path" "/readyz" "port" "http") -}}
{{- $live = dict "httpGet" (dict "path" "/healthz" "port" "http") -}}
{{- end -}}
startupProbe:
  {{- toYaml (merge (deepCopy $live) $values.probes.startup) | nindent 2 }}
readinessProbe:
  {{- toYaml (merge (deepCopy $ready) $values.probes.readiness) | nindent 2 }}
livenessProbe:
  {{- toYaml (merge (deepCopy $live) $values.probes.liveness) | nindent 2 }}
{{- end }}

{{/*
A component's Deployment. Arguments: ctx, component, env (the component's own variables, a YAML list),
and for the gateway checksum (of its config file).
*/}}
{{- define "content-api.deployment" -}}
{{- $values := index .ctx.Values .component -}}
{{- $gateway := eq .component "gateway" -}}
{{- $component := dict "ctx" .ctx "component" .component -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "content-api.componentName" $component }}
  labels:
    {{- include "content-api.componentLabels" $component | nindent 4 }}
spec:
  {{- if not $values.autoscaling.enabled }}
  replicas: {{ $values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "content-api.componentSelectorLabels" $component | nindent 6 }}
  {{- if $gateway }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  {{- else if eq .ctx.Values.store "sqlite" }}
  # One pod owns the SQLite file: stop the old pod before the new one opens it.
  strategy:
    type: Recreate
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "content-api.componentLabels" $component | nindent 8 }}
        {{- with $values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- if or .checksum (include "content-api.podAnnotations" $component) }}
      annotations:
        {{- with .checksum }}
        # A changed gateway config file rolls the pods.
        checksum/config: {{ . }}
        {{- end }}
        {{- with include "content-api.podAnnotations" $component }}
        {{- . | nindent 8 }}
        {{- end }}
      {{- end }}
    spec:
      {{- include "content-api.podSpec" $component | nindent 6 }}
      containers:
        - name: {{ .component }}
          {{- include "content-api.containerCommon" $component | nindent 10 }}
          ports:
            - name: {{ ternary "http" "grpc" $gateway }}
              containerPort: {{ $values.port }}
              protocol: TCP
            - name: metrics
              containerPort: {{ .ctx.Values.metrics.port }}
              protocol: TCP
          env:
            {{- include "content-api.commonEnv" $component | nindent 12 }}
            {{- if not $gateway }}
            {{- include "content-api.backendEnv" $component | nindent 12 }}
            {{- end }}
            {{- .env | nindent 12 }}
            {{- with $values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $values.extraEnvFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- include "content-api.probes" $component | nindent 10 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $gateway }}
            - name: config
              mountPath: /etc/content-api
              readOnly: true
            {{- else }}
            - name: data
              mountPath: /data
            {{- end }}
            {{- with $values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: {}
        {{- if $gateway }}
        - name: config
          configMap:
            name: {{ include "content-api.componentName" (dict "ctx" .ctx "component" "gateway-config") }}
        {{- else }}
        - name: data
          {{- with $values.persistence.existingClaim | default (include "content-api.chartClaim" $component) }}
          persistentVolumeClaim:
            claimName: {{ . }}
          {{- else }}
          emptyDir: {}
          {{- end }}
        {{- end }}
        {{- with $values.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end }}

{{/*
A backend's Service: headless, so DNS answers every ready pod and the gRPC clients spread calls over
them (round_robin); a ClusterIP would pin each long-lived connection to one pod.
*/}}
{{- define "content-api.backendService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "content-api.componentName" . }}
  labels:
    {{- include "content-api.componentLabels" . | nindent 4 }}
spec:
  type: ClusterIP
  clusterIP: None
  publishNotReadyAddresses: false
  selector:
    {{- include "content-api.componentSelectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ (index .ctx.Values .component).port }}
      targetPort: grpc
      protocol: TCP
      appProtocol: grpc
    - name: metrics
      port: {{ .ctx.Values.metrics.port }}
      targetPort: metrics
      protocol: TCP
{{- end }}
