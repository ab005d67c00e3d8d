"""CloudWatch embedded-metric-format (EMF) lines on stdout, one per worker per interval.

Why aggregated per interval: one line per request would cost a JSON dump and a log write per request in the event
loop, and at thousands of requests per second the log volume (and its CloudWatch Logs bill) would dwarf the model's.
Per interval each worker's line carries exact counters as numbers and distributions as a uniform sample of at most
100 values (the EMF limit for an array: awsdocs/amazon-cloudwatch-user-guide, "Specification: Embedded Metric
Format", Target members), from which CloudWatch computes percentiles. Sums of sampled metrics are not totals: use the
counters for totals and `Inputs / Batches` for the mean batch size.

Namespace: `$MODEL_SERVER_METRICS_NAMESPACE`. Dimension sets: `[Service]` and `[Service, Worker]`, where Service is
`$MODEL_SERVER_METRICS_SERVICE` and Worker the worker index ("0", "1", ...); `NeuronCores` is a property (searchable
in Logs Insights, not a dimension).

With several front ends (MODEL_SERVER_FRONT_ENDS > 1) each writes the lines of its own workers (the Worker dimension
is the worker's index on the instance, so no two front ends write the same one) and its own service line: the
counters of an interval are exact per line, and CloudWatch's Sum over the `[Service]` lines of an instance is the
instance's total. The other front ends hand their lines to the main one, the only writer of stdout.

Lines go through a LineWriter (serving/linewriter.py): buffered, written by a thread, dropped and counted when the
buffer is full or the reader has gone, so writing metrics never blocks a request. The count of lines lost since the
last interval is the service line's `MetricLinesDropped`; a dropped service line carries its count into the next.
"""
import json
import random
import time

SAMPLE_LIMIT = 100

WORKER_COUNTERS = (("Batches", "Count"), ("Requests", "Count"), ("Inputs", "Count"), ("WorkerRestarts", "Count"))
WORKER_SAMPLES = (("BatchSize", "Count"), ("QueueWait", "Milliseconds"), ("DeviceTime", "Milliseconds"))
SERVICE_COUNTERS = (("QueueFull", "Count"), ("DeadlineExceeded", "Count"), ("WorkerErrors", "Count"), ("WorkerHangs", "Count"), ("RequestsRetried", "Count"), ("IsolationCalls", "Count"), ("MetricLinesDropped", "Count"), ("ConnectionsRefused", "Count"), ("ReadTimeouts", "Count"), ("BodyTooLarge", "Count"))


class Reservoir:
    """A uniform sample of at most SAMPLE_LIMIT values (Vitter's algorithm R)."""

    def __init__(self):
        self.values = []
        self.seen = 0

    def add(self, value):
        self.seen += 1
        if len(self.values) < SAMPLE_LIMIT:
            self.values.append(value)
        else:
            slot = random.randrange(self.seen)
            if slot < SAMPLE_LIMIT:
                self.values[slot] = value


class WorkerMetrics:
    def __init__(self):
        self.reset()

    def reset(self):
        self.counters = {name: 0 for name, _ in WORKER_COUNTERS}
        self.samples = {name: Reservoir() for name, _ in WORKER_SAMPLES}

    def record_batch(self, stats):
        self.counters["Batches"] += 1
        self.counters["Inputs"] += stats.inputs
        self.counters["Requests"] += stats.requests
        self.samples["BatchSize"].add(stats.inputs)
        self.samples["DeviceTime"].add(round(stats.device_ms, 3))
        for wait in stats.queue_waits_ms:
            self.samples["QueueWait"].add(round(wait, 3))


class Metrics:
    def __init__(self, namespace, service, workers, writer):
        """`workers`: (index on the instance, NEURON_RT_VISIBLE_CORES) of each worker this front end runs."""
        self.namespace = namespace
        self.service = service
        self.visible_cores = dict(workers)
        self.workers = {index: WorkerMetrics() for index, _ in workers}
        self.service_counters = {name: 0 for name, _ in SERVICE_COUNTERS}
        self.writer = writer

    def worker(self, index):
        return self.workers[index]

    def count(self, name, amount=1):
        self.service_counters[name] += amount

    def flush(self):
        """Writes the interval's lines and starts a new interval."""
        timestamp = int(time.time() * 1000)
        lines = []
        for index, worker in self.workers.items():
            document = {"Service": self.service, "Worker": str(index), "NeuronCores": self.visible_cores[index]}
            definitions = []
            for name, unit in WORKER_COUNTERS:
                document[name] = worker.counters[name]
                definitions.append({"Name": name, "Unit": unit})
            for name, unit in WORKER_SAMPLES:
                if worker.samples[name].values:
                    document[name] = worker.samples[name].values
                    definitions.append({"Name": name, "Unit": unit})
            lines.append(self._line(timestamp, [["Service"], ["Service", "Worker"]], definitions, document))
            worker.reset()
        for line in lines:
            self.writer.write(line)
        # The service line goes last so that it counts the worker lines of this interval that did not fit.
        self.count("MetricLinesDropped", self.writer.take_dropped())
        document = {"Service": self.service}
        definitions = []
        for name, unit in SERVICE_COUNTERS:
            document[name] = self.service_counters[name]
            definitions.append({"Name": name, "Unit": unit})
        if self.writer.write(self._line(timestamp, [["Service"]], definitions, document)):
            self.service_counters = {name: 0 for name, _ in SERVICE_COUNTERS}
        else:
            self.writer.take_dropped()  # this line's own drop is in the counts it carries on to the next interval
            self.service_counters["MetricLinesDropped"] += 1

    def _line(self, timestamp, dimensions, definitions, document):
        directive = {"Namespace": self.namespace, "Dimensions": dimensions, "Metrics": definitions}
        body = {"_aws": {"Timestamp": timestamp, "CloudWatchMetrics": [directive]}, **document}
        return (json.dumps(body, separators=(",", ":")) + "\n").encode("utf-8")
