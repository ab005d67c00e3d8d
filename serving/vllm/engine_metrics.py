"""vLLM's Prometheus /metrics -> CloudWatch embedded-metric-format (EMF) lines on stdout, one per scrape.

The wrapper image's entrypoint runs this beside `vllm serve`. Every ENGINE_METRICS_INTERVAL_S seconds it reads the
engine's `/metrics` on 127.0.0.1 and writes one line: gauges as read, counters as their increase since the previous
scrape, and for each latency histogram the p50 and p99 of the observations of this interval alone. Metric names,
units and dimensions are the contract in lib/generative/engine-metrics.ts (a test compares the two).

How the percentiles are computed: a Prometheus histogram holds cumulative bucket counts since the engine started.
The increase of each bucket between two scrapes is the histogram of the interval; the quantile is found as
Prometheus' `histogram_quantile` finds it (the bucket where the rank falls, linear interpolation between its bounds;
a rank in the +Inf bucket reports the highest finite bound). Labels (model name, engine index, finish reason) are
summed over. A counter or bucket that went down means the engine restarted: its current value is the increase.
The first scrape after start reports everything since the engine started, which is then the interval.

The precision is the buckets': vLLM's TTFT buckets step 0.25, 0.5, 0.75, 1, 2.5, 5 s, so a p99 between 1 and 2.5 s
is interpolated inside that bucket (vLLM `vllm/v1/metrics/loggers.py`). Percentiles of intervals cannot be merged:
read them in CloudWatch with the Maximum statistic.

Scrapes fail while the engine loads (the port opens only once the model is ready); failures are counted from the
first successful scrape on, as `MetricsScrapeFailures`. Lines go through serving/linewriter.py: a stalled log
reader never blocks this process, lines are dropped whole and counted (`MetricLinesDropped`).
"""
import json
import math
import os
import re
import sys
import time
import urllib.request

# Contract: lib/generative/engine-metrics.ts (ENGINE_GAUGES, ENGINE_COUNTERS, ENGINE_PERCENTILES, ENGINE_EXPORTER_COUNTERS).
# The vLLM Neuron plugin's start (Trn2/Trn3; a histogram's _sum when it exports one) and the cores the launcher saw
# (serving/vllm/cores_seen.py): constant after start, absent from an engine without them.
GAUGES = (("RunningRequests", "Count", "vllm:num_requests_running", 1.0),
          ("WaitingRequests", "Count", "vllm:num_requests_waiting", 1.0),
          ("KvCacheUsage", "Percent", "vllm:kv_cache_usage_perc", 100.0),
          ("CompileTime", "Milliseconds", "vllm_neuron:compilation_time_seconds", 1000.0),
          ("ModelLoadTime", "Milliseconds", "vllm_neuron:model_load_time_seconds", 1000.0),
          ("StartupTime", "Milliseconds", "vllm_neuron:startup_time_seconds", 1000.0),
          ("NeuronCoresSeen", "Count", "cdk_inferentia:neuron_cores_seen", 1.0))
COUNTERS = (("PromptTokens", "Count", "vllm:prompt_tokens_total"),
            ("GenerationTokens", "Count", "vllm:generation_tokens_total"),
            ("FinishedRequests", "Count", "vllm:request_success_total"))
PERCENTILES = (("TimeToFirstTokenP50", "Milliseconds", "vllm:time_to_first_token_seconds", 0.50),
               ("TimeToFirstTokenP99", "Milliseconds", "vllm:time_to_first_token_seconds", 0.99),
               ("TimePerOutputTokenP50", "Milliseconds", "vllm:request_time_per_output_token_seconds", 0.50),
               ("TimePerOutputTokenP99", "Milliseconds", "vllm:request_time_per_output_token_seconds", 0.99),
               ("InterTokenLatencyP99", "Milliseconds", "vllm:inter_token_latency_seconds", 0.99))
EXPORTER_COUNTERS = (("MetricsScrapeFailures", "Count"), ("MetricLinesDropped", "Count"))

# `name{labels} value [timestamp]` (Prometheus text exposition format 0.0.4).
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?\s*$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
MAX_BODY_BYTES = 4 * 1024 * 1024


def parse(text):
    """{name: [(labels, value)]} of a Prometheus text exposition; comments and malformed lines are skipped."""
    series = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        if not match:
            continue
        try:
            value = float(match.group(3))
        except ValueError:
            continue
        labels = dict(LABEL.findall(match.group(2) or ""))
        series.setdefault(match.group(1), []).append((labels, value))
    return series


def total(series, name):
    """Sum over every label set, or None when the engine does not expose the series."""
    samples = series.get(name)
    if not samples:
        return None
    return sum(value for _, value in samples if not math.isnan(value))


def buckets(series, name):
    """{upper bound: cumulative count} of a histogram, summed over label sets other than `le`."""
    out = {}
    for labels, value in series.get(name + "_bucket", []):
        try:
            bound = float(labels.get("le", "nan"))
        except ValueError:
            continue
        if not math.isnan(bound) and not math.isnan(value):
            out[bound] = out.get(bound, 0.0) + value
    return out


def increase(current, previous):
    """The increase of a counter; a counter that went down restarted from zero."""
    if previous is None or current < previous:
        return current
    return current - previous


def interval_buckets(current, previous):
    """The histogram of the interval: each bucket's increase, all from zero when the total went down (restart)."""
    restarted = previous is None or current.get(math.inf, 0.0) < previous.get(math.inf, 0.0)
    return {bound: count - (0.0 if restarted else previous.get(bound, 0.0)) for bound, count in current.items()}


