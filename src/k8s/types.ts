/**
 * TypeScript shapes of the four genjobs.io/v1alpha1 custom resources. They mirror the
 * OpenAPI schemas in crds/ (a test compares the two field by field), so a field added to
 * one without the other fails the build's tests.
 */

export const GROUP = 'genjobs.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }>;
  finalizers?: string[];
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A status condition the Kubernetes way (metav1.Condition). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export const JOB_PHASES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];
export const TERMINAL_PHASES: readonly JobPhase[] = ['completed', 'failed', 'cancelled'];
export function isTerminal(phase: JobPhase | undefined): boolean {
  return phase !== undefined && TERMINAL_PHASES.includes(phase);
}

export const OUTPUT_TYPES = ['video', 'image', 'audio', 'text'] as const;
export type OutputType = (typeof OUTPUT_TYPES)[number];

export interface OutputItem {
  url: string;
  type: OutputType;
  thumbnail?: string;
  posterImage?: string;
}

export interface JobError {
  code: string;
  message: string;
}

export type WebhookState = 'pending' | 'delivered' | 'failed';

export interface WebhookStatus {
  id?: string;
  attempts?: number;
  nextAttemptAt?: string;
  lastResult?: string;
  state?: WebhookState;
  deliveredAt?: string;
}

export interface GenerationJobSpec {
  account: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  costMicroCents: number;
  /**
   * The credit lease (on the Account's status) the api drew the cost from; absent for a
   * job paid by a per-job reservation. Also a label, so a lease's jobs can be listed.
   */
  lease?: string;
  webhookUrl?: string;
  idempotencyKeyHash?: string;
  requestId?: string;
}

export interface GenerationJobStatus {
  phase?: JobPhase;
  progress?: number;
  outputs?: OutputItem[];
  error?: JobError;
  startedAt?: string;
  completedAt?: string;
  refundedMicroCents?: number;
  attempts?: number;
  podName?: string;
  observedGeneration?: number;
  conditions?: Condition[];
  webhook?: WebhookStatus;
}

export interface GenerationJob {
  apiVersion: typeof API_VERSION;
  kind: 'GenerationJob';
  metadata: ObjectMeta;
  spec: GenerationJobSpec;
  status?: GenerationJobStatus;
}

export const UPLOAD_CONTENT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'video/mp4',
  'video/webm',
  'audio/mpeg',
  'audio/wav',
] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];
export type UploadPhase = 'pending' | 'expired';

export interface UploadSpec {
  account: string;
  filename: string;
  contentType: UploadContentType;
  maxSize: number;
  objectKey: string;
  expiresAt: string;
}

export interface UploadStatus {
  phase?: UploadPhase;
  size?: number;
  expiredAt?: string;
}

export interface Upload {
  apiVersion: typeof API_VERSION;
  kind: 'Upload';
  metadata: ObjectMeta;
  spec: UploadSpec;
  status?: UploadStatus;
}

export interface Discount {
  type: string;
  percentage: number;
}

export interface AccountSpec {
  plan: string;
  grantedMicroCents: number;
  segments?: string[];
  allowedModels?: string[];
  discount?: Discount;
}

export interface AccountStatus {
  balanceMicroCents?: number;
  appliedGrantMicroCents?: number;
  /**
   * Total charged for completed jobs; see `imbalance()` in src/ledger/ops.ts for the
   * invariant that ties every field of the ledger together.
   */
  spentMicroCents?: number;
  /** jobId → micro-cents reserved for it until the job settles. */
  reservations?: Record<string, number>;
  /** Open credit leases of api replicas, by lease id (docs/money.md). */
  leases?: Record<string, CreditLease>;
  /** Jobs holding a reservation (jobs paid from a lease are not among them). */
  activeJobs?: number;
  /** Credit held: reservations and open leases less refunds (derived, for operators). */
  heldMicroCents?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

/**
 * Credit an api replica took from the balance to spend on submits that then write only the
 * job. Closed by the Account reconciler once `expiresAt` plus a grace has passed, from the
 * jobs that name it.
 */
export interface CreditLease {
  /** Micro-cents taken from the balance (lowered when the replica returns its remainder). */
  amount: number;
  /** After this instant the replica draws no more from the lease (RFC 3339). */
  expiresAt: string;
  /** jobId → micro-cents given back for a failed or cancelled job of the lease. */
  refunded?: Record<string, number>;
}

export interface Account {
  apiVersion: typeof API_VERSION;
  kind: 'Account';
  metadata: ObjectMeta;
  spec: AccountSpec;
  status?: AccountStatus;
}

export const SCOPES = ['submit_job', 'check_status', 'list_models'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKeySpec {
  account: string;
  scopes: Scope[];
  keyHash: string;
  prefix: string;
  expiresAt?: string;
  disabled?: boolean;
}

export interface ApiKeyStatus {
  lastUsedAt?: string;
}

export interface ApiKey {
  apiVersion: typeof API_VERSION;
  kind: 'ApiKey';
  metadata: ObjectMeta;
  spec: ApiKeySpec;
  status?: ApiKeyStatus;
}

export type GenjobsResource = GenerationJob | Upload | Account | ApiKey;
export type GenjobsKind = GenjobsResource['kind'];

/** The REST plural of each kind. */
export const PLURALS: Record<GenjobsKind, string> = {
  GenerationJob: 'generationjobs',
  Upload: 'uploads',
  Account: 'accounts',
  ApiKey: 'apikeys',
};
