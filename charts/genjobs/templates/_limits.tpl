{{/* Per-tenant limits (values `limits:`, docs/limits.md), for the api and the controller. */}}
{{- define "genjobs.limitsEnv" -}}
- name: GENJOBS_RATE_LIMIT_RPS
  value: {{ include "genjobs.number" .Values.limits.requestsPerSecond | quote }}
- name: GENJOBS_RATE_LIMIT_BURST
  value: {{ include "genjobs.number" .Values.limits.requestBurst | quote }}
- name: GENJOBS_MAX_LIVE_JOBS
  value: {{ include "genjobs.number" .Values.limits.maxLiveJobs | quote }}
- name: GENJOBS_MAX_LIVE_UPLOADS
  value: {{ include "genjobs.number" .Values.limits.maxLiveUploads | quote }}
- name: GENJOBS_MAX_UPLOAD_BYTES
  value: {{ include "genjobs.number" .Values.limits.maxUploadBytes | quote }}
- name: GENJOBS_MAX_EVENT_STREAMS
  value: {{ include "genjobs.number" .Values.limits.maxEventStreams | quote }}
- name: GENJOBS_CANCELLED_JOB_TTL
  value: {{ include "genjobs.number" .Values.limits.cancelledJobTtl | quote }}
- name: GENJOBS_UPLOAD_EXPIRED_RETENTION
  value: {{ include "genjobs.number" .Values.limits.uploadExpiredRetention | quote }}
- name: GENJOBS_CATALOG_REMOVAL_GRACE
  value: {{ include "genjobs.number" .Values.limits.catalogRemovalGrace | quote }}
{{- end -}}
