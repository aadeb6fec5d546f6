// Kubeconfigs shaped like the ones cloud CLIs and local cluster tools write
// (from their documentation), read without kubectl. Where kubectl is
// installed, it reads each file too and must find the same configuration.
import assert from "node:assert/strict";
import {
  configFromKubeconfig,
  emptyKubeconfig,
  loadKubeconfig,
  mergeKubeconfig,
  type ResolvedConfig,
} from "./_kubeconfig.ts";
import { findKubectl, viewKubeconfig } from "../tests/kubectl.ts";
import {
  IN_CI,
  kubectlMissing,
  requireAvailable,
} from "../tests/requirements.ts";
import { CERT, KEY } from "../tests/fixtures.ts";

const CA64 = btoa(CERT);
const KEY64 = btoa(KEY);

/** Each tool's file, and what a client must make of it. */
const SHAPES: Record<string, {
  yaml: (dir: string) => string;
  expected: (dir: string) => ResolvedConfig["config"];
}> = {
  "gcloud container clusters get-credentials": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://34.118.10.20
  name: gke_shop-prod_europe-west1_main
contexts:
- context:
    cluster: gke_shop-prod_europe-west1_main
    user: gke_shop-prod_europe-west1_main
  name: gke_shop-prod_europe-west1_main
current-context: gke_shop-prod_europe-west1_main
kind: Config
preferences: {}
users:
- name: gke_shop-prod_europe-west1_main
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      provideClusterInfo: true
`,
    expected: () => ({
      server: "https://34.118.10.20",
      caData: CERT,
      exec: {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: "gke-gcloud-auth-plugin",
        args: [],
        env: [],
        interactiveMode: "IfAvailable",
        provideClusterInfo: true,
        installHint:
          "Install gke-gcloud-auth-plugin for use with kubectl by following https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
      },
    }),
  },
  "aws eks update-kubeconfig": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com
  name: arn:aws:eks:eu-west-1:111122223333:cluster/shop
contexts:
- context:
    cluster: arn:aws:eks:eu-west-1:111122223333:cluster/shop
    user: arn:aws:eks:eu-west-1:111122223333:cluster/shop
  name: arn:aws:eks:eu-west-1:111122223333:cluster/shop
current-context: arn:aws:eks:eu-west-1:111122223333:cluster/shop
kind: Config
preferences: {}
users:
- name: arn:aws:eks:eu-west-1:111122223333:cluster/shop
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      - --cluster-name
      - shop
      - --output
      - json
      command: aws
      env:
      - name: AWS_PROFILE
        value: shop-admin
`,
    expected: () => ({
      server:
        "https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com",
      caData: CERT,
      exec: {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: "aws",
        args: [
          "--region",
          "eu-west-1",
          "eks",
          "get-token",
          "--cluster-name",
          "shop",
          "--output",
          "json",
        ],
        env: [{ name: "AWS_PROFILE", value: "shop-admin" }],
        interactiveMode: "IfAvailable",
        provideClusterInfo: false,
      },
    }),
  },
  "az aks get-credentials (Entra ID, kubelogin)": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://shop-dns-4f2a1b3c.hcp.westeurope.azmk8s.io:443
  name: shop
contexts:
- context:
    cluster: shop
    user: clusterUser_shop-rg_shop
  name: shop
current-context: shop
kind: Config
preferences: {}
users:
- name: clusterUser_shop-rg_shop
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - get-token
      - --environment
      - AzurePublicCloud
      - --server-id
      - 6dae42f8-4368-4678-94ff-3960e28e3630
      - --client-id
      - 80faf920-1908-4b52-b5ef-a8e7bedfc67a
      - --tenant-id
      - 00000000-0000-0000-0000-000000000000
      - --login
      - devicecode
      command: kubelogin
      env: null
      installHint: |2

        kubelogin is not installed which is required to connect to AAD enabled cluster.

        To learn more, please go to https://aka.ms/aks/kubelogin
      provideClusterInfo: false
