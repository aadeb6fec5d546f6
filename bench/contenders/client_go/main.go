// Command client_go is a bench:compare contender: client-go's
// SharedIndexInformer on Pods, typed (corev1.Pod from the shared informer
// factory) or dynamic (unstructured, from the dynamic informer), indexed by
// namespace and name, with a transform dropping metadata.managedFields.
// metadataOnly tasks run the metadata informer (k8s.io/client-go/metadata,
// PartialObjectMetadata); fanout tasks put `consumers` event handlers on the
// factory's one informer; a task with a kubeconfig speaks to a real API
// server (clientcmd) about the resource it names (pods or configmaps).
//
// Usage: client_go typed|dynamic '<task JSON>'. It speaks to the bench
// server named in the task and prints one `RESULT {json}` line, as the
// Deno contenders do (see bench/_contender.ts for the task and outcome).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	corev1 "k8s.io/api/core/v1"
)

// sentAt is the annotation carrying the server's send time (bench/_protocol.ts).
const sentAt = "bench.haptic.dev/sent-at"

type task struct {
	Server       string `json:"server"`
	Workload     string `json:"workload"`
	Objects      int    `json:"objects"`
	Events       int    `json:"events"`
	Count        int    `json:"count"`
	GapMs        int    `json:"gapMs"`
	Heap         bool   `json:"heap"`
	IgnoreFields *bool  `json:"ignoreFields"`
	TimeoutMs    int    `json:"timeoutMs"`
	MetadataOnly bool   `json:"metadataOnly"`
	Consumers    int    `json:"consumers"`
	Kubeconfig   string `json:"kubeconfig"`
	Namespace    string `json:"namespace"`
	Resource     string `json:"resource"`
	// WatchList: false lists in pages even against a real API server (where
	// client-go's default is a streaming list, sendInitialEvents).
	WatchList *bool `json:"watchList"`
	// Protobuf: ask a real API server for protobuf (what a typed informer
	// gets from a cluster by default) instead of JSON.
	Protobuf bool `json:"protobuf"`
	// FromResourceVersion: the reflector's LIST asks for the list exactly
	// at this version, from before the objects were created (empty), so its
	// watch starts there and the server replays every object as ADDED.
	FromResourceVersion string `json:"fromResourceVersion"`
}

type outcome struct {
	SyncMs        *float64  `json:"syncMs,omitempty"`
	Objects       *int      `json:"objects,omitempty"`
	HeapPerObject *float64  `json:"heapPerObject,omitempty"`
	HeapBefore    *uint64   `json:"heapBefore,omitempty"`
	HeapAfter     *uint64   `json:"heapAfter,omitempty"`
	RssBefore     *uint64   `json:"rssBefore,omitempty"`
	RssAfter      *uint64   `json:"rssAfter,omitempty"`
	LastAppliedAt *float64  `json:"lastAppliedAt,omitempty"`
	Applied       *int      `json:"applied,omitempty"`
	Latencies     []float64 `json:"latencies,omitempty"`
	ClockOffset   *float64  `json:"clockOffset,omitempty"`
	Notes         []string  `json:"notes,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// now is wall-clock milliseconds, comparable with the bench server's clock
// up to the offset that clockOffset measures.
func now() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAILED "+format+"\n", args...)
	os.Exit(1)
}

func report(o outcome) {
	pprof.StopCPUProfile()
	b, err := json.Marshal(o)
	if err != nil {
		fail("cannot encode the outcome: %v", err)
	}
	fmt.Printf("RESULT %s\n", b)
	os.Exit(0)
}

// settledHeap is the live heap after full collections, and the RSS then.
func settledHeap() (heap uint64, rss uint64) {
	var m runtime.MemStats
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, residentBytes()
}

// residentBytes is VmRSS from /proc/self/status (0 where there is none).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			kb, _ := strconv.ParseUint(fields[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func benchCall(server, path string) error {
	res, err := http.Post(server+path, "application/json", nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var body struct {
		Error string `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK || body.Error != "" {
		return fmt.Errorf("bench server %s failed: %s (%d)", path, body.Error, res.StatusCode)
	}
	return nil
}

