//! bench:compare contender: kube-rs's `watcher` + `reflector` store on Pods,
//! typed (`k8s_openapi::api::core::v1::Pod`) or dynamic (`DynamicObject`),
//! with `metadata.managedFields` dropped before the store (unless the task
//! says otherwise). A `metadataOnly` task watches `PartialObjectMeta<Pod>`
//! (the metadata-only form, what `metadata_watcher` did before it was
//! deprecated for this); a `fanout` task runs one shared reflector
//! (`store_shared` + `reflect_shared`) with `consumers` subscribers; a task
//! with a kubeconfig speaks TLS to a real API server about the resource it
//! names (pods or configmaps).
//!
//! Usage: `kube_rs_contender typed|dynamic '<task JSON>'`. It speaks to the
//! bench server named in the task and prints one `RESULT {json}` line, as
//! the Deno contenders do (bench/_contender.ts has the task and outcome).
//! Rust has no collector to ask: "heap" is the bytes live in the allocator,
//! counted by a wrapper around the system allocator.
//!
//! The reconcile workloads (`queue`, `dedup`, `queueHeap`,
//! `reconcileLatency`) run kube-runtime's `Controller`: see `reconcile.rs`.

mod reconcile;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Debug;
use std::hash::Hash;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::Stream;
use futures::StreamExt;
use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, ApiResource, DynamicObject};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::PartialObjectMeta;
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{self, store::Writer};
use kube::runtime::watcher::{self, Event};
use kube::{Client, Config, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Counts the bytes live in the allocator.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            LIVE.fetch_add(size, Relaxed);
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The annotation carrying the server's send time (bench/_protocol.ts).
const SENT_AT: &str = "bench.haptic.dev/sent-at";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Task {
    server: String,
    workload: String,
    objects: usize,
    events: Option<usize>,
    count: Option<usize>,
    gap_ms: Option<u64>,
    heap: Option<bool>,
    ignore_fields: Option<bool>,
    timeout_ms: u64,
    metadata_only: Option<bool>,
    consumers: Option<usize>,
    kubeconfig: Option<String>,
    namespace: Option<String>,
    resource: Option<String>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    sync_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    objects: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_per_object: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_before: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_after: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rss_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rss_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_applied_at: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    applied: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    latencies: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock_offset: Option<f64>,
    notes: Vec<String>,
}

/// Wall-clock milliseconds, comparable with the bench server's clock up to
/// the offset that `clock_offset` measures.
fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as f64
        / 1e6
}

fn fail(message: &str) -> ! {
    eprintln!("FAILED {message}");
    std::process::exit(1);
}

fn report(outcome: &Outcome) -> ! {
    println!("RESULT {}", serde_json::to_string(outcome).unwrap());
    std::process::exit(0);
}

/// VmRSS from /proc/self/status, in bytes (0 where there is none).
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// One plain HTTP/1.1 exchange with the bench server's control routes; the
/// answer's body.
fn bench_call(server: &str, method: &str, path: &str) -> Result<String, String> {
    let host = server.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).map_err(|e| e.to_string())?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut text = String::new();
    stream
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no HTTP body")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!(
            "{path} answered {}",
            head.lines().next().unwrap_or("")
        ));
    }
    // Deno answers small bodies with a length; chunked ones carry a size line.
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body.split("\r\n").nth(1).unwrap_or("").to_string()
    } else {
        body.to_string()
    };
    let value: serde_json::Value = serde_json::from_str(&body).map_err(|e| e.to_string())?;
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        return Err(error.to_string());
    }
    Ok(body)
}

/// Server clock minus ours, from the round trip with the smallest delay.
fn clock_offset(server: &str) -> f64 {
    let mut best = f64::INFINITY;
    let mut offset = 0.0;
    for _ in 0..15 {
        let t0 = now();
        let body = bench_call(server, "GET", "/_bench/now").unwrap_or_else(|e| fail(&e));
        let t1 = now();
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        let server_now = value["now"].as_f64().unwrap_or_else(|| fail("no clock"));
        if t1 - t0 < best {
            best = t1 - t0;
            offset = server_now - (t0 + t1) / 2.0;
        }
    }
    offset
}

/// The api of a namespaced `K` in the task's namespace, or across all.
fn api<K>(client: Client, task: &Task) -> Api<K>
where
    K: Resource<Scope = NamespaceResourceScope>,
    K::DynamicType: Default,
{
    match &task.namespace {
        Some(ns) if !ns.is_empty() => Api::namespaced(client, ns),
        _ => Api::all(client),
    }
}

