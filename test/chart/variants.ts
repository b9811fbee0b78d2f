/** Values the chart is rendered, linted and applied with: each a way users install it. */
export const VARIANTS: Record<string, object> = {
  defaults: {},
  s3: {
    blob: {
      type: 's3',
      publicUrl: 'https://cdn.example.com/genjobs',
      s3: {
        bucket: 'genjobs-outputs',
        region: 'eu-west-1',
        endpoint: 'https://minio.storage.svc:9000',
        forcePathStyle: true,
        credentials: { existingSecret: 'genjobs-s3' },
      },
    },
  },
  'ingress with TLS': {
    ingress: {
      enabled: true,
      className: 'nginx',
      host: 'gen.example.com',
      annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
      tls: { enabled: true },
    },
  },
  'HPA on': {
    api: {
      autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 12, targetMemoryUtilizationPercentage: 80 },
    },
  },
  'monitoring on': {
    metrics: {
      serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
      prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
      grafanaDashboard: { enabled: true },
    },
  },
  'worker defaults and custom catalog': {
    worker: {
      image: { repository: 'registry.example.com/genjobs-worker', tag: 'gpu-1' },
      priorityClassName: 'genjobs-batch',
      resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '2Gi' } },
      nodeSelector: { pool: 'gpu' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    },
    catalog: {
      default: { enabled: false },
      extra: [
        { name: 'studio', data: { 'studio.yaml': 'providers: []\n' } },
        { name: 'shared', content: { categories: [{ id: 'image', name: 'Image' }] } },
      ],
    },
    plans: { free: 1, pro: 50, enterprise: null, team: 10 },
    jobs: { ttl: '3d' },
    logLevel: 'debug',
  },
  'open worker egress, NodeLocal DNSCache, admin group': {
    networkPolicy: {
      worker: {
        dns: [
          { ipBlock: { cidr: '169.254.20.10/32' } },
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
            podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          },
        ],
        publicInternet: true,
        modelServers: [
          { to: [{ ipBlock: { cidr: '203.0.113.0/24' } }], ports: [{ port: 443, protocol: 'TCP' }] },
        ],
      },
    },
    rbac: {
      admin: { subjects: [{ kind: 'Group', name: 'platform-team', apiGroup: 'rbac.authorization.k8s.io' }] },
    },
  },
  'archive on an existing PostgreSQL with TLS': {
    archive: {
      postgres: { bundled: false, existingSecret: 'genjobs-pg', tls: { caSecret: 'genjobs-pg-ca' } },
    },
    jobs: { keepFinished: '5m', retention: '90d' },
  },
  'archive off': { archive: { enabled: false }, jobs: { ttl: '1d' } },
};