// clockOffset is the server clock minus ours, from the round trip with the
// smallest delay (as bench/_protocol.ts measures it).
func clockOffset(server string) float64 {
	best := 1e18
	offset := 0.0
	for i := 0; i < 15; i++ {
		t0 := now()
		res, err := http.Get(server + "/_bench/now")
		if err != nil {
			fail("clock offset: %v", err)
		}
		var body struct {
			Now float64 `json:"now"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil {
			fail("clock offset: %v", err)
		}
		t1 := now()
		if t1-t0 < best {
			best = t1 - t0
			offset = body.Now - (t0+t1)/2
		}
	}
	return offset
}

// dropManagedFields is the transform: the informer stores objects without
// metadata.managedFields, as ours does with ignoreFields.
func dropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

func nameIndex(obj any) ([]string, error) {
	m, err := metaAccessor(obj)
	if err != nil {
		return nil, err
	}
	return []string{m.GetName()}, nil
}

func metaAccessor(obj any) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("object of type %T has no metadata", obj)
}

var indexers = cache.Indexers{
	cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
	"name":               nameIndex,
}

// newInformer builds the informer of the variant, not started: on Pods or
// ConfigMaps, in one namespace or all, full objects or metadata only.
func newInformer(variant string, cfg *rest.Config, t task) cache.SharedIndexInformer {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: t.Resource}
	if t.MetadataOnly {
		client, err := metadata.NewForConfig(cfg)
		if err != nil {
			fail("metadata client: %v", err)
		}
		return metadatainformer.NewFilteredMetadataInformer(client, gvr, t.Namespace, 0, indexers, nil).Informer()
	}
	switch variant {
	case "typed":
		clientset, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			fail("clientset: %v", err)
		}
		options := []informers.SharedInformerOption{informers.WithNamespace(t.Namespace)}
		if t.FromResourceVersion != "" {
			options = append(options, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
				// The reflector's watches ask for bookmarks; its LIST does not.
				if !o.AllowWatchBookmarks && o.Continue == "" {
					o.ResourceVersion = t.FromResourceVersion
					o.ResourceVersionMatch = metav1.ResourceVersionMatchExact
				}
			}))
		}
		factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, options...)
		var informer cache.SharedIndexInformer
		switch t.Resource {
		case "pods":
			informer = factory.Core().V1().Pods().Informer()
		case "configmaps":
			informer = factory.Core().V1().ConfigMaps().Informer()
		default:
			fail("resource %q: expected pods or configmaps", t.Resource)
		}
		// The factory's informer comes with the namespace index; add the name.
		if err := informer.AddIndexers(cache.Indexers{"name": nameIndex}); err != nil {
			fail("indexers: %v", err)
		}
		return informer
	case "dynamic":
		client, err := dynamic.NewForConfig(cfg)
		if err != nil {
			fail("dynamic client: %v", err)
		}
		return dynamicinformer.NewFilteredDynamicInformer(client, gvr, t.Namespace, 0, indexers, nil).Informer()
	}
	fail("unknown variant %q: expected typed or dynamic", variant)
	return nil
}

// nodeName is a pod's spec.nodeName, typed or unstructured ("" otherwise).
func nodeName(obj any) string {
	switch o := obj.(type) {
	case *corev1.Pod:
		return o.Spec.NodeName
	case interface{ UnstructuredContent() map[string]any }:
		spec, _ := o.UnstructuredContent()["spec"].(map[string]any)
		name, _ := spec["nodeName"].(string)
		return name
	}
	return ""
}

// restConfig is the bench server over plain HTTP, or the kubeconfig's
// cluster and user (TLS, its CA and credentials) for a real API server.
func restConfig(t task) *rest.Config {
	cfg := &rest.Config{Host: t.Server}
	if t.Kubeconfig != "" {
		c, err := clientcmd.BuildConfigFromFlags("", t.Kubeconfig)
		if err != nil {
			fail("kubeconfig: %v", err)
		}
		cfg = c
	}
	// The bench server lists and watches; it does not serve streaming
	// lists (sendInitialEvents), which client-go tries first by default
	// and would wait for on an idle watch. A real API server keeps it on
	// unless the task says otherwise.
	if t.Kubeconfig == "" || (t.WatchList != nil && !*t.WatchList) {
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	}
	// JSON both ways, like the other contenders; no client-side rate limit
	// (the default 5 QPS would pace a 200-page list).
	cfg.ContentConfig = rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}
	if t.Protobuf {
		cfg.ContentConfig = rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf", AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json"}
	}
	cfg.QPS = -1
	return cfg
}

func main() {
	if len(os.Args) != 3 {
		fail("usage: client_go typed|dynamic '<task JSON>'")
	}
	variant := os.Args[1]
	var t task
	if err := json.Unmarshal([]byte(os.Args[2]), &t); err != nil || t.Server == "" || t.Workload == "" {
		fail("expected a JSON task as the second argument")
	}
	if t.Resource == "" {
		t.Resource = "pods"
	}
	// BENCH_CPUPROFILE=file writes a CPU profile of the run (go tool pprof).
	if path := os.Getenv("BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fail("cpu profile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail("cpu profile: %v", err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(t.TimeoutMs)*time.Millisecond)
	defer cancel()
	go func() {
		<-ctx.Done()
		if ctx.Err() == context.DeadlineExceeded {
			fail("timed out after %d ms (%s)", t.TimeoutMs, t.Workload)
		}
	}()

	if isReconcileWorkload(t.Workload) {
		reconcileMain(os.Args[2], ctx, func() cache.SharedIndexInformer {
			informer := newInformer(variant, restConfig(t), t)
			if err := informer.SetTransform(dropManagedFields); err != nil {
				fail("transform: %v", err)
			}
			return informer
		})
	}

	cfg := restConfig(t)
	informer := newInformer(variant, cfg, t)
	if t.IgnoreFields == nil || *t.IgnoreFields {
		if err := informer.SetTransform(dropManagedFields); err != nil {
			fail("transform: %v", err)
		}
	}

	var added atomic.Int64
	synced := make(chan float64, 1)
	var onUpdate func(obj any)
	if t.Workload != "fanout" {
		_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			// Handlers run after the indexer holds the object: the N-th add is
			// the moment the whole list is in the cache.
			AddFunc: func(any) {
				if int(added.Add(1)) == t.Objects {
					synced <- now()
				}
			},
			UpdateFunc: func(_, obj any) {
				if onUpdate != nil {
					onUpdate(obj)
				}
			},
		})
		if err != nil {
			fail("handler: %v", err)
		}
	}

	form := variant
	if t.MetadataOnly {
		form = "metadata informer (PartialObjectMetadata)"
	}
	o := outcome{Notes: []string{fmt.Sprintf("client-go v0.37.2 SharedIndexInformer, %s, %s", form, t.Resource)}}
	if t.Kubeconfig != "" {
		mode := "streaming list (WatchListClient, its default)"
		if t.WatchList != nil && !*t.WatchList {
			mode = "paged LIST (WatchListClient off)"
		}
		if t.Protobuf {
			mode += ", protobuf"
		}
		o.Notes = append(o.Notes, "kubeconfig via clientcmd; "+mode)
	}
	switch t.Workload {
	case "fanout":
		// Consumers of one resource, as client-go shares them: one informer
		// of the factory, one event handler each (each with its own buffer
		// and goroutine), each keeping the pods off one node. The first
		// handler above counts the adds; these count what they keep.
		consumers := max(t.Consumers, 1)
		var done atomic.Int64
		all := make(chan float64, 1)
		for k := 0; k < consumers; k++ {
			skip := fmt.Sprintf("node-%02d", k)
			var seen, kept atomic.Int64
			_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc: func(obj any) {
					if nodeName(obj) != skip {
						kept.Add(1)
					}
					if int(seen.Add(1)) == t.Objects && int(done.Add(1)) == consumers {
						all <- now()
					}
				},
			})
			if err != nil {
				fail("handler: %v", err)
			}
		}
		heapBefore, rssBefore := settledHeap()
		t0 := now()
		go informer.RunWithContext(ctx)
		at := <-all
		o.SyncMs = ptr(at - t0)
		o.Objects = ptr(len(informer.GetStore().ListKeys()))
		heapAfter, rssAfter := settledHeap()
		o.HeapBefore, o.HeapAfter = ptr(heapBefore), ptr(heapAfter)
		o.RssBefore, o.RssAfter = ptr(rssBefore), ptr(rssAfter)
		o.HeapPerObject = ptr((float64(heapAfter) - float64(heapBefore)) / float64(t.Objects))
		o.Notes = append(o.Notes, fmt.Sprintf("%d event handler(s) on one informer of the shared factory", consumers))
		report(o)
	case "sync":
		var heapBefore, rssBefore uint64
		if t.Heap {
			heapBefore, rssBefore = settledHeap()
		}
		t0 := now()
		go informer.RunWithContext(ctx)
		at := <-synced
		o.SyncMs = ptr(at - t0)
		n := len(informer.GetStore().ListKeys())
		o.Objects = ptr(n)
		if n != t.Objects {
			fail("synced %d of %d", n, t.Objects)
		}
		if t.Heap {
			heapAfter, rssAfter := settledHeap()
			o.HeapBefore, o.HeapAfter = ptr(heapBefore), ptr(heapAfter)
			o.RssBefore, o.RssAfter = ptr(rssBefore), ptr(rssAfter)
			o.HeapPerObject = ptr((float64(heapAfter) - float64(heapBefore)) / float64(n))
		}
		report(o)
	case "flood":
		want := t.Events
		done := make(chan float64, 1)
		var applied atomic.Int64
		onUpdate = func(any) {
			if int(applied.Add(1)) == want {
				done <- now()
			}
		}
		go informer.RunWithContext(ctx)
		<-synced
		o.LastAppliedAt = ptr(<-done)
		o.Applied = ptr(int(applied.Load()))
		o.ClockOffset = ptr(clockOffset(t.Server))
		report(o)
	case "latency":
		want := t.Count
		var offset atomic.Value
		offset.Store(0.0)
		latencies := make([]float64, 0, want)
		done := make(chan struct{})
		onUpdate = func(obj any) {
			at := now()
			m, err := metaAccessor(obj)
			if err != nil {
				fail("%v", err)
			}
			sent, _ := strconv.ParseFloat(m.GetAnnotations()[sentAt], 64)
			latencies = append(latencies, at-(sent-offset.Load().(float64)))
			if len(latencies) == want {
				close(done)
			}
		}
		go informer.RunWithContext(ctx)
		<-synced
		offset.Store(clockOffset(t.Server))
		until := time.Now().Add(10 * time.Second)
		for {
			err := benchCall(t.Server, fmt.Sprintf("/_bench/latency?count=%d&gap=%d", want, t.GapMs))
			if err == nil {
				break
			}
			if time.Now().After(until) {
				fail("%v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		<-done
		o.Latencies = latencies
		o.ClockOffset = ptr(offset.Load().(float64))
		report(o)
	default:
		fail("workload %q is not measured by this contender", t.Workload)
	}
}