/// Consumers of one resource, as kube-rs shares them: one reflector writing
/// a shared store (`store_shared`, `reflect_shared`) and one subscriber
/// each, each keeping the pods off one node. Sync ends when every
/// subscriber has been handed every object (after `InitDone`).
async fn fanout(api: Api<Pod>, task: Task) -> ! {
    let consumers = task.consumers.unwrap_or(1).max(1);
    let (reader, writer) = reflector::store_shared::<Pod>(1024);
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel::<f64>();
    for k in 0..consumers {
        let subscriber = writer.subscribe().unwrap_or_else(|| fail("no subscriber"));
        let skip = format!("node-{k:02}");
        let want = task.objects;
        let done = done_tx.clone();
        tokio::spawn(async move {
            let mut seen = 0usize;
            let mut kept = 0usize;
            let mut subscriber = Box::pin(subscriber);
            while let Some(pod) = subscriber.next().await {
                if pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) != Some(skip.as_str()) {
                    kept += 1;
                }
                seen += 1;
                if seen == want {
                    let _ = done.send(now());
                }
            }
            let _ = kept;
        });
    }
    let strip = task.ignore_fields != Some(false);
    let (heap_before, rss_before) = (LIVE.load(Relaxed), resident_bytes());
    let t0 = now();
    let stream = watcher::watcher(api, watcher::Config::default())
        .modify(move |o: &mut Pod| {
            if strip {
                o.meta_mut().managed_fields = None;
            }
        })
        .reflect_shared(writer);
    tokio::spawn(async move {
        let mut stream = Box::pin(stream);
        while let Some(event) = stream.next().await {
            if let Err(e) = event {
                fail(&format!("watcher error: {e}"));
            }
        }
    });
    let mut at = 0.0;
    for _ in 0..consumers {
        at = done_rx
            .recv()
            .await
            .unwrap_or_else(|| fail("a subscriber ended"));
    }
    let count = reader.state().len();
    let (after, rss) = (LIVE.load(Relaxed), resident_bytes());
    let outcome = Outcome {
        sync_ms: Some(at - t0),
        objects: Some(count),
        heap_before: Some(heap_before),
        heap_after: Some(after),
        rss_before: Some(rss_before),
        rss_after: Some(rss),
        heap_per_object: Some((after as f64 - heap_before as f64) / task.objects as f64),
        notes: vec![format!(
            "kube 5.0.0 shared reflector (store_shared + reflect_shared), {consumers} subscriber(s)"
        )],
        ..Default::default()
    };
    report(&outcome)
}

async fn run<K, S>(stream: S, writer: Writer<K>, task: Task, variant: &str) -> !
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Send + Sync,
    S: Stream<Item = watcher::Result<Event<K>>> + Send,
{
    let reader = writer.as_reader();
    let strip = task.ignore_fields != Some(false);
    let heap = task.heap == Some(true);
    let mut outcome = Outcome {
        notes: vec![format!("kube 5.0.0 watcher + reflector, {variant}")],
        ..Default::default()
    };
    let (heap_before, rss_before) = (LIVE.load(Relaxed), resident_bytes());
    let t0 = now();
    let stream = stream
        .modify(move |o: &mut K| {
            if strip {
                o.meta_mut().managed_fields = None;
            }
        })
        .reflect(writer);
    let mut stream = Box::pin(stream);
    let want = task.events.or(task.count).unwrap_or(0);
    let mut applied = 0usize;
    let mut offset = 0.0;
    let mut latencies = Vec::with_capacity(want);
    while let Some(event) = stream.next().await {
        match event {
            Err(e) => fail(&format!("watcher error: {e}")),
            // The reflector applies each event before yielding it: at
            // InitDone the store holds the whole list.
            Ok(Event::InitDone) => {
                let at = now();
                let count = reader.state().len();
                match task.workload.as_str() {
                    "sync" => {
                        outcome.sync_ms = Some(at - t0);
                        outcome.objects = Some(count);
                        if count != task.objects {
                            fail(&format!("synced {count} of {}", task.objects));
                        }
                        if heap {
                            let (after, rss) = (LIVE.load(Relaxed), resident_bytes());
                            outcome.heap_before = Some(heap_before);
                            outcome.heap_after = Some(after);
                            outcome.rss_before = Some(rss_before);
                            outcome.rss_after = Some(rss);
                            outcome.heap_per_object =
                                Some((after as f64 - heap_before as f64) / count as f64);
                        }
                        report(&outcome);
                    }
                    "latency" => {
                        let server = task.server.clone();
                        let gap = task.gap_ms.unwrap_or(20);
                        offset = clock_offset(&server);
                        let path = format!("/_bench/latency?count={want}&gap={gap}");
                        tokio::task::spawn_blocking(move || {
                            let until = now() + 10_000.0;
                            loop {
                                match bench_call(&server, "POST", &path) {
                                    Ok(_) => return,
                                    Err(e) if now() > until => fail(&e),
                                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                                }
                            }
                        });
                    }
                    _ => {}
                }
            }
            Ok(Event::Apply(obj)) => match task.workload.as_str() {
                "flood" => {
                    applied += 1;
                    if applied == want {
                        outcome.last_applied_at = Some(now());
                        outcome.applied = Some(applied);
                        outcome.clock_offset = Some(clock_offset(&task.server));
                        report(&outcome);
                    }
                }
                "latency" => {
                    let at = now();
                    let sent: f64 = obj
                        .annotations()
                        .get(SENT_AT)
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(f64::NAN);
                    latencies.push(at - (sent - offset));
                    if latencies.len() == want {
                        outcome.latencies = latencies;
                        outcome.clock_offset = Some(offset);
                        report(&outcome);
                    }
                }
                _ => {}
            },
            Ok(_) => {}
        }
    }
    fail("the watch stream ended")
}