`,
    expected: () => ({
      server: "https://shop-dns-4f2a1b3c.hcp.westeurope.azmk8s.io:443",
      caData: CERT,
      exec: {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: "kubelogin",
        args: [
          "get-token",
          "--environment",
          "AzurePublicCloud",
          "--server-id",
          "6dae42f8-4368-4678-94ff-3960e28e3630",
          "--client-id",
          "80faf920-1908-4b52-b5ef-a8e7bedfc67a",
          "--tenant-id",
          "00000000-0000-0000-0000-000000000000",
          "--login",
          "devicecode",
        ],
        env: [],
        interactiveMode: "IfAvailable",
        provideClusterInfo: false,
        installHint:
          "\nkubelogin is not installed which is required to connect to AAD enabled cluster.\n\nTo learn more, please go to https://aka.ms/aks/kubelogin\n",
      },
    }),
  },
  "az aks get-credentials (local accounts)": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://shop-dns-4f2a1b3c.hcp.westeurope.azmk8s.io:443
  name: shop
contexts:
- context:
    cluster: shop
    user: clusterUser_shop-rg_shop
  name: shop
current-context: shop
kind: Config
preferences: {}
users:
- name: clusterUser_shop-rg_shop
  user:
    client-certificate-data: ${CA64}
    client-key-data: ${KEY64}
    token: 5c1b0a9e8d7f6e5d4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c
`,
    expected: () => ({
      server: "https://shop-dns-4f2a1b3c.hcp.westeurope.azmk8s.io:443",
      caData: CERT,
      token: "5c1b0a9e8d7f6e5d4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c",
      certData: CERT,
      keyData: KEY,
    }),
  },
  "kind create cluster": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://127.0.0.1:40313
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: ${CA64}
    client-key-data: ${KEY64}
`,
    expected: () => ({
      server: "https://127.0.0.1:40313",
      caData: CERT,
      certData: CERT,
      keyData: KEY,
    }),
  },
  "k3s (/etc/rancher/k3s/k3s.yaml)": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://127.0.0.1:6443
  name: default
contexts:
- context:
    cluster: default
    user: default
  name: default
current-context: default
kind: Config
preferences: {}
users:
- name: default
  user:
    client-certificate-data: ${CA64}
    client-key-data: ${KEY64}
`,
    expected: () => ({
      server: "https://127.0.0.1:6443",
      caData: CERT,
      certData: CERT,
      keyData: KEY,
    }),
  },
  "minikube start": {
    yaml: (dir) =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority: ${dir}/.minikube/ca.crt
    extensions:
    - extension:
        last-update: Sun, 30 Nov 2026 21:50:15 UTC
        provider: minikube.sigs.k8s.io
        version: v1.37.0
      name: cluster_info
    server: https://192.168.49.2:8443
  name: minikube
contexts:
- context:
    cluster: minikube
    extensions:
    - extension:
        last-update: Sun, 30 Nov 2026 21:50:15 UTC
        provider: minikube.sigs.k8s.io
        version: v1.37.0
      name: context_info
    namespace: default
    user: minikube
  name: minikube
current-context: minikube
kind: Config
preferences: {}
users:
- name: minikube
  user:
    client-certificate: ${dir}/.minikube/profiles/minikube/client.crt
    client-key: ${dir}/.minikube/profiles/minikube/client.key
`,
    expected: () => ({
      server: "https://192.168.49.2:8443",
      caData: CERT,
      namespace: "default",
      certData: CERT,
      keyData: KEY,
    }),
  },
  "kubectl config set-cluster, set-credentials, set-context": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://10.0.0.1:6443
    tls-server-name: kubernetes.default
  name: prod
contexts:
- context:
    cluster: prod
    namespace: shop
    user: deployer
  name: prod
current-context: prod
kind: Config
preferences: {}
users:
- name: deployer
  user:
    token: deployer-token-0123456789
`,
    expected: () => ({
      server: "https://10.0.0.1:6443",
      caData: CERT,
      tlsServerName: "kubernetes.default",
      namespace: "shop",
      token: "deployer-token-0123456789",
    }),
  },
  "k3d kubeconfig get": {
    yaml: () =>
      `---
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://0.0.0.0:44695
  name: k3d-shop
contexts:
- context:
    cluster: k3d-shop
    user: admin@k3d-shop
  name: k3d-shop
current-context: k3d-shop
kind: Config
preferences: {}
users:
- name: admin@k3d-shop
  user:
    client-certificate-data: ${CA64}
    client-key-data: ${KEY64}
`,
    expected: () => ({
      server: "https://0.0.0.0:44695",
      caData: CERT,
      certData: CERT,
      keyData: KEY,
    }),
  },
  "Rancher (the kubeconfig a cluster's page downloads)": {
    yaml: () =>
      `apiVersion: v1
kind: Config
clusters:
- name: "shop"
  cluster:
    server: "https://rancher.example.com/k8s/clusters/c-m-4xq7zt2b"
- name: "shop-shop-cp1"
  cluster:
    server: "https://10.0.0.11:6443"
    certificate-authority-data: "${CA64}"

users:
- name: "shop"
  user:
    token: "kubeconfig-user-7bq2x:r8wq6n9vzk2ls5pt4m7c"


contexts:
- name: "shop"
  context:
    user: "shop"
    cluster: "shop"
- name: "shop-shop-cp1"
  context:
    user: "shop"
    cluster: "shop-shop-cp1"

current-context: "shop"
`,
    expected: () => ({
      server: "https://rancher.example.com/k8s/clusters/c-m-4xq7zt2b",
      token: "kubeconfig-user-7bq2x:r8wq6n9vzk2ls5pt4m7c",
    }),
  },
  "oc login": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    insecure-skip-tls-verify: true
    server: https://api.crc.testing:6443
  name: api-crc-testing:6443
