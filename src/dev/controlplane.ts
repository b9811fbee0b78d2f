import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ownDir, type Supervised, startSupervised } from './process.ts';

/** The checkout this module lives in (src/dev or dist/dev, two levels down). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ControlPlaneOptions {
  /** Where etcd data, certificates, keys, logs and the kubeconfig live. Reused when present. */
  dir: string;
  /** Directory with etcd and kube-apiserver; default: built (or reused) by tools/controlplane/build.sh. */
  assetsDir?: string;
  /** Extra kube-apiserver flags. */
  apiServerArgs?: string[];
  /**
   * Restart etcd or kube-apiserver when one exits without being stopped (killed, crashed),
   * on the same ports and data, so clients reconnect by themselves. Dev mode and the crash
   * suite turn it on; tests that stop the apiserver on purpose leave it off.
   */
  supervise?: boolean;
  /** Called after a supervised restart, with the part's name and how long it was away (ms). */
  onRestart?: (name: 'etcd' | 'kube-apiserver', awayMs: number) => void;
}

/** Pause before restarting a part that exited, so a part that cannot start does not spin. */
const RESTART_DELAY_MS = 500;

/**
 * A real Kubernetes control plane on loopback, started the way controller-runtime's envtest
 * does: etcd and kube-apiserver as local processes, RBAC on, an admin token in group
 * system:masters, a service-account signing key. No kubelet and no scheduler: Pods stay
 * Pending unless the dev node agent binds them.
 */
export class ControlPlane {
  readonly dir: string;
  readonly assetsDir: string;
  readonly kubeconfigPath: string;
  private readonly extraArgs: string[];
  private readonly options: ControlPlaneOptions;
  private stopping = false;
  private etcdPorts?: [number, number];
  private etcd?: Supervised;
  private apiServer?: Supervised;
  private etcdUrl = '';
  private apiPort = 0;
  private token = '';
  private ca = '';

  private constructor(options: ControlPlaneOptions, assetsDir: string) {
    this.dir = options.dir;
    this.assetsDir = assetsDir;
    this.kubeconfigPath = join(options.dir, 'kubeconfig');
    this.extraArgs = options.apiServerArgs ?? [];
    this.options = options;
  }

  static async start(options: ControlPlaneOptions): Promise<ControlPlane> {
    const assets = options.assetsDir ?? (await resolveAssets());
    const cp = new ControlPlane(options, assets);
    await cp.prepare();
    await cp.startEtcd();
    await cp.startApiServer();
    return cp;
  }

  get serverUrl(): string {
    return `https://127.0.0.1:${this.apiPort}`;
  }

  get adminToken(): string {
    return this.token;
  }

  get caData(): string {
    return this.ca;
  }

  /** Process ids of the running etcd and kube-apiserver, for the benchmark's CPU figures. */
  get pids(): { etcd?: number; apiServer?: number } {
    return { etcd: this.etcd?.child.pid, apiServer: this.apiServer?.child.pid };
  }

  /** Starts kube-apiserver (again) over the same etcd and waits until it is ready. */
  async startApiServer(): Promise<void> {
    const d = this.dir;
    // The same port on a restart, so clients holding the kubeconfig reconnect by themselves.
    this.apiPort ||= await freePort();
    this.apiServer = startSupervised(
      'kube-apiserver',
      join(this.assetsDir, 'kube-apiserver'),
      [
        `--etcd-servers=${this.etcdUrl}`,
        `--secure-port=${this.apiPort}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--cert-dir=${join(d, 'certs')}`,
        '--authorization-mode=RBAC',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        '--disable-admission-plugins=ServiceAccount',
        '--service-account-issuer=https://kubernetes.default.svc',
        `--service-account-key-file=${join(d, 'sa.key')}`,
        `--service-account-signing-key-file=${join(d, 'sa.key')}`,
        `--token-auth-file=${join(d, 'tokens.csv')}`,
        '--enable-priority-and-fairness=false',
        '--max-requests-inflight=1000',
        '--max-mutating-requests-inflight=500',
        ...this.extraArgs,
      ],
      { logFile: join(d, 'kube-apiserver.log') },
    );
    const started = this.apiServer;
    this.superviseExit(started, 'kube-apiserver', () => this.startApiServer());
    await this.waitReady(started);
    this.ca = await readFile(join(d, 'certs', 'apiserver.crt'), 'utf8');
    // It carries the system:masters token: the owner's alone, as sa.key and tokens.csv are.
    await writeFile(this.kubeconfigPath, this.kubeconfig('default'), { mode: 0o600 });
    await chmod(this.kubeconfigPath, 0o600);
  }

