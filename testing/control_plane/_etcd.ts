/**
 * etcd through its gRPC gateway (HTTP and JSON on the client port, on by
 * default): the current revision and a compaction, without etcdctl.
 */

/** etcd's current revision. */
export async function etcdRevision(etcdUrl: string): Promise<number> {
  // Any range answers with the store's revision in its header.
  const body = await post(etcdUrl, "/v3/kv/range", {
    key: btoa("/"),
    limit: 1,
    keys_only: true,
  }) as { header?: { revision?: string } };
  const revision = Number(body.header?.revision);
  if (!Number.isSafeInteger(revision) || revision <= 0) {
    throw new Error(
      `etcd answered a range without a revision: ${JSON.stringify(body)}`,
    );
  }
  return revision;
}

/**
 * Compacts etcd's history at `revision` and waits until the compaction is
 * applied (`physical`). Compacting at an already compacted revision is not
 * an error.
 */
export async function etcdCompact(
  etcdUrl: string,
  revision: number,
): Promise<void> {
  try {
    await post(etcdUrl, "/v3/kv/compaction", {
      revision: String(revision),
      physical: true,
    });
  } catch (error) {
    if (
      error instanceof Error && /required revision has been compacted/
        .test(error.message)
    ) return;
    throw error;
  }
}

async function post(
  etcdUrl: string,
  path: string,
  json: unknown,
): Promise<unknown> {
  const response = await fetch(`${etcdUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(json),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(
      `etcd answered ${path} with ${response.status}: ${text.slice(0, 500)}`,
    );
  }
  return JSON.parse(text);
}
