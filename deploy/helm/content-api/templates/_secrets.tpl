{{/*
Every secret a pod may read, by its variable: the one table the chart's Secret, every secretKeyRef and the
checks read. An entry: `value` (the chart puts it into its own Secret), `ref` (a Secret of your own for this
value: name, key), `path`/`refPath` (the values keys, for messages), `needed` (the release cannot run
without it). Variables the configuration does not use are absent.
*/}}
{{- define "content-api.secretTable" -}}
{{- $v := .Values -}}
{{- $s := $v.secrets -}}
{{- $own := $s.existingSecrets -}}
{{- $table := dict
  "JWT_SECRET" (dict "value" $s.jwtSecret "ref" $own.jwtSecret "path" "secrets.jwtSecret" "refPath" "secrets.existingSecrets.jwtSecret" "needed" true "hint" " (at least 32 bytes)")
  "SERVICE_SECRET" (dict "value" $s.serviceSecret "ref" $own.serviceSecret "path" "secrets.serviceSecret" "refPath" "secrets.existingSecrets.serviceSecret" "needed" true "hint" " (at least 32 bytes)")
  "MEDIA_SIGNING_KEY" (dict "value" $s.mediaSigningKey "ref" $own.mediaSigningKey "path" "secrets.mediaSigningKey" "refPath" "secrets.existingSecrets.mediaSigningKey" "needed" true "hint" " (at least 32 bytes)")
  "ADMIN_PASSWORD" (dict "value" $s.adminPassword "ref" $own.adminPassword "path" "secrets.adminPassword" "refPath" "secrets.existingSecrets.adminPassword" "needed" false "hint" "")
-}}
{{- if eq $v.store "postgres" -}}
{{- $ref := $v.postgres.existingSecret -}}
{{- if $v.postgres.cluster.enabled -}}
{{- /* CloudNativePG's app Secret: `uri` is postgresql://<owner>:<password>@<cluster>-rw.<namespace>:5432/<database> */ -}}
{{- $ref = dict "name" (printf "%s-app" (include "content-api.pgClusterName" .)) "key" "uri" -}}
{{- end -}}
{{- $_ := set $table "DATABASE_URL" (dict "value" $v.postgres.url "ref" $ref "path" "postgres.url" "refPath" "postgres.existingSecret" "needed" true "hint" " when store=postgres (or postgres.cluster.enabled)") -}}
{{- end -}}
{{- if eq $v.store "mongodb" -}}
{{- $_ := set $table "MONGODB_URL" (dict "value" $v.mongodb.url "ref" $v.mongodb.existingSecret "path" "mongodb.url" "refPath" "mongodb.existingSecret" "needed" true "hint" " when store=mongodb") -}}
{{- end -}}
{{- if $v.redis.enabled -}}
{{- $_ := set $table "REDIS_URL" (dict "value" $v.redis.url "ref" $v.redis.existingSecret "path" "redis.url" "refPath" "redis.existingSecret" "needed" true "hint" " when redis.enabled") -}}
{{- end -}}
{{- toJson $table -}}
{{- end }}

{{/* The name of the chart's own Secret. */}}
{{- define "content-api.secretName" -}}
{{- include "content-api.fullname" . }}
{{- end }}

{{/*
Where a variable is read from, as JSON {name, key, own}: its own Secret, else secrets.existingSecret, else
the chart's Secret (`chartSecret` names another chart-made one, e.g. the migration hook's).
Arguments: ctx, name, and optionally chartSecret.
*/}}
{{- define "content-api.secretSource" -}}
{{- $entry := index (include "content-api.secretTable" .ctx | fromJson) .name | default dict -}}
{{- $ref := $entry.ref | default dict -}}
{{- if $ref.name -}}
{{- toJson (dict "name" $ref.name "key" ($ref.key | default .name) "own" true) -}}
{{- else if .ctx.Values.secrets.existingSecret -}}
{{- toJson (dict "name" .ctx.Values.secrets.existingSecret "key" .name "own" false) -}}
{{- else -}}
{{- toJson (dict "name" (.chartSecret | default (include "content-api.secretName" .ctx)) "key" .name "own" false "chart" true) -}}
{{- end -}}
{{- end }}

{{/* Variable → value of the entries the chart's Secret holds: given as values, with no Secret named for them. */}}
{{- define "content-api.chartSecretData" -}}
{{- $data := dict -}}
{{- range $name, $entry := include "content-api.secretTable" . | fromJson -}}
{{- if and $entry.value (include "content-api.secretSource" (dict "ctx" $ "name" $name) | fromJson).chart -}}
{{- $_ := set $data $name $entry.value -}}
{{- end -}}
{{- end -}}
{{- toJson $data -}}
{{- end }}

{{/* The secret values the release needs and nothing provides, one message each. */}}
{{- define "content-api.secretErrors" -}}
{{- $errors := list -}}
{{- range $name, $entry := include "content-api.secretTable" . | fromJson -}}
{{- if and $entry.needed (not $entry.value) (include "content-api.secretSource" (dict "ctx" $ "name" $name) | fromJson).chart -}}
{{- $errors = append $errors (printf "%s is required%s unless a Secret holds %s: %s.name, or secrets.existingSecret" $entry.path $entry.hint $name $entry.refPath) -}}
{{- end -}}
{{- end -}}
{{- toJson $errors -}}
{{- end }}

{{/*
A variable read from its Secret. Arguments: ctx, name; optional (the key may be missing: only where the
service has a default, and never for a Secret named for this value alone); chartSecret (see secretSource).
*/}}
{{- define "content-api.secretEnv" -}}
{{- $source := include "content-api.secretSource" . | fromJson -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ $source.name }}
      key: {{ $source.key }}
      {{- if and .optional (not $source.own) }}
      optional: true
      {{- end }}
{{- end }}
