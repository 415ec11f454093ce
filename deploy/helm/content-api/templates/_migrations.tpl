{{/*
Schema migrations. With store=postgres or mongodb the admin tool's `migrate` runs in a Helm hook Job before
the Deployments change, so a long back-fill never runs under a start-up probe, and the services start
with MIGRATE_ON_START=false (a store older than they may run against stops them, naming the command).
With store=sqlite each backend's file lives on its own claim, mounted by its one pod: the service migrates
its file as it opens it (MIGRATE_ON_START=true), as `npm start` does.
*/}}

{{/* "true" when the hook Job is rendered at all. */}}
{{- define "content-api.migrateJob" -}}
{{- if and .Values.migrations.job.enabled (has .Values.store (list "postgres" "mongodb")) }}true{{ end }}
{{- end }}

{{/*
A database the release makes itself (postgres.cluster) does not exist before install, so on install the
Job cannot run first: the services then create its schema as they start (an empty database: nothing to
back-fill), and the Job runs before every upgrade.
*/}}
{{- define "content-api.migrateHooks" -}}
{{- if and (eq .Values.store "postgres") .Values.postgres.cluster.enabled }}pre-upgrade{{ else }}pre-install,pre-upgrade{{ end }}
{{- end }}

{{/* MIGRATE_ON_START of the backends: false wherever the Job has migrated before them. */}}
{{- define "content-api.migrateOnStart" -}}
{{- if and (include "content-api.migrateJob" .) (or .Release.IsUpgrade (not (and (eq .Values.store "postgres") .Values.postgres.cluster.enabled))) }}false{{ else }}true{{ end }}
{{- end }}

{{/* Annotations of every hook resource of the migration: helpers first (-10), then the Job. */}}
{{- define "content-api.migrateHookAnnotations" -}}
helm.sh/hook: {{ include "content-api.migrateHooks" .ctx }}
helm.sh/hook-weight: {{ .weight | quote }}
helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
{{- end }}
