"""neuron-monitor -> CloudWatch embedded-metric-format lines: NeuronCore utilization, per core and in total.

The entrypoint runs `neuron-monitor | python3 -m serving.neuron_monitor` beside the server when the image has
neuron-monitor (every Neuron DLC does). neuron-monitor writes one JSON document per period on stdout (AWS Neuron docs,
tools/neuron-sys-tools/neuron-monitor-user-guide.rst); each Neuron runtime (one per worker) reports the cores it owns
under `report.neuroncore_counters.neuroncores_in_use.<core>.neuroncore_utilization`, in percent. This adapter
writes one EMF line per core per document, in the server's namespace, with dimension sets `[Service]` (the average
is the mean over the instance's used cores) and `[Service, NeuronCore]`.

Why not the DLC's neuron-monitor-cloudwatch.py: the metric names it publishes are not documented, and it needs
`cloudwatch:PutMetricData`; EMF lines need no permission and have names this project defines and tests.

Each line is one write of well under PIPE_BUF bytes, so it is never torn by the front end's writes to the same stdout.
"""
import json
import os
import sys
import time

METRICS = (("NeuronCoreUtilization", "Percent"),)


def utilization(document):
    """{core index: utilization percent} of one neuron-monitor document; empty when it reports none."""
    cores = {}
    for runtime in document.get("neuron_runtime_data") or []:
        report = (runtime or {}).get("report") or {}
        in_use = (report.get("neuroncore_counters") or {}).get("neuroncores_in_use") or {}
        for core, counters in in_use.items():
            value = (counters or {}).get("neuroncore_utilization")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cores[str(core)] = float(value)
    return cores


def lines(document, namespace, service, timestamp):
    """The EMF lines of one neuron-monitor document, one per core, ordered by core index."""
    name, unit = METRICS[0]
    out = []
    for core, value in sorted(utilization(document).items(), key=lambda item: int(item[0]) if item[0].isdigit() else item[0]):
        directive = {"Namespace": namespace, "Dimensions": [["Service"], ["Service", "NeuronCore"]],
                     "Metrics": [{"Name": name, "Unit": unit}]}
        body = {"_aws": {"Timestamp": timestamp, "CloudWatchMetrics": [directive]},
                "Service": service, "NeuronCore": core, name: round(value, 2)}
        out.append((json.dumps(body, separators=(",", ":")) + "\n").encode("utf-8"))
    return out


def run(source, fd, namespace, service):
    """Reads neuron-monitor documents from `source` until it ends, writing EMF lines to `fd`."""
    for raw in source:
        try:
            document = json.loads(raw)
        except ValueError:
            continue  # a partial or non-JSON line (neuron-monitor's own messages): skip, never stop
        if not isinstance(document, dict):
            continue
        for line in lines(document, namespace, service, int(time.time() * 1000)):
            os.write(fd, line)


def main():
    namespace = os.environ.get("MODEL_SERVER_METRICS_NAMESPACE", "")
    service = os.environ.get("MODEL_SERVER_METRICS_SERVICE", "")
    if not namespace or not service:
        return  # the server itself reports the missing variables and exits
    run(sys.stdin, sys.stdout.fileno(), namespace, service)


if __name__ == "__main__":
    main()