  /**
   * With `supervise`, brings a part back when it exits unexpectedly. A restart that does not
   * become ready is stopped, and its own exit brings the next try.
   */
  private superviseExit(proc: Supervised, name: 'etcd' | 'kube-apiserver', start: () => Promise<void>): void {
    if (!this.options.supervise) return;
    const current = () => (name === 'etcd' ? this.etcd : this.apiServer);
    void proc.exited.then(async () => {
      const away = Date.now();
      await new Promise((r) => setTimeout(r, RESTART_DELAY_MS));
      if (this.stopping || current() !== proc) return;
      try {
        await start();
        this.options.onRestart?.(name, Date.now() - away);
      } catch {
        await current()?.stop(2_000);
      }
    });
  }

  async stopApiServer(): Promise<void> {
    const proc = this.apiServer;
    this.apiServer = undefined;
    await proc?.stop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.stopApiServer();
    await this.etcd?.stop();
    this.etcd = undefined;
  }

  /** A kubeconfig for the admin identity whose current context uses the given namespace. */
  kubeconfig(namespace: string, token = this.token): string {
    const ca = Buffer.from(this.ca).toString('base64');
    return `apiVersion: v1
kind: Config
clusters:
- name: genjobs-local
  cluster:
    server: ${this.serverUrl}
    certificate-authority-data: ${ca}
users:
- name: admin
  user:
    token: ${token}
contexts:
- name: genjobs-local
  context:
    cluster: genjobs-local
    user: admin
    namespace: ${namespace}
current-context: genjobs-local
`;
  }

  private async prepare(): Promise<void> {
    const d = this.dir;
    await ownDir(d);
    await mkdir(join(d, 'certs'), { recursive: true });
    if (!existsSync(join(d, 'sa.key'))) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      await writeFile(join(d, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), {
        mode: 0o600,
      });
    }
    const tokens = join(d, 'tokens.csv');
    if (!existsSync(tokens)) {
      await writeFile(tokens, `${randomBytes(24).toString('hex')},admin,admin-uid,"system:masters"\n`, {
        mode: 0o600,
      });
    }
    this.token = (await readFile(tokens, 'utf8')).split(',')[0] ?? '';
  }

  private async startEtcd(): Promise<void> {
    // The same ports on a restart: kube-apiserver keeps the URL it was started with.
    this.etcdPorts ??= [await freePort(), await freePort()];
    const [client, peer] = this.etcdPorts;
    this.etcdUrl = `http://127.0.0.1:${client}`;
    this.etcd = startSupervised(
      'etcd',
      join(this.assetsDir, 'etcd'),
      [
        `--data-dir=${join(this.dir, 'etcd')}`,
        `--listen-client-urls=${this.etcdUrl}`,
        `--advertise-client-urls=${this.etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=default=http://127.0.0.1:${peer}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      { logFile: join(this.dir, 'etcd.log') },
    );
    const started = this.etcd;
    this.superviseExit(started, 'etcd', () => this.startEtcd());
    await this.poll(started, async () => (await fetch(`${this.etcdUrl}/health`)).ok);
  }

  private async waitReady(proc: Supervised): Promise<void> {
    await this.poll(
      proc,
      () =>
        new Promise<boolean>((resolve) => {
          const req = request(
            {
              host: '127.0.0.1',
              port: this.apiPort,
              path: '/readyz',
              rejectUnauthorized: false,
              headers: { authorization: `Bearer ${this.token}` },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode === 200);
            },
          );
          req.on('error', () => resolve(false));
          req.end();
        }),
    );
  }

  private async poll(proc: Supervised, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited: number | string | undefined;
    proc.exited.then((code) => {
      exited = code;
    });
    while (Date.now() < deadline) {
      if (exited !== undefined)
        throw new Error(`${proc.name} exited (${exited}); see its log in ${this.dir}`);
      if (await ready().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${proc.name} not ready after ${timeoutMs} ms; see its log in ${this.dir}`);
  }
}

/** The directory holding etcd and kube-apiserver, building them on first use. */
export async function resolveAssets(): Promise<string> {
  const script = join(REPO_ROOT, 'tools', 'controlplane', 'build.sh');
  if (!process.env.KUBEBUILDER_ASSETS && !existsSync(script)) {
    throw new Error(
      'No control plane binaries: set KUBEBUILDER_ASSETS to a directory with etcd and kube-apiserver',
    );
  }
  try {
    const { stdout } = await promisify(execFile)('bash', [script], { maxBuffer: 1 << 20 });
    return stdout.trim().split('\n').at(-1) ?? '';
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`could not get the control plane binaries:\n${stderr}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