def quantile(q, cumulative):
    """Prometheus' histogram_quantile over {upper bound: cumulative count}; None without observations."""
    bounds = sorted(cumulative)
    if not bounds or bounds[-1] != math.inf:
        return None
    count = cumulative[math.inf]
    if count <= 0:
        return None
    rank = q * count
    lower, below = 0.0, 0.0
    for bound in bounds:
        cumulated = cumulative[bound]
        if cumulated >= rank:
            if bound == math.inf:
                return lower  # the highest finite bound: nothing better is known
            inside = cumulated - below
            if inside <= 0:
                return bound
            return lower + (bound - lower) * (rank - below) / inside
        lower, below = bound, cumulated
    return lower


class Exporter:
    def __init__(self, namespace, service, replica, writer):
        self.namespace = namespace
        self.service = service
        self.replica = replica
        self.writer = writer
        self.previous_counters = {}
        self.previous_buckets = {}
        self.engine_seen = False
        self.scrape_failures = 0
        self.dropped = 0

    def observe(self, text, timestamp):
        """Writes the line of one successful scrape."""
        self.engine_seen = True
        series = parse(text)
        document, definitions = {}, []
        for name, unit, source, scale in GAUGES:
            value = total(series, source)
            if value is None:
                value = total(series, source + "_sum")
            if value is not None:
                document[name] = round(value * scale, 3)
                definitions.append({"Name": name, "Unit": unit})
        for name, unit, source in COUNTERS:
            value = total(series, source)
            if value is not None:
                document[name] = increase(value, self.previous_counters.get(source))
                self.previous_counters[source] = value
                definitions.append({"Name": name, "Unit": unit})
        histograms = {}
        for _, _, source, _ in PERCENTILES:
            if source not in histograms:
                current = buckets(series, source)
                histograms[source] = interval_buckets(current, self.previous_buckets.get(source)) if current else {}
                if current:
                    self.previous_buckets[source] = current
        for name, unit, source, q in PERCENTILES:
            value = quantile(q, histograms[source])
            if value is not None:
                document[name] = round(value * 1000.0, 3)
                definitions.append({"Name": name, "Unit": unit})
        self._write(timestamp, document, definitions)

    def failed(self, timestamp):
        """Counts a failed scrape once the engine has answered once (before, it is still loading)."""
        if self.engine_seen:
            self.scrape_failures += 1
            self._write(timestamp, {}, [])

    def _write(self, timestamp, document, definitions):
        self.dropped += self.writer.take_dropped()
        document = {**document, "MetricsScrapeFailures": self.scrape_failures, "MetricLinesDropped": self.dropped}
        definitions = definitions + [{"Name": name, "Unit": unit} for name, unit in EXPORTER_COUNTERS]
        directive = {"Namespace": self.namespace, "Dimensions": [["Service"], ["Service", "Replica"]], "Metrics": definitions}
        body = {"_aws": {"Timestamp": timestamp, "CloudWatchMetrics": [directive]},
                "Service": self.service, "Replica": self.replica, **document}
        line = (json.dumps(body, separators=(",", ":")) + "\n").encode("utf-8")
        if self.writer.write(line):
            self.scrape_failures = 0
            self.dropped = 0
        else:
            self.writer.take_dropped()  # this line's own drop is counted here and carried on with the rest
            self.dropped += 1


def scrape(url, timeout_s):
    """The /metrics text; raises OSError (connection refused, timeout) or ValueError (too large, not text)."""
    with urllib.request.urlopen(url, timeout=timeout_s) as response:  # noqa: S310 - a fixed http://127.0.0.1 URL
        body = response.read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        raise ValueError(f"/metrics is over {MAX_BODY_BYTES} bytes")
    return body.decode("utf-8")


def run(exporter, url, interval_s, clock=time.time, sleep=time.sleep, scrapes=None):
    """Scrapes every interval_s seconds, on a fixed schedule, until `scrapes` scrapes (forever when None)."""
    done = 0
    next_at = clock() + interval_s
    while scrapes is None or done < scrapes:
        sleep(max(0.0, next_at - clock()))
        next_at += interval_s
        timestamp = int(clock() * 1000)
        try:
            text = scrape(url, min(interval_s, 5.0))
        except (OSError, ValueError):
            exporter.failed(timestamp)
        else:
            exporter.observe(text, timestamp)
        done += 1


def main():
    from serving.linewriter import LineWriter

    namespace = os.environ.get("ENGINE_METRICS_NAMESPACE", "")
    service = os.environ.get("ENGINE_METRICS_SERVICE", "")
    replica = os.environ.get("ENGINE_METRICS_REPLICA", "0")
    try:
        interval_s = float(os.environ.get("ENGINE_METRICS_INTERVAL_S", "10"))
        port = int(os.environ.get("CDK_INFERENTIA_VLLM_PORT", "8080"))
    except ValueError as error:
        print(f"engine metrics: {error}; not exporting", file=sys.stderr)
        return 2
    if not namespace or not service or not interval_s > 0:
        print("engine metrics: ENGINE_METRICS_NAMESPACE, ENGINE_METRICS_SERVICE and a positive "
              "ENGINE_METRICS_INTERVAL_S are needed; not exporting", file=sys.stderr)
        return 2
    writer = LineWriter(sys.stdout.fileno(), 1024 * 1024, "engine-metrics",
                        on_failure=lambda message: print(message, file=sys.stderr))
    run(Exporter(namespace, service, replica, writer), f"http://127.0.0.1:{port}/metrics", interval_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