/// A client for the bench server (plain HTTP), or for the kubeconfig's
/// cluster and user (TLS, its CA and credentials).
async fn client(task: &Task) -> Client {
    let config = match &task.kubeconfig {
        Some(path) => {
            let kubeconfig =
                Kubeconfig::read_from(path).unwrap_or_else(|e| fail(&format!("kubeconfig: {e}")));
            Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .unwrap_or_else(|e| fail(&format!("kubeconfig: {e}")))
        }
        None => Config::new(
            task.server
                .parse()
                .unwrap_or_else(|_| fail("bad server URL")),
        ),
    };
    Client::try_from(config).unwrap_or_else(|e| fail(&e.to_string()))
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        fail("usage: kube_rs_contender typed|dynamic '<task JSON>'");
    }
    let workload = serde_json::from_str::<serde_json::Value>(&args[2])
        .ok()
        .and_then(|v| v.get("workload")?.as_str().map(String::from))
        .unwrap_or_default();
    if reconcile::is_reconcile_workload(&workload) {
        reconcile::run(&args[2]).await
    }
    let task: Task = serde_json::from_str(&args[2])
        .unwrap_or_else(|e| fail(&format!("expected a JSON task: {e}")));
    if !matches!(
        task.workload.as_str(),
        "sync" | "flood" | "latency" | "fanout"
    ) {
        fail(&format!(
            "workload {} is not measured by this contender",
            task.workload
        ));
    }
    let timeout = Duration::from_millis(task.timeout_ms);
    let workload = task.workload.clone();
    tokio::spawn(async move {
        tokio::time::sleep(timeout).await;
        fail(&format!(
            "timed out after {} ms ({workload})",
            timeout.as_millis()
        ));
    });
    let client = client(&task).await;
    // Default watcher config: list pages of 500, then watch.
    let config = watcher::Config::default;
    let resource = task.resource.clone().unwrap_or_else(|| "pods".into());
    let metadata_only = task.metadata_only == Some(true);
    match (args[1].as_str(), resource.as_str()) {
        ("typed", "pods") if task.workload == "fanout" => {
            fanout(api::<Pod>(client, &task), task).await
        }
        ("typed", "pods") if metadata_only => {
            let (_, writer) = reflector::store::<PartialObjectMeta<Pod>>();
            let api = api::<PartialObjectMeta<Pod>>(client, &task);
            run(
                watcher::watcher(api, config()),
                writer,
                task,
                "PartialObjectMeta<Pod> (metadata only)",
            )
            .await
        }
        ("typed", "pods") => {
            let (_, writer) = reflector::store::<Pod>();
            let api = api::<Pod>(client, &task);
            run(watcher::watcher(api, config()), writer, task, "typed Pod").await
        }
        ("typed", "configmaps") => {
            let (_, writer) = reflector::store::<ConfigMap>();
            let api = api::<ConfigMap>(client, &task);
            run(
                watcher::watcher(api, config()),
                writer,
                task,
                "typed ConfigMap",
            )
            .await
        }
        ("dynamic", "pods") => {
            let ar = ApiResource::erase::<Pod>(&());
            let writer = Writer::<DynamicObject>::new(ar.clone());
            let api = Api::<DynamicObject>::all_with(client, &ar);
            run(
                watcher::watcher(api, config()),
                writer,
                task,
                "DynamicObject",
            )
            .await
        }
        (variant, resource) => fail(&format!(
            "variant {variant} on {resource} is not measured: expected typed or dynamic on pods, or typed on configmaps"
        )),
    }
}
