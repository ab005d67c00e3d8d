"""The server's configuration: environment variables only, rendered from the plan by the constructs.

The names and their meaning are the contract in `lib/serving/environment.ts`; this module reads the same names and
checks them, and holds no sizing logic: every number comes from the plan. Run `python3 -m serving.config` to check an
environment without starting the server (prints the parsed values as JSON, or the problems and exit code 2).
"""
import json
import os
import re
import sys

MAX_BATCH_SIZE = "MODEL_SERVER_MAX_BATCH_SIZE"
MAX_DELAY_MS = "MODEL_SERVER_MAX_DELAY_MS"
COMPILED_BATCH_SIZE = "MODEL_BATCH_SIZE"
VISIBLE_CORES = "MODEL_SERVER_VISIBLE_CORES"
MAX_QUEUED_REQUESTS = "MODEL_SERVER_MAX_QUEUED_REQUESTS"
REQUEST_TIMEOUT_MS = "MODEL_SERVER_REQUEST_TIMEOUT_MS"
METRICS_NAMESPACE = "MODEL_SERVER_METRICS_NAMESPACE"
METRICS_SERVICE = "MODEL_SERVER_METRICS_SERVICE"
METRICS_INTERVAL_MS = "MODEL_SERVER_METRICS_INTERVAL_MS"
# Limits against failure and abuse. Rendered by the constructs too; optional here so that an environment rendered
# before they existed still starts, with the same defaults lib/serving/environment.ts renders.
WATCHDOG_MS = "MODEL_SERVER_WATCHDOG_MS"
MAX_BODY_BYTES = "MODEL_SERVER_MAX_BODY_BYTES"
MAX_QUEUED_BYTES = "MODEL_SERVER_MAX_QUEUED_BYTES"
READ_TIMEOUT_MS = "MODEL_SERVER_READ_TIMEOUT_MS"
IDLE_TIMEOUT_MS = "MODEL_SERVER_IDLE_TIMEOUT_MS"
MAX_CONNECTIONS = "MODEL_SERVER_MAX_CONNECTIONS"
FRONT_ENDS = "MODEL_SERVER_FRONT_ENDS"
# 1: each worker overlaps input_fn/output_fn with its device call (a batching plan); 0: one after the other (stock).
OVERLAP = "MODEL_SERVER_OVERLAP"
# The SageMaker instance pool the container runs in (lib/serving/pool.ts), when the endpoint has pools: answers carry
# it in the custom-attributes header as `pool=<priority>`, so a caller (the deploy proof) tells which pool answered.
POOL = "CDK_INFERENTIA_POOL"
# Not rendered from the plan: how many bytes of metric lines the front end buffers while stdout's reader is slow.
METRICS_BUFFER_BYTES = "MODEL_SERVER_METRICS_BUFFER_BYTES"

DEFAULT_WATCHDOG_MS = 10_000
DEFAULT_MAX_BODY_BYTES = 25 * 1024 * 1024  # off SageMaker; a SageMaker endpoint renders its 6 MiB payload cap
DEFAULT_QUEUED_BODIES = 8  # the bytes bound's default, in maximal bodies
DEFAULT_READ_TIMEOUT_MS = 10_000
DEFAULT_IDLE_TIMEOUT_MS = 75_000
DEFAULT_MAX_CONNECTIONS = 2048
# At 24 workers one metrics interval is ~75 KB: 4 MiB holds minutes of a stalled reader before lines are dropped.
DEFAULT_METRICS_BUFFER_BYTES = 4 * 1024 * 1024

# SageMaker's container contract (not from the plan): port, model directory, handler module, default Accept.
PORT = "SAGEMAKER_BIND_TO_PORT"
MODEL_DIR = "MODEL_SERVER_MODEL_DIR"
# Where the handler module lives when the image carries it (ModelImage.fromServer({ handler })) instead of the model data.
CODE_DIR = "MODEL_SERVER_CODE_DIR"
PROGRAM = "SAGEMAKER_PROGRAM"
DEFAULT_ACCEPT = "SAGEMAKER_DEFAULT_INVOCATIONS_ACCEPT"

# Separates NeuronCore groups in MODEL_SERVER_VISIBLE_CORES; a group itself may hold commas ("51,52") and ranges.
GROUP_SEPARATOR = ";"

_GROUP = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")
_FIX = "the constructs render it from the plan (lib/serving/environment.ts); see serving/README.md"