/** Values that break values.schema.json, with what helm's message says (mostly the path, `at '/x'`). */
export const BAD_VALUES: Array<{ what: string; values: object; mentions: string }> = [
  { what: 'an unknown log level', values: { logLevel: 'loud' }, mentions: "at '/logLevel'" },
  { what: 'an unknown blob store', values: { blob: { type: 'gcs' } }, mentions: "at '/blob/type'" },
  {
    what: 's3 without a bucket',
    values: { blob: { type: 's3', publicUrl: 'https://cdn.example.com' } },
    mentions: "at '/blob/s3/bucket'",
  },
  {
    what: 's3 without a public URL',
    values: { blob: { type: 's3', s3: { bucket: 'b' } } },
    mentions: "at '/blob/publicUrl'",
  },
  {
    what: 'an ingress without a host',
    values: { ingress: { enabled: true } },
    mentions: "at '/ingress/host'",
  },
  { what: 'replicas as text', values: { api: { replicas: 'two' } }, mentions: "at '/api/replicas'" },
  { what: 'a misspelt key', values: { api: { replica: 3 } }, mentions: "at '/api'" },
  {
    what: 'a plan name with capitals',
    values: { plans: { Gold: 5 } },
    mentions: "at '/plans': additional properties 'Gold' not allowed",
  },
  // The controller's GENJOBS_WORKER_RESOURCES takes requests and limits only: it would crash-loop.
  {
    what: 'worker resource claims',
    values: { worker: { resources: { claims: [{ name: 'gpu' }] } } },
    mentions: "at '/worker/resources': additional properties 'claims' not allowed",
  },
  {
    what: 'an alert duration in words',
    values: { metrics: { prometheusRule: { pendingFor: '2 days' } } },
    mentions: "at '/metrics/prometheusRule/pendingFor'",
  },
  { what: 'a job TTL in words', values: { jobs: { ttl: '7 days' } }, mentions: "at '/jobs/ttl'" },
  {
    what: 'a malformed image digest',
    values: { image: { digest: 'latest' } },
    mentions: "at '/image/digest'",
  },
  {
    what: 'a public URL without a scheme',
    values: { publicUrl: 'gen.example.com' },
    mentions: "at '/publicUrl'",
  },
  {
    what: 'two controllers without leader election',
    values: { controller: { leaderElection: { enabled: false } } },
    mentions: "at '/controller/replicas'",
  },
  { what: 'a port out of range', values: { controller: { port: 70000 } }, mentions: "at '/controller/port'" },
  {
    what: 'a model server rule without peers',
    values: { networkPolicy: { worker: { modelServers: [{ ports: [{ port: 443 }] }] } } },
    mentions: "at '/networkPolicy/worker/modelServers/0'",
  },
  // The apiserver refuses a peer with both: "may not specify both ipBlock and another peer".
  {
    what: 'a DNS peer with an ipBlock and a selector',
    values: {
      networkPolicy: {
        worker: {
          dns: [{ ipBlock: { cidr: '169.254.20.10/32' }, podSelector: { matchLabels: { a: 'b' } } }],
        },
      },
    },
    mentions: "at '/networkPolicy/worker/dns/0': maxProperties",
  },
  {
    what: 'an admin subject of an unknown kind',
    values: { rbac: { admin: { subjects: [{ kind: 'Robot', name: 'r2' }] } } },
    mentions: "at '/rbac/admin/subjects/0/kind'",
  },
  // The api and the controller would each get an emptyDir: neither sees the other's files.
  {
    what: 'the filesystem store without a shared volume',
    values: { blob: { filesystem: { persistence: { enabled: false } } } },
    mentions: "at '/blob/filesystem/persistence/enabled'",
  },
  // The namespace holds Helm's release Secret, written before any object of the chart.
  {
    what: 'a chart-made release namespace',
    values: { namespace: { create: true } },
    mentions: "additional properties 'namespace' not allowed",
  },
  {
    what: 'an archive with neither the bundled PostgreSQL nor a Secret',
    values: { archive: { postgres: { bundled: false } } },
    mentions: "at '/archive/postgres/existingSecret'",
  },
  // What the processes refuse at start (a crash loop), the chart refuses at install.
  {
    what: 'a publicUrl with a query',
    values: { publicUrl: 'https://gen.example.com/?a=1' },
    mentions: "at '/publicUrl'",
  },
  {
    what: 'a worker toleration the controller refuses',
    values: { worker: { tolerations: [{ key: 'gpu', operator: 'exists' }] } },
    mentions: "at '/worker/tolerations/0/operator'",
  },
  { what: 'the plans removed', values: { plans: null }, mentions: "missing property 'plans'" },
  { what: 'no apiserver deadline', values: { kube: { timeout: 0 } }, mentions: "at '/kube/timeout'" },
  // What the apiserver or the kubelet would refuse later.
  {
    what: 'an image repository carrying a tag',
    values: { image: { repository: 'ghcr.io/genjobs/genjobs:1.0' } },
    mentions: "at '/image/repository'",
  },
  { what: 'a tag with its colon', values: { image: { tag: ':1.2' } }, mentions: "at '/image/tag'" },
  {
    what: 'a ServiceAccount not made and not named',
    values: { serviceAccount: { worker: { create: false } } },
    mentions: "at '/serviceAccount/worker/name'",
  },
  {
    what: 'a name that is no DNS label',
    values: { fullnameOverride: 'Bad_Name' },
    mentions: "at '/fullnameOverride'",
  },
  {
    what: 'a volume size that is no quantity',
    values: { archive: { postgres: { persistence: { size: 'lots' } } } },
    mentions: "at '/archive/postgres/persistence/size'",
  },
  {
    what: 'an extra env value that is not a string',
    values: { api: { extraEnv: [{ name: 'A', value: 1 }] } },
    mentions: "at '/api/extraEnv/0/value'",
  },
];

/**
 * Refused by a template's `fail` (what the schema cannot say: values compared with each other,
 * a namespace named): `helm template` and an install fail; `helm lint` only reports it (INFO).
 */
export const REFUSED_AT_RENDER: Array<{ what: string; values: object; mentions: string }> = [
  {
    what: 'leader election timings out of order',
    values: { controller: { leaderElection: { renewDeadline: '20s' } } },
    mentions: 'controller.leaderElection: leaseDuration (15s) > renewDeadline (20s) > retryPeriod (2s) > 0',
  },
  {
    what: 'an autoscaler whose minimum is above its maximum',
    values: {
      api: {
        autoscaling: { enabled: true, targetCPUUtilizationPercentage: 70, minReplicas: 5, maxReplicas: 2 },
      },
    },
    mentions: 'api.autoscaling.minReplicas (5) is above maxReplicas (2)',
  },
  {
    what: 'webhook secrets in a shared namespace',
    values: { webhooks: { secretNamespace: 'kube-system' } },
    mentions: 'webhooks.secretNamespace kube-system is shared',
  },
];
