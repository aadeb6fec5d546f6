/**
 * The real-server row of `bench:compare`: a real etcd and kube-apiserver
 * (`testing/control_plane/`) holding `objects` ConfigMaps of a few KB in
 * one namespace, for the contenders to sync over TLS from the control
 * plane's kubeconfig (its CA, the admin user's bearer token).
 *
 * @module
 */

import type { FetchClient } from "../mod.ts";
import {
  ControlPlane,
  ControlPlaneBinariesNotFoundError,
  controlPlaneVersions,
} from "../testing/control_plane/mod.ts";

/** The namespace the ConfigMaps are created in and watched from. */
export const REAL_SERVER_NAMESPACE = "bench";

/** How many POSTs are in flight at once while filling the server. */
const CONCURRENCY = 32;

/** A started control plane, filled, or why there is none. */
export type RealServer =
  | {
    plane: ControlPlane;
    /** The kubeconfig every contender is given. */
    kubeconfig: string;
    /** Seconds it took to start, and to create the ConfigMaps. */
    startSeconds: number;
    createSeconds: number;
    /** JSON bytes of one ConfigMap as created. */
    bytesPerObject: number;
    /** kube-apiserver and etcd versions. */
    versions: string;
    /**
     * The namespace's resourceVersion before the ConfigMaps were created:
     * a watch from there is replayed every one of them as ADDED.
     */
    replayFrom: string;
  }
  | { notRun: string };

/** One ConfigMap of about 3 KB: a few keys of text, labels, an annotation. */
export function configMap(i: number): Record<string, unknown> {
  const name = `cm-${String(i).padStart(6, "0")}`;
  const line = `${name} `.repeat(12).trimEnd();
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: REAL_SERVER_NAMESPACE,
      labels: { app: `app-${i % 50}`, tier: i % 2 ? "web" : "worker" },
      annotations: { "bench.haptic.dev/index": String(i) },
    },
    data: Object.fromEntries(
      Array.from({ length: 8 }, (_, k) => [
        `key-${k}`,
        Array.from({ length: 4 }, () => line).join("\n"),
      ]),
    ),
  };
}

/**
 * Starts a control plane and creates `objects` ConfigMaps in
 * {@linkcode REAL_SERVER_NAMESPACE}; a missing binary (or a failed start)
 * is a reason not to run the row, not an error.
 */
export async function startRealServer(
  objects: number,
  log: (message: string) => void,
): Promise<RealServer> {
  const t0 = performance.now();
  let plane: ControlPlane;
  try {
    plane = await ControlPlane.start({
      // No compaction while the contenders list.
      etcdCompactionIntervalMs: 0,
      startTimeoutMs: 120_000,
    });
  } catch (error) {
    if (error instanceof ControlPlaneBinariesNotFoundError) {
      return {
        notRun:
          `the control plane binaries are missing (\`deno task control-plane\` builds them): ${
            error.message.split("\n")[0]
          }`,
      };
    }
    return {
      notRun: `the control plane did not start: ${
        String(error instanceof Error ? error.message : error).split("\n")[0]
      }`,
    };
  }
  const startSeconds = (performance.now() - t0) / 1000;
  try {
    const client = plane.client();
    await client.performRequest({
      method: "POST",
      path: "/api/v1/namespaces",
      bodyJson: {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: REAL_SERVER_NAMESPACE },
      },
      expectJson: true,
    });
    log(
      `control plane up in ${
        startSeconds.toFixed(1)
      } s; creating ${objects} ConfigMaps`,
    );
    const empty = await client.performRequest({
      method: "GET",
      path: `/api/v1/namespaces/${REAL_SERVER_NAMESPACE}/configmaps`,
      expectJson: true,
    }) as { metadata: { resourceVersion: string } };
    const t1 = performance.now();
    await fill(client, objects);
    const createSeconds = (performance.now() - t1) / 1000;
    const v = controlPlaneVersions;
    return {
      plane,
      kubeconfig: plane.kubeconfigPath,
      startSeconds,
      createSeconds,
      bytesPerObject: JSON.stringify(configMap(0)).length,
      versions: `kube-apiserver ${v.kubernetes}, etcd ${v.etcd}`,
      replayFrom: empty.metadata.resourceVersion,
    };
  } catch (error) {
    await plane.stop();
    return {
      notRun: `filling the control plane failed: ${
        error instanceof Error ? error.message : String(error)
      }`,
    };
  }
}

/** POSTs the ConfigMaps, {@linkcode CONCURRENCY} at a time. */
async function fill(client: FetchClient, objects: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects) {
      const i = next++;
      await client.performRequest({
        method: "POST",
        path: `/api/v1/namespaces/${REAL_SERVER_NAMESPACE}/configmaps`,
        bodyJson: configMap(i) as never,
        expectJson: true,
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}