class ConfigError(Exception):
    """Every problem found in the environment, one sentence each."""

    def __init__(self, problems):
        super().__init__("\n".join(f"- {p}" for p in problems))
        self.problems = list(problems)


class Config:
    """Parsed, checked configuration."""

    def __init__(self, **values):
        self.__dict__.update(values)

    def as_dict(self):
        return dict(self.__dict__)


def cores_of(group: str):
    """The core indexes a NEURON_RT_VISIBLE_CORES value names: "2-3" -> [2, 3], "51,52" -> [51, 52]."""
    cores = []
    for part in group.split(","):
        first, _, last = part.partition("-")
        cores.extend(range(int(first), int(last or first) + 1))
    return cores


def load(environ=None) -> Config:
    """Reads and checks the environment; raises ConfigError listing every problem."""
    env = os.environ if environ is None else environ
    problems = []

    def required(name, parse, rule):
        raw = env.get(name)
        if raw is None or raw.strip() == "":
            problems.append(f"{name} is not set; set it to {rule} ({_FIX})")
            return None
        value = parse(raw.strip())
        if value is None:
            problems.append(f"{name}={raw!r} is not valid; set it to {rule} ({_FIX})")
        return value

    def whole(minimum):
        def parse(raw):
            return int(raw) if re.fullmatch(r"\d+", raw) and int(raw) >= minimum else None

        return parse

    def non_negative_number(raw):
        try:
            value = float(raw)
        except ValueError:
            return None
        return value if value >= 0 and value == value and value != float("inf") else None

    def text(raw):
        return raw

    max_batch = required(MAX_BATCH_SIZE, whole(1), "the most inputs one device call takes, a whole number >= 1")
    compiled = required(COMPILED_BATCH_SIZE, whole(1), "the batch size the model was compiled for, >= 1")
    max_delay = required(MAX_DELAY_MS, non_negative_number, "the longest wait in ms for a batch to fill, >= 0")
    groups = required(VISIBLE_CORES, _parse_groups, 'NEURON_RT_VISIBLE_CORES of each worker separated by ";", e.g. "0;1" or "0-1;2-3"')
    max_queue = required(MAX_QUEUED_REQUESTS, whole(1), "the most requests waiting for a worker, >= 1")
    timeout = required(REQUEST_TIMEOUT_MS, whole(1), "each request's deadline in ms, >= 1")
    namespace = required(METRICS_NAMESPACE, text, "the CloudWatch namespace of the server's metrics")
    service = required(METRICS_SERVICE, text, "the value of the metrics' Service dimension")
    interval = required(METRICS_INTERVAL_MS, whole(1), "how often in ms metrics are written, >= 1")
    port = _optional(env, PORT, "8080", whole(1), problems, "a TCP port, e.g. 8080")
    watchdog = _optional(env, WATCHDOG_MS, str(DEFAULT_WATCHDOG_MS), whole(1), problems, "the longest ms a worker may hold requests without a word, >= 1")
    max_body = _optional(env, MAX_BODY_BYTES, str(DEFAULT_MAX_BODY_BYTES), whole(1), problems, "the largest request body in bytes, >= 1")
    max_bytes = _optional(
        env, MAX_QUEUED_BYTES, str(DEFAULT_QUEUED_BODIES * (max_body or DEFAULT_MAX_BODY_BYTES)), whole(1), problems,
        "the most request-body bytes the server holds, >= 1",
    )
    read_timeout = _optional(env, READ_TIMEOUT_MS, str(DEFAULT_READ_TIMEOUT_MS), whole(1), problems, "the longest ms to receive a request's headers, and then its body, >= 1")
    idle_timeout = _optional(env, IDLE_TIMEOUT_MS, str(DEFAULT_IDLE_TIMEOUT_MS), whole(1), problems, "the longest ms a kept-alive connection may stay idle, >= 1")
    metrics_buffer = _optional(env, METRICS_BUFFER_BYTES, str(DEFAULT_METRICS_BUFFER_BYTES), whole(1), problems, "bytes of metric lines buffered for a slow stdout, >= 1")
    front_ends = _optional(env, FRONT_ENDS, "1", whole(1), problems, "how many front-end processes share the port and the workers, >= 1")
    overlap = _optional(env, OVERLAP, "1", lambda raw: {"0": False, "1": True}.get(raw), problems, "1 to overlap host work with device calls, 0 not to")
    max_connections = _optional(env, MAX_CONNECTIONS, str(DEFAULT_MAX_CONNECTIONS), whole(1), problems, "the most open client connections, >= 1")
    pool = _optional(env, POOL, "", lambda raw: raw if raw == "" or re.fullmatch(r"[1-5]", raw) else None, problems,
                     "the instance pool's priority, 1 to 5, or unset")

    if groups is not None:
        seen = {}
        for index, group in enumerate(groups):
            for core in cores_of(group):
                if core in seen:
                    problems.append(
                        f'{VISIBLE_CORES}={env[VISIBLE_CORES]!r} gives NeuronCore {core} to workers {seen[core]} and '
                        f"{index}; a NeuronCore belongs to one process only: give each worker its own cores"
                    )
                seen.setdefault(core, index)
    if groups is not None and front_ends is not None and front_ends > len(groups):
        problems.append(
            f"{FRONT_ENDS}={front_ends} exceeds the {len(groups)} worker(s) of {VISIBLE_CORES}; each front end owns at "
            f"least one worker: set {FRONT_ENDS} to at most {len(groups)}"
        )
    if max_batch is not None and compiled is not None and max_batch > compiled:
        problems.append(
            f"{MAX_BATCH_SIZE}={max_batch} exceeds {COMPILED_BATCH_SIZE}={compiled}, the batch the model was "
            f"compiled for; set {MAX_BATCH_SIZE} to at most {compiled}"
        )
    if max_body is not None and max_bytes is not None and max_bytes < max_body:
        problems.append(
            f"{MAX_QUEUED_BYTES}={max_bytes} is below {MAX_BODY_BYTES}={max_body}: a request of the largest allowed size "
            f"could never be queued; set {MAX_QUEUED_BYTES} to at least {max_body}"
        )
    if problems:
        raise ConfigError(problems)
    return Config(
        max_batch_size=max_batch,
        compiled_batch_size=compiled,
        max_delay_s=max_delay / 1000.0,
        visible_cores=groups,
        max_queued_requests=max_queue,
        request_timeout_s=timeout / 1000.0,
        metrics_namespace=namespace,
        metrics_service=service,
        metrics_interval_s=interval / 1000.0,
        port=port,
        watchdog_s=watchdog / 1000.0,
        max_body_bytes=max_body,
        max_queued_bytes=max_bytes,
        read_timeout_s=read_timeout / 1000.0,
        idle_timeout_s=idle_timeout / 1000.0,
        max_connections=max_connections,
        front_ends=front_ends,
        overlap=overlap,
        metrics_buffer_bytes=metrics_buffer,
        model_dir=env.get(MODEL_DIR) or "/opt/ml/model",
        code_dir=env.get(CODE_DIR) or None,
        program=env.get(PROGRAM) or "inference.py",
        default_accept=env.get(DEFAULT_ACCEPT) or "application/json",
        pool=int(pool) if pool else None,
    )


