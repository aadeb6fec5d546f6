import assert from "node:assert/strict";
import { collectionPath, groupVersionPath, objectPath } from "./rest_client.ts";

const pods = { group: "", version: "v1", resource: "pods" };
const ingresses = {
  group: "networking.k8s.io",
  version: "v1",
  resource: "ingresses",
};
const nodes = { group: "", version: "v1", resource: "nodes" };
const clusterRoles = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource: "clusterroles",
};

Deno.test("groupVersionPath() uses /api for the core group and /apis otherwise", () => {
  assert.equal(groupVersionPath(pods), "/api/v1");
  assert.equal(groupVersionPath(ingresses), "/apis/networking.k8s.io/v1");
  assert.equal(
    groupVersionPath({ group: "apps", version: "v1beta2", resource: "x" }),
    "/apis/apps/v1beta2",
  );
});

Deno.test("collectionPath() lists and watches in one namespace or in all", () => {
  assert.equal(collectionPath(pods, "web"), "/api/v1/namespaces/web/pods");
  assert.equal(collectionPath(pods, ""), "/api/v1/pods");
  assert.equal(collectionPath(pods), "/api/v1/pods");
  assert.equal(
    collectionPath(ingresses, "haproxy"),
    "/apis/networking.k8s.io/v1/namespaces/haproxy/ingresses",
  );
  assert.equal(
    collectionPath(ingresses),
    "/apis/networking.k8s.io/v1/ingresses",
  );
  // Cluster-scoped resources: no namespace segment.
  assert.equal(collectionPath(nodes), "/api/v1/nodes");
  assert.equal(
    collectionPath(clusterRoles),
    "/apis/rbac.authorization.k8s.io/v1/clusterroles",
  );
});

Deno.test("objectPath() addresses one object for GET, namespaced or cluster-scoped", () => {
  assert.equal(
    objectPath(pods, "web", "api-0"),
    "/api/v1/namespaces/web/pods/api-0",
  );
  assert.equal(
    objectPath(ingresses, "haproxy", "main"),
    "/apis/networking.k8s.io/v1/namespaces/haproxy/ingresses/main",
  );
  assert.equal(objectPath(nodes, "", "node-1"), "/api/v1/nodes/node-1");
  assert.equal(
    objectPath(clusterRoles, "", "system:controller:x"),
    "/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Acontroller%3Ax",
  );
});

Deno.test("paths never carry query parameters, and escape what could inject them", () => {
  assert.equal(
    objectPath(pods, "a/b", "c?watch=1"),
    "/api/v1/namespaces/a%2Fb/pods/c%3Fwatch%3D1",
  );
  for (
    const path of [collectionPath(ingresses, "x"), objectPath(pods, "", "y")]
  ) {
    assert.ok(!path.includes("?"));
  }
});
