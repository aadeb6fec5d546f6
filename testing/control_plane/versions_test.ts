import assert from "node:assert/strict";
import { controlPlaneVersions } from "./versions.ts";

Deno.test("the provisioning script builds the versions the package names", async () => {
  const script = await Deno.readTextFile(
    new URL("../../tools/control_plane.sh", import.meta.url),
  );
  const pinned = (name: string) =>
    script.match(new RegExp(`^${name}=(\\S+)$`, "m"))?.[1];
  assert.deepEqual(
    {
      kubernetes: pinned("KUBERNETES_VERSION"),
      etcd: pinned("ETCD_VERSION"),
    },
    { ...controlPlaneVersions },
  );
});