def shares(groups, front_ends):
    """Each front end's workers: [(index on the instance, NEURON_RT_VISIBLE_CORES), ...] per front end, contiguous and
    as even as the count allows (the first front ends take one more when it does not divide)."""
    base, extra = divmod(len(groups), front_ends)
    result, start = [], 0
    for front_end in range(front_ends):
        count = base + (1 if front_end < extra else 0)
        result.append([(index, groups[index]) for index in range(start, start + count)])
        start += count
    return result


def _optional(env, name, default, parse, problems, rule):
    raw = env.get(name) or default
    value = parse(raw.strip())
    if value is None:
        problems.append(f"{name}={raw!r} is not valid; set it to {rule} or leave it unset for {default}")
    return value


def _parse_groups(raw):
    groups = [group.strip() for group in raw.split(GROUP_SEPARATOR)]
    if not groups or any(not _GROUP.match(group) for group in groups):
        return None
    for group in groups:
        for part in group.split(","):
            first, _, last = part.partition("-")
            if last and int(last) < int(first):
                return None
    return groups


def load_or_exit():
    """The configuration, or exit 2 with every problem named on stderr: the server and this check report alike."""
    try:
        return load()
    except ConfigError as error:
        print(f"model server configuration is invalid:\n{error}", file=sys.stderr)
        sys.exit(2)


def main():
    print(json.dumps(load_or_exit().as_dict(), sort_keys=True))


if __name__ == "__main__":
    main()
