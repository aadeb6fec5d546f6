/**
 * The real-server floor: a bare `fetch` of the namespace's ConfigMaps from
 * a real kube-apiserver over TLS (its CA, a bearer token), the body read as
 * text and `JSON.parse`d, nothing kept; one unpaged LIST by default, or
 * pages of `limit` following `continue`. No client library, no store: what
 * any client of that server pays at least. With `bytesOnly`, the one
 * unpaged body is read as bytes and not parsed, in JSON or (with
 * `protobuf`) in the protobuf a Go client asks for: the server's and the
 * transport's share.
 *
 * @module
 */

import {
  fail,
  now,
  type Outcome,
  readTask,
  report,
  settledHeap,
} from "./_contender.ts";

const task = readTask();
if (!task.caFile || !task.token || !task.namespace) {
  fail("the real-server floor needs caFile, token and namespace");
}
const client = Deno.createHttpClient({
  caCerts: [await Deno.readTextFile(task.caFile)],
});
const headers = {
  authorization: `Bearer ${task.token}`,
  accept: task.protobuf
    ? "application/vnd.kubernetes.protobuf"
    : "application/json",
};
const path = `/api/v1/namespaces/${task.namespace}/configmaps`;

/**
 * With `fromResourceVersion`: one watch from there, each event line
 * `JSON.parse`d and dropped, until `objects` events have come.
 */
async function replay(from: string): Promise<number> {
  const query = new URLSearchParams({
    watch: "1",
    resourceVersion: from,
    allowWatchBookmarks: "true",
  });
  const response = await fetch(`${task.server}${path}?${query}`, {
    headers,
    client,
  });
  if (!response.ok || !response.body) fail(`watch: ${response.status}`);
  const decoder = new TextDecoder();
  let count = 0;
  let rest = "";
  for await (const chunk of response.body!) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { type: string };
      if (event.type === "ADDED") count++;
      else if (event.type === "ERROR") fail(`watch: ${line.slice(0, 200)}`);
    }
    if (count >= task.objects) break;
  }
  return count;
}

/** Lists every page; returns the item count. */
async function list(): Promise<number> {
  if (task.bytesOnly) {
    const response = await fetch(`${task.server}${path}`, { headers, client });
    if (!response.ok) fail(`list: ${response.status}`);
    const bytes = await response.arrayBuffer();
    if (bytes.byteLength < task.objects * 100) fail("short body");
    // Not parsed: the count is the one asked for.
    return task.objects;
  }
  let token: string | undefined;
  let count = 0;
  do {
    const query = new URLSearchParams();
    if (task.limit) query.set("limit", String(task.limit));
    if (token) query.set("continue", token);
    const response = await fetch(`${task.server}${path}?${query}`, {
      headers,
      client,
    });
    if (!response.ok) fail(`list: ${response.status}`);
    const body = JSON.parse(await response.text()) as {
      items: unknown[];
      metadata: { continue?: string };
    };
    count += body.items.length;
    token = body.metadata.continue || undefined;
  } while (token);
  return count;
}

const outcome: Outcome = {};
const before = task.heap ? await settledHeap() : 0;
const rssBefore = Deno.memoryUsage().rss;
const t0 = now();
const count = task.fromResourceVersion
  ? await replay(task.fromResourceVersion)
  : await list();
outcome.syncMs = now() - t0;
outcome.objects = count;
if (count !== task.objects) fail(`listed ${count} of ${task.objects}`);
if (task.heap) {
  outcome.heapBefore = before;
  outcome.heapAfter = await settledHeap();
  outcome.rssBefore = rssBefore;
  outcome.rssAfter = Deno.memoryUsage().rss;
  outcome.heapPerObject = (outcome.heapAfter - before) / count;
}
client.close();
report(outcome);
