{{/* Names: every object is <fullname>-<part>; fullname is the release name unless overridden. */}}
{{- define "genjobs.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "genjobs.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "genjobs.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "genjobs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: genjobs
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: pass (dict "ctx" $ "component" "api"). */}}
{{- define "genjobs.selectorLabels" -}}
app.kubernetes.io/name: {{ include "genjobs.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "genjobs.componentLabels" -}}
{{ include "genjobs.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "genjobs.image" -}}
{{- $img := .image -}}
{{- if $img.digest -}}
{{ $img.repository }}@{{ $img.digest }}
{{- else -}}
{{ $img.repository }}:{{ default .ctx.Chart.AppVersion $img.tag }}
{{- end -}}
{{- end -}}

{{- /* The chart's image, each of repository, tag and digest replaced by worker.image's when
set. A worker repository starts from no tag (the chart's version); a worker repository or
tag drops the chart's digest. */}}
{{- define "genjobs.workerImage" -}}
{{- $w := .Values.worker.image -}}
{{- $img := .Values.image -}}
{{- $tag := $w.tag | default (ternary "" ($img.tag | default "") (not (empty $w.repository))) -}}
{{- $digest := $w.digest | default (ternary "" ($img.digest | default "") (or (not (empty $w.repository)) (not (empty $w.tag)))) -}}
{{ include "genjobs.image" (dict "ctx" . "image" (dict "repository" ($w.repository | default $img.repository) "tag" $tag "digest" $digest)) }}
{{- end -}}

{{- define "genjobs.serviceAccountName" -}}
{{- $sa := index .ctx.Values.serviceAccount .component -}}
{{- default (printf "%s-%s" (include "genjobs.fullname" .ctx) .component) $sa.name -}}
{{- end -}}

{{- define "genjobs.blobSecretName" -}}
{{- default (printf "%s-blob" (include "genjobs.fullname" .)) .Values.blob.secret.existingSecret -}}
{{- end -}}

{{- define "genjobs.webhookSecretNamespace" -}}
{{- $ns := default (printf "%s-webhooks" .Release.Namespace) .Values.webhooks.secretNamespace -}}
{{- /* The controller reads Secrets there and the admin Role writes them: a shared namespace
would hand both every Secret in it. */}}
{{- if has $ns (list "kube-system" "kube-public" "kube-node-lease" "default") -}}
{{- fail (printf "webhooks.secretNamespace %s is shared: the controller could read its Secrets and the genjobs admins write them; name a namespace that holds only the webhook secrets (the default: <release namespace>-webhooks)" $ns) -}}
{{- end -}}
{{- $ns -}}
{{- end -}}

{{- define "genjobs.leaseName" -}}
{{- default (printf "%s-controller" (include "genjobs.fullname" .)) .Values.controller.leaderElection.leaseName -}}
{{- end -}}

{{- define "genjobs.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{ .Values.publicUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{ ternary "https" "http" .Values.ingress.tls.enabled }}://{{ .Values.ingress.host }}
{{- else -}}
http://127.0.0.1:8080
{{- end -}}
{{- end -}}

{{- define "genjobs.blobInternalUrl" -}}
{{- default (printf "http://%s-api:%d/files" (include "genjobs.fullname" .) (int .Values.api.service.port)) .Values.blob.internalUrl -}}
{{- end -}}

{{/* A number or a duration from the values, as the processes read it. A number in a values
file reaches the template as a float, which prints as 3.1536e+07 from 1,000,000 up (and the
processes refuse that); a whole one is printed as an integer. --set gives integers already. */}}
{{- define "genjobs.number" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{- define "genjobs.plans" -}}
{{- $parts := list -}}
{{- range $plan, $max := .Values.plans -}}
{{- $parts = append $parts (printf "%s=%d" $plan (int $max)) -}}
{{- end -}}
{{- join "," $parts -}}
{{- end -}}

{{/* The restricted Pod Security profile, shared by the api and the controller (worker Pods get the same from the controller). */}}
{{- define "genjobs.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "genjobs.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 10001
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Spread replicas over zones and nodes unless the user gave constraints. */}}
{{- define "genjobs.topologySpread" -}}
{{- if .constraints -}}
{{ toYaml .constraints }}
{{- else -}}
{{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
- maxSkew: 1
  topologyKey: {{ $key }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "genjobs.selectorLabels" $ | nindent 6 }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* Settings both the api and the controller read. */}}
{{- define "genjobs.commonEnv" -}}
- name: GENJOBS_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: GENJOBS_PUBLIC_URL
  value: {{ include "genjobs.publicUrl" . | quote }}
- name: GENJOBS_PLANS
  value: {{ include "genjobs.plans" . | quote }}
- name: GENJOBS_JOB_TTL
  value: {{ include "genjobs.number" .Values.jobs.ttl | quote }}
- name: GENJOBS_POD_START_TIMEOUT
  value: {{ include "genjobs.number" .Values.jobs.podStartTimeout | quote }}
- name: GENJOBS_QUEUE_TIMEOUT
  value: {{ include "genjobs.number" .Values.jobs.queueTimeout | quote }}
- name: GENJOBS_RETRY_BASE
  value: {{ include "genjobs.number" .Values.jobs.retryBase | quote }}
- name: GENJOBS_MAX_ATTEMPTS
  value: {{ include "genjobs.number" .Values.jobs.maxAttempts | quote }}
- name: GENJOBS_RESERVATION_GRACE
  value: {{ include "genjobs.number" .Values.jobs.reservationGrace | quote }}
- name: GENJOBS_LEASE_TERM
  value: {{ include "genjobs.number" .Values.jobs.leaseTerm | quote }}
- name: GENJOBS_LEASE_GRACE
  value: {{ include "genjobs.number" .Values.jobs.leaseGrace | quote }}
- name: GENJOBS_LEASE_HOLD
  value: {{ include "genjobs.number" .Values.jobs.leaseHold | quote }}
- name: GENJOBS_KUBE_TIMEOUT
  value: {{ include "genjobs.number" .Values.kube.timeout | quote }}
- name: GENJOBS_KUBE_LIST_TIMEOUT
  value: {{ include "genjobs.number" .Values.kube.listTimeout | quote }}
- name: GENJOBS_KUBE_PROBE_INTERVAL
  value: {{ include "genjobs.number" .Values.kube.probeInterval | quote }}
- name: GENJOBS_SETTLE_LINGER
  value: {{ include "genjobs.number" .Values.jobs.settleLinger | quote }}
- name: GENJOBS_WEBHOOK_ALLOW_PRIVATE
  value: {{ .Values.webhooks.allowPrivate | quote }}
- name: GENJOBS_WEBHOOK_CONCURRENCY
  value: {{ include "genjobs.number" .Values.webhooks.concurrency | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{ include "genjobs.limitsEnv" . }}
- name: GENJOBS_BLOB_TYPE
  value: {{ .Values.blob.type | quote }}
- name: GENJOBS_BLOB_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "genjobs.blobSecretName" . }}
      key: {{ .Values.blob.secret.key }}
- name: GENJOBS_BLOB_PREVIOUS_SECRETS
  valueFrom:
    secretKeyRef:
      name: {{ include "genjobs.blobSecretName" . }}
      key: {{ .Values.blob.secret.previousKey }}
      optional: true
- name: GENJOBS_BLOB_INTERNAL_URL
  value: {{ include "genjobs.blobInternalUrl" . | quote }}
{{- include "genjobs.archiveEnv" . }}
{{- with .Values.blob.publicUrl }}
- name: GENJOBS_BLOB_PUBLIC_URL
  value: {{ . | quote }}
{{- end }}
{{- if eq .Values.blob.type "filesystem" }}
- name: GENJOBS_BLOB_DIR
  value: {{ .Values.blob.filesystem.dir | quote }}
{{- else }}
- name: GENJOBS_S3_BUCKET
  value: {{ .Values.blob.s3.bucket | quote }}
- name: GENJOBS_S3_REGION
  value: {{ .Values.blob.s3.region | quote }}
{{- with .Values.blob.s3.endpoint }}
- name: GENJOBS_S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
- name: GENJOBS_S3_FORCE_PATH_STYLE
  value: {{ .Values.blob.s3.forcePathStyle | quote }}
{{- with .Values.blob.s3.credentials }}
{{- if .existingSecret }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .accessKeyIdKey }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .secretAccessKeyKey }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* One release per namespace: the controller of a second one would reconcile every
GenerationJob, Account and catalog ConfigMap of the namespace along with the first's. Its
webhook namespace (<namespace>-webhooks) is the first's too. lookup reads nothing under
`helm template` (nor Argo CD), which the README's install section warns of instead. */}}
{{- define "genjobs.oneReleasePerNamespace" -}}
{{- range (lookup "apps/v1" "Deployment" .Release.Namespace "").items }}
{{- $labels := .metadata.labels | default dict }}
{{- if and (eq (get $labels "app.kubernetes.io/part-of") "genjobs") (eq (get $labels "app.kubernetes.io/component") "controller") (ne (get $labels "app.kubernetes.io/instance") $.Release.Name) }}
{{- fail (printf "namespace %s already runs genjobs (release %q, Deployment %s): install one release per namespace, since both controllers would reconcile every GenerationJob, Account and catalog ConfigMap in it" $.Release.Namespace (get $labels "app.kubernetes.io/instance") .metadata.name) }}
{{- end }}
{{- end }}
{{- end -}}

{{/* A container's env: the chart's variables (.env, a YAML list), each left out when .extra
(api.extraEnv, controller.extraEnv) names it, then .extra. So a name in extraEnv replaces the
chart's: a second entry of one name makes the apiserver warn, `helm upgrade` drop one of
them, and server-side apply refuse the Deployment. */}}
{{- define "genjobs.env" -}}
{{- $named := list -}}
{{- range .extra }}{{ $named = append $named .name }}{{ end -}}
{{- $env := list -}}
{{- range fromYamlArray .env -}}
{{- if not (has .name $named) }}{{ $env = append $env . }}{{ end -}}
{{- end -}}
{{- toYaml (concat $env .extra) -}}
{{- end -}}

{{/* The blob volume and the writable /tmp (the root filesystem is read-only). */}}
{{- define "genjobs.volumes" -}}
- name: tmp
  emptyDir: {}
{{- include "genjobs.archiveVolumes" . }}
{{- if eq .Values.blob.type "filesystem" }}
- name: blobs
  persistentVolumeClaim:
    claimName: {{ default (printf "%s-blobs" (include "genjobs.fullname" .)) .Values.blob.filesystem.persistence.existingClaim }}
{{- end }}
{{- end -}}

{{- define "genjobs.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- include "genjobs.archiveVolumeMounts" . }}
{{- if eq .Values.blob.type "filesystem" }}
- name: blobs
  mountPath: {{ .Values.blob.filesystem.dir }}
{{- end }}
{{- end -}}

{{/* --- Job history (archive) --- */}}
{{- define "genjobs.archiveSecretName" -}}
{{- default (printf "%s-archive" (include "genjobs.fullname" .)) .Values.archive.postgres.existingSecret -}}
{{- end -}}

{{/* Archive settings of the api and the controller: none when the archive is off. */}}
{{- define "genjobs.archiveEnv" -}}
{{- with .Values.archive }}
- name: GENJOBS_ARCHIVE
  value: {{ ternary "postgres" "off" .enabled | quote }}
{{- if .enabled }}
- name: GENJOBS_ARCHIVE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "genjobs.archiveSecretName" $ }}
      key: {{ if .postgres.existingSecret }}{{ .postgres.urlKey }}{{ else }}url{{ end }}
- name: GENJOBS_KEEP_FINISHED
  value: {{ include "genjobs.number" $.Values.jobs.keepFinished | quote }}
- name: GENJOBS_RETENTION
  value: {{ include "genjobs.number" $.Values.jobs.retention | quote }}
- name: GENJOBS_RETENTION_BATCH
  value: {{ include "genjobs.number" .retentionBatch | quote }}
{{- if .postgres.tls.caSecret }}
- name: GENJOBS_ARCHIVE_TLS_CA_FILE
  value: /etc/genjobs/archive-ca/{{ .postgres.tls.caKey }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "genjobs.archiveVolumes" -}}
{{- if and .Values.archive.enabled .Values.archive.postgres.tls.caSecret }}
- name: archive-ca
  secret:
    secretName: {{ .Values.archive.postgres.tls.caSecret }}
{{- end }}
{{- end -}}

{{- define "genjobs.archiveVolumeMounts" -}}
{{- if and .Values.archive.enabled .Values.archive.postgres.tls.caSecret }}
- name: archive-ca
  mountPath: /etc/genjobs/archive-ca
  readOnly: true
{{- end }}
{{- end -}}
{{/* A duration as a person reads it: a number of seconds gets its unit. */}}
{{- define "genjobs.durationText" -}}
{{- if kindIs "string" . }}{{ . }}{{ else }}{{ include "genjobs.number" . }}s{{ end -}}
{{- end -}}
{{/* A duration in seconds: a number of seconds, one as the processes read it (1.5m, 500ms, 7d)
or one of Prometheus (1h30m, 2d, 1w, 1y; a year is 365 days). */}}
{{- define "genjobs.seconds" -}}
{{- if kindIs "string" . -}}
{{- $unit := dict "ms" 0.001 "" 1.0 "s" 1.0 "m" 60.0 "h" 3600.0 "d" 86400.0 "w" 604800.0 "y" 31536000.0 -}}
{{- $total := 0.0 -}}
{{- range regexFindAll "[0-9.]+(ms|[smhdwy])?" . -1 -}}
{{- $n := regexFind "^[0-9.]+" . -}}
{{- $total = addf $total (mulf (float64 $n) (index $unit (trimPrefix $n .))) -}}
{{- end -}}
{{- include "genjobs.number" $total -}}
{{- else -}}
{{- include "genjobs.number" (float64 .) -}}
{{- end -}}
{{- end -}}
{{/* --- end job history --- */}}
