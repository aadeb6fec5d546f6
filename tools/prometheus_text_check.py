"""Checks Prometheus text (format 0.0.4) read from stdin with the Prometheus
project's own parser, prometheus_client, and prints its families as JSON:
{name: {"type": ..., "help": ..., "samples": [[name, labels, value], ...]}}.

Beyond what the parser refuses (a malformed line, a bad escape, a sample of
another family's type), it fails on what Prometheus would reject at scrape
time: a sample given twice, a histogram whose buckets are not cumulative or
whose +Inf bucket differs from its _count, a counter without _total.

    python tools/prometheus_text_check.py < metrics.txt
"""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main():
    text = sys.stdin.read()
    families = {}
    seen = set()
    for family in text_string_to_metric_families(text):
        if family.name in families:
            fail(f"family {family.name} appears twice")
        samples = []
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            if key in seen:
                fail(f"sample {sample.name} {sample.labels} appears twice")
            seen.add(key)
            samples.append([sample.name, sample.labels, sample.value])
            if family.type == "counter" and not sample.name.endswith(
                ("_total", "_created")
            ):
                fail(f"counter sample {sample.name} does not end with _total")
        if family.type == "histogram":
            check_histogram(family.name, samples)
        families[family.name] = {
            "type": family.type,
            "help": family.documentation,
            "samples": samples,
        }
    json.dump(families, sys.stdout, sort_keys=True)


def check_histogram(name, samples):
    series = {}
    for sample_name, labels, value in samples:
        rest = {k: v for k, v in labels.items() if k != "le"}
        entry = series.setdefault(tuple(sorted(rest.items())), {"buckets": []})
        if sample_name == name + "_bucket":
            entry["buckets"].append((float(labels["le"]), value))
        elif sample_name == name + "_count":
            entry["count"] = value
        elif sample_name == name + "_sum":
            entry["sum"] = value
    for labels, entry in series.items():
        buckets = entry["buckets"]
        if not buckets or not math.isinf(buckets[-1][0]):
            fail(f"histogram {name} {labels} has no +Inf bucket last")
        for (le_a, a), (le_b, b) in zip(buckets, buckets[1:]):
            if le_b <= le_a or b < a:
                fail(f"histogram {name} {labels} buckets are not cumulative")
        if entry.get("count") != buckets[-1][1] or "sum" not in entry:
            fail(f"histogram {name} {labels}: _count differs from le=+Inf")


main()
