import { RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import { fromKubeConfig, type Kube, loadKubeConfig } from '../../src/k8s/client.ts';
import { kubeconfigPath } from './cluster.ts';

/**
 * A connection authenticated as a ServiceAccount of the namespace that holds exactly the
 * given rules (a Role and a RoleBinding), with a token from the TokenRequest API: the
 * apiserver's RBAC decides what it may do, as it would for a Pod.
 */
export async function asServiceAccount(admin: Kube, name: string, rules: V1PolicyRule[]): Promise<Kube> {
  const namespace = admin.namespace;
  const rbac = admin.kc.makeApiClient(RbacAuthorizationV1Api);
  await admin.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  return tokenKube(admin, name);
}

/** A connection with a fresh token of an existing ServiceAccount. */
export async function tokenKube(admin: Kube, serviceAccount: string): Promise<Kube> {
  const namespace = admin.namespace;
  const tr = await admin.core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 3600 } },
  });
  const kc = loadKubeConfig(kubeconfigPath());
  const user = kc.getCurrentUser();
  if (!user) throw new Error('kubeconfig without a user');
  kc.users = kc.users.map((u) => (u.name === user.name ? { name: u.name, token: tr.status?.token } : u));
  return fromKubeConfig(kc, namespace);
}
