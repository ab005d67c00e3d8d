#!/bin/sh
# Entrypoint of the cdk-inferentia vLLM image (serving/vllm/Dockerfile, FROM the AWS Neuron vLLM DLC by digest):
# the engine's metrics and NeuronCore utilization as CloudWatch EMF lines on stdout, then `vllm serve` with the
# arguments the hosting rendered from the plan (CDK_INFERENTIA_VLLM_ARGS, read by serving/vllm/launch.py).
set -eu
# SageMaker starts the container as `<image> serve`; ECS may pass nothing. Any other command runs as given.
if [ "${1:-serve}" != serve ]; then
  exec "$@"
fi
if [ "${ENGINE_METRICS:-on}" != off ] && [ -n "${ENGINE_METRICS_NAMESPACE:-}" ] && [ -n "${ENGINE_METRICS_SERVICE:-}" ]; then
  python3 -m serving.vllm.engine_metrics &
  # NeuronCore utilization in the engine's namespace, as the model server reports it (serving/neuron_monitor.py).
  monitor="$(command -v neuron-monitor || true)"
  if [ -z "$monitor" ] && [ -x /opt/aws/neuron/bin/neuron-monitor ]; then
    monitor=/opt/aws/neuron/bin/neuron-monitor
  fi
  if [ -n "$monitor" ]; then
    ( "$monitor" 2>/dev/null \
      | MODEL_SERVER_METRICS_NAMESPACE="$ENGINE_METRICS_NAMESPACE" MODEL_SERVER_METRICS_SERVICE="$ENGINE_METRICS_SERVICE" \
        python3 -m serving.neuron_monitor ) &
  fi
fi
exec python3 -m serving.vllm.launch
