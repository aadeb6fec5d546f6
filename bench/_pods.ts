/**
 * Deterministic Pod-like objects for the benchmarks: about 3 KB of JSON each,
 * a third of it `metadata.managedFields`, shaped like what a real cluster
 * returns for a Deployment's pod.
 *
 * @module
 */

import type { KubeObject } from "../types.ts";

/** Objects per namespace: a prefix get of one namespace answers this many. */
export const PODS_PER_NAMESPACE = 100;

/** Namespace of the `i`-th pod (zero-padded so that list order is sorted). */
export function podNamespace(i: number): string {
  return `ns-${String(Math.floor(i / PODS_PER_NAMESPACE)).padStart(4, "0")}`;
}

/** Name of the `i`-th pod. */
export function podName(i: number): string {
  return `web-7d9f8b6c5-${String(i).padStart(6, "0")}`;
}

function hex(i: number, len: number): string {
  // A cheap deterministic hash so uids and IPs differ between pods.
  let x = (i + 1) * 2654435761 >>> 0;
  let out = "";
  while (out.length < len) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    out += x.toString(16).padStart(8, "0");
  }
  return out.slice(0, len);
}

/** `metadata.uid` of the `i`-th pod. */
export function podUid(i: number): string {
  return `${hex(i, 8)}-${hex(i + 7, 4)}-4${hex(i + 3, 3)}-a${hex(i + 5, 3)}-${
    hex(i + 11, 12)
  }`;
}

/** The uid of the ReplicaSet owning the `i`-th pod (one per 16 pods). */
export function ownerUid(i: number): string {
  return `${ownerUidPrefix(i)}-1111-4222-a333-${hex(i >> 4, 12)}`;
}

/**
 * The first 8 characters of {@linkcode ownerUid}, which the pod's
 * `managedFields` quote as an ownerReferences key.
 */
export function ownerUidPrefix(i: number): string {
  return hex(i >> 4, 8);
}

/**
 * The `i`-th pod at `resourceVersion`; `generation` varies the status so that
 * successive versions of one pod differ like real MODIFIED events do.
 */
export function makePod(
  i: number,
  resourceVersion: number,
  generation = 0,
): KubeObject {
  const namespace = podNamespace(i);
  const name = podName(i);
  const uid = podUid(i);
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const time = `2025-05-${String(1 + (generation % 28)).padStart(2, "0")}T${
    String(generation % 24).padStart(2, "0")
  }:14:07Z`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      generateName: "web-7d9f8b6c5-",
      namespace,
      uid,
      resourceVersion: String(resourceVersion),
      creationTimestamp: "2025-05-01T10:14:07Z",
      labels: {
        "app.kubernetes.io/name": "web",
        "app.kubernetes.io/instance": `web-${namespace}`,
        "pod-template-hash": "7d9f8b6c5",
      },
      annotations: {
        "kubectl.kubernetes.io/restartedAt": "2025-04-30T08:00:00Z",
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
      },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web-7d9f8b6c5",
        uid: ownerUid(i),
        controller: true,
        blockOwnerDeletion: true,
      }],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: "2025-05-01T10:14:07Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": {
              "f:annotations": {
                ".": {},
                "f:kubectl.kubernetes.io/restartedAt": {},
                "f:prometheus.io/port": {},
                "f:prometheus.io/scrape": {},
              },
              "f:generateName": {},
              "f:labels": {
                ".": {},
                "f:app.kubernetes.io/instance": {},
                "f:app.kubernetes.io/name": {},
                "f:pod-template-hash": {},
              },
              "f:ownerReferences": {
                ".": {},
                [`k:{"uid":"${ownerUidPrefix(i)}"}`]: {},
              },
            },
            "f:spec": {
              "f:containers": {
                'k:{"name":"web"}': {
                  ".": {},
                  "f:image": {},
                  "f:imagePullPolicy": {},
                  "f:name": {},
                  "f:ports": {
                    ".": {},
                    'k:{"containerPort":8080,"protocol":"TCP"}': {
                      ".": {},
                      "f:containerPort": {},
                      "f:name": {},
                      "f:protocol": {},
                    },
                  },
                  "f:resources": {
                    ".": {},
                    "f:limits": { ".": {}, "f:memory": {} },
                    "f:requests": { ".": {}, "f:cpu": {}, "f:memory": {} },
                  },
                },
              },
              "f:dnsPolicy": {},
              "f:restartPolicy": {},
              "f:schedulerName": {},
              "f:terminationGracePeriodSeconds": {},
            },
          },
        },
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time,
          fieldsType: "FieldsV1",
          subresource: "status",
          fieldsV1: {
            "f:status": {
              "f:conditions": {
                'k:{"type":"ContainersReady"}': {
                  ".": {},
                  "f:lastProbeTime": {},
                  "f:lastTransitionTime": {},
                  "f:status": {},
                  "f:type": {},
                },
                'k:{"type":"Ready"}': {
                  ".": {},
                  "f:lastProbeTime": {},
                  "f:lastTransitionTime": {},
                  "f:status": {},
                  "f:type": {},
                },
              },
              "f:containerStatuses": {},
              "f:hostIP": {},
              "f:phase": {},
              "f:podIP": {},
              "f:startTime": {},
            },
          },
        },
      ],
    },
    spec: {
      containers: [{
        name: "web",
        image: "registry.example.com/team/web:1.24.3",
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
        resources: {
          limits: { memory: "256Mi" },
          requests: { cpu: "100m", memory: "128Mi" },
        },
        imagePullPolicy: "IfNotPresent",
      }],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: `node-${String(i % 50).padStart(2, "0")}`,
      schedulerName: "default-scheduler",
    },
    status: {
      phase: "Running",
      conditions: [
        {
          type: "Ready",
          status: "True",
          lastProbeTime: null,
          lastTransitionTime: time,
        },
        {
          type: "ContainersReady",
          status: "True",
          lastProbeTime: null,
          lastTransitionTime: time,
        },
      ],
      hostIP: `192.168.${i % 50}.10`,
      podIP: ip,
      podIPs: [{ ip }],
      startTime: "2025-05-01T10:14:08Z",
      containerStatuses: [{
        name: "web",
        state: { running: { startedAt: time } },
        ready: true,
        restartCount: generation % 3,
        image: "registry.example.com/team/web:1.24.3",
        imageID:
          "registry.example.com/team/web@sha256:4f5e8b1c2d3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
        containerID: `containerd://${hex(i + 13, 64)}`,
        started: true,
      }],
      qosClass: "Burstable",
    },
  } as unknown as KubeObject;
}
