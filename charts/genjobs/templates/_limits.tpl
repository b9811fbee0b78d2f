{{/* Per-tenant limits (values `limits:`, docs/limits.md), for the api and the controller. */}}
{{- define "genjobs.limitsEnv" -}}
- name: GENJOBS_RATE_LIMIT_RPS
  value: {{ .Values.limits.requestsPerSecond | quote }}
- name: GENJOBS_RATE_LIMIT_BURST
  value: {{ .Values.limits.requestBurst | quote }}
- name: GENJOBS_MAX_LIVE_JOBS
  value: {{ .Values.limits.maxLiveJobs | quote }}
- name: GENJOBS_MAX_LIVE_UPLOADS
  value: {{ .Values.limits.maxLiveUploads | quote }}
- name: GENJOBS_MAX_UPLOAD_BYTES
  value: {{ .Values.limits.maxUploadBytes | int64 | quote }}
- name: GENJOBS_MAX_EVENT_STREAMS
  value: {{ .Values.limits.maxEventStreams | quote }}
- name: GENJOBS_CANCELLED_JOB_TTL
  value: {{ .Values.limits.cancelledJobTtl | toString | quote }}
- name: GENJOBS_UPLOAD_EXPIRED_RETENTION
  value: {{ .Values.limits.uploadExpiredRetention | toString | quote }}
- name: GENJOBS_CATALOG_REMOVAL_GRACE
  value: {{ .Values.limits.catalogRemovalGrace | toString | quote }}
{{- end -}}