contexts:
- context:
    cluster: api-crc-testing:6443
    namespace: default
    user: kubeadmin/api-crc-testing:6443
  name: default/api-crc-testing:6443/kubeadmin
current-context: default/api-crc-testing:6443/kubeadmin
kind: Config
preferences: {}
users:
- name: kubeadmin/api-crc-testing:6443
  user:
    token: sha256~Jp1rW2mGqf3Ha4nB5cVd6eXf7gYh8iZj9kAl0mBn1oC
`,
    expected: () => ({
      server: "https://api.crc.testing:6443",
      insecureSkipTlsVerify: true,
      namespace: "default",
      token: "sha256~Jp1rW2mGqf3Ha4nB5cVd6eXf7gYh8iZj9kAl0mBn1oC",
    }),
  },
  "aws eks, edited by hand (flow sequences and mappings, as in the EKS docs)": {
    yaml: () =>
      `apiVersion: v1
kind: Config
clusters: [{name: shop, cluster: {server: "https://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com", certificate-authority-data: ${CA64}}}]
contexts:
- {name: shop, context: {cluster: shop, user: shop}}
current-context: shop
users:
- name: shop
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: ["eks", "get-token", "--cluster-name", "prod"]
      env: [{name: AWS_PROFILE, value: dev}]
      interactiveMode: Never
`,
    expected: () => ({
      server: "https://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com",
      caData: CERT,
      exec: {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: "aws",
        args: ["eks", "get-token", "--cluster-name", "prod"],
        env: [{ name: "AWS_PROFILE", value: "dev" }],
        interactiveMode: "Never",
        provideClusterInfo: false,
      },
    }),
  },
  "az aks with kubelogin, edited by hand (a flow sequence over lines)": {
    yaml: () =>
      `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA64}
    server: https://shop-dns-4f2a1b3c.hcp.westeurope.azmk8s.io:443
  name: shop
contexts:
- context: {cluster: shop, user: shop, namespace: "web"}
  name: shop
current-context: shop
users:
- name: shop
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: kubelogin
      args: [
        get-token,
        --login, azurecli,   # az login first
        --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630,
      ]
      env: []
      provideClusterInfo: false
`,
    expected: () => ({
      server: "https://shop-dns-4f2a1b3c.hcp.westeurope.azmk8s.io:443",
      caData: CERT,
      namespace: "web",
      exec: {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: "kubelogin",
        args: [
          "get-token",
          "--login",
          "azurecli",
          "--server-id",
          "6dae42f8-4368-4678-94ff-3960e28e3630",
        ],
        env: [],
        interactiveMode: "IfAvailable",
        provideClusterInfo: false,
      },
    }),
  },
};

/** The configuration kubectl finds in `path`, through the same extraction. */
async function throughKubectl(path: string): Promise<ResolvedConfig["config"]> {
  const json = await viewKubeconfig(path, "json");
  const kubeconfig = emptyKubeconfig(path);
  mergeKubeconfig(kubeconfig, JSON.parse(json), { origin: path, baseDir: "/" });
  return configFromKubeconfig(kubeconfig).config;
}

// Compared with kubectl's own reading where it is there (always under CI).
const kubectlAvailable = findKubectl() !== undefined;
requireAvailable(IN_CI ? kubectlMissing : undefined);

Deno.test("kubeconfigs written by kubectl, gcloud, aws, az, kind, k3d, k3s, minikube, Rancher and oc, or edited by hand, are read without kubectl as kubectl reads them", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-shapes-" });
  try {
    await Deno.mkdir(`${dir}/.minikube/profiles/minikube`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.minikube/ca.crt`, CERT);
    await Deno.writeTextFile(
      `${dir}/.minikube/profiles/minikube/client.crt`,
      CERT,
    );
    await Deno.writeTextFile(
      `${dir}/.minikube/profiles/minikube/client.key`,
      KEY,
    );
    for (const [tool, shape] of Object.entries(SHAPES)) {
      await t.step(tool, async () => {
        const path = `${dir}/config`;
        await Deno.writeTextFile(path, shape.yaml(dir));
        const { config } = configFromKubeconfig(loadKubeconfig([path]));
        assert.deepEqual(config, shape.expected(dir));
        if (kubectlAvailable) {
          assert.deepEqual(config, await throughKubectl(path));
        }
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
