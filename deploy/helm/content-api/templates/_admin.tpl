{{/* The admin tool's pods: the toolbox Deployment and the bootstrap Job. Argument: the root context. */}}

{{/* Where the backends are and how calls to them are signed; the administrator is auth.adminUsername. */}}
{{- define "content-api.adminEnv" -}}
- name: OBJECTS_SERVICE_ADDR
  value: {{ include "content-api.serviceAddr" (dict "ctx" . "component" "objects") | quote }}
- name: AUTH_SERVICE_ADDR
  value: {{ include "content-api.serviceAddr" (dict "ctx" . "component" "auth") | quote }}
- name: POSTER_SERVICE_ADDR
  value: {{ include "content-api.serviceAddr" (dict "ctx" . "component" "poster") | quote }}
{{ include "content-api.secretEnv" (dict "ctx" . "name" "SERVICE_SECRET") }}
- name: ADMIN_USERNAME
  value: {{ .Values.auth.adminUsername | quote }}
{{- end }}

{{/* Pod spec fields of an admin pod, up to `containers:`. */}}
{{- define "content-api.adminPodSpec" -}}
serviceAccountName: {{ include "content-api.serviceAccountName" . }}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.image.pullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . }}
  {{- end }}
{{- end }}
{{- end }}

{{/* Container fields of an admin container, after `name:`. */}}
{{- define "content-api.adminContainer" -}}
image: {{ include "content-api.image" (dict "ctx" . "component" "admin") | quote }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
securityContext:
  {{- toYaml .Values.containerSecurityContext | nindent 2 }}
resources:
  {{- toYaml .Values.admin.resources | nindent 2 }}
{{- end }}
